package secrets

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/repoprep/repoprep/internal/secrets/secrettest"
)

// fileKind wraps planted text the way one file type would hold it. Every transform maps
// characters one by one, so the transformed secret is still a substring of the
// transformed text and the test can find where it must be reported.
type fileKind struct {
	ext       string
	filler    func(i int) string  // an ordinary line with no secret in it
	wrap      func(string) string // the planted line(s) around the text
	transform func(string) string // applied to the text (and the secret) before wrapping
}

func identity(s string) string { return s }

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

var fileKinds = []fileKind{
	{".go", func(i int) string { return fmt.Sprintf("\tx%d := compute(%d, \"value\") // 注释 %d", i, i%7, i) },
		func(s string) string { return "\tconst planted = `" + s + "`" }, identity},
	{".py", func(i int) string { return fmt.Sprintf("    result_%d = helper(i, %d)  # étape", i, i%5) },
		func(s string) string { return "PLANTED = '''" + s + "'''" }, identity},
	{".env", func(i int) string { return fmt.Sprintf("FEATURE_%d=enabled", i) },
		func(s string) string { return s }, identity},
	{".yaml", func(i int) string { return fmt.Sprintf("  item_%d: {name: n%d, replicas: %d}", i, i, i%3) },
		func(s string) string { return "planted: |\n  " + s },
		func(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }},
	{".json", func(i int) string { return fmt.Sprintf("  \"k%d\": [%d, \"v\"],", i, i%9) },
		func(s string) string { return "  \"planted\": \"" + s + "\"," }, jsonEscape},
	{".md", func(i int) string { return fmt.Sprintf("Paragraph %d explains the build, see section %d.", i, i%4) },
		func(s string) string { return "```\n" + s + "\n```" }, identity},
}

// want is one planted secret: where it is and what must report it.
type want struct {
	rule         string
	start, end   int64
	line, column int
	secret       string
}

// plant builds one file of kind k holding every sample at its own spot between filler
// lines, and returns the content and what must be found.
func plant(t *testing.T, k fileKind, samples []secrettest.Sample) ([]byte, []want) {
	t.Helper()
	var b strings.Builder
	var wants []want
	for i, s := range samples {
		for j := range 1 + i%4 {
			b.WriteString(k.filler(i*10+j) + "\n")
		}
		text, secret := k.transform(s.Text), k.transform(s.Secret)
		at := b.Len()
		b.WriteString(k.wrap(text) + "\n")
		off := strings.Index(b.String()[at:], secret)
		if off < 0 {
			t.Fatalf("%s: secret of %s lost in wrapping", k.ext, s.Rule)
		}
		start := at + off
		before := b.String()[:start]
		line := strings.Count(before, "\n") + 1
		col := utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:]) + 1
		wants = append(wants, want{s.Rule, int64(start), int64(start + len(secret)), line, col, secret})
	}
	return []byte(b.String()), wants
}

// TestRecallPlanted plants fresh credentials of every kind in six file types and requires
// every one to be found by its rule at its exact line, column and span, and nothing else.
func TestRecallPlanted(t *testing.T) {
	s := defaultScanner(t)
	dir := t.TempDir()
	for _, k := range fileKinds {
		t.Run(k.ext, func(t *testing.T) {
			content, wants := plant(t, k, secrettest.Samples())
			check := func(how string, got []Finding) {
				t.Helper()
				for _, w := range wants {
					i := slices.IndexFunc(got, func(f Finding) bool { return f.Start == w.start })
					if i < 0 {
						t.Errorf("%s: %s at %d:%d not found", how, w.rule, w.line, w.column)
						continue
					}
					f := got[i]
					if f.Rule != w.rule || f.End != w.end || f.Line != w.line || f.Column != w.column {
						t.Errorf("%s: %s at %d:%d [%d,%d): got %s at %d:%d [%d,%d)", how, w.rule, w.line, w.column,
							w.start, w.end, f.Rule, f.Line, f.Column, f.Start, f.End)
					}
				}
				if len(got) != len(wants) {
					for _, f := range got {
						if !slices.ContainsFunc(wants, func(w want) bool { return w.start == f.Start }) {
							t.Errorf("%s: unexpected %s %s at %d:%d", how, f.Rule, f.Match, f.Line, f.Column)
						}
					}
				}
			}
			check("Scan", s.Scan(content))
			name := filepath.Join(dir, "planted"+k.ext)
			if err := os.WriteFile(name, content, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := s.ScanFile(name, true)
			if err != nil {
				t.Fatal(err)
			}
			check("ScanFile", got)
			redacted, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range wants {
				if bytes.Contains(redacted, []byte(w.secret)) {
					t.Errorf("%s survived redaction", w.rule)
				}
				if !bytes.Contains(redacted, []byte("[REDACTED:"+w.rule+"]")) {
					t.Errorf("no [REDACTED:%s] marker", w.rule)
				}
			}
			if fs := s.Scan(redacted); len(fs) != 0 {
				t.Errorf("redacted file still has %d findings, first %s at %d:%d", len(fs), fs[0].Rule, fs[0].Line, fs[0].Column)
			}
		})
	}
}

// TestLookalikes lists text that resembles a secret and must give no finding at all.
func TestLookalikes(t *testing.T) {
	s := defaultScanner(t)
	for name, text := range map[string]string{
		"public IP google":        "nameserver 8.8.8.8",
		"public IP cloudflare":    "dns = 1.1.1.1",
		"version string":          "version 1.2.3.4",
		"v-prefixed version":      "tag v10.0.0.1 released",
		"five-part version":       "10.1.2.3.4",
		"not private 172":         "172.32.0.1",
		"ms timestamp":            "created_at = 1700000000000",
		"ms timestamp json":       `{"ts": 1712345678901}`,
		"uuid":                    "id: 550e8400-e29b-41d4-a716-446655440000",
		"uuid token":              "request_token = 550e8400-e29b-41d4-a716-446655440000",
		"git sha":                 "commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
		"git sha in go.sum":       "github.com/x/y v1.2.3 h1:4b825dc642cb6eb9a060e54bf8d69288fbee4904=",
		"aws docs key id":         "AKIA" + "IOSFODNN7EXAMPLE",
		"aws docs key id assign":  "aws_access_key_id = AKIA" + "IOSFODNN7EXAMPLE",
		"aws docs secret":         "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
		"password env reference":  `password = "${DB_PASSWORD}"`,
		"api key slot":            "api_key=<your-key>",
		"password changeme":       "password: changeme",
		"public key":              "public_key = AAAAC3NzaC1lZDI1NTE5AAAAIGsK1z7jB9p2fW3hXv8",
		"ssh public key":          "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGsK1z7jB9p2fW3hXv8 user@host",
		"password from request":   `password := r.FormValue("password")`,
		"password attribute":      "password = self.password",
		"token var":               "token = auth.token",
		"conn string no password": "postgres://localhost:5432/app",
		"conn string template":    "postgres://${PGUSER}:${PGPASSWORD}@db/app",
		"port numbers":            "listen 0.0.0.0:8080",
		"semver pre":              "go 1.26.8",
		"float":                   "pi = 3.14159265358979",
		"phone slot":              "tel: +1-555-0100",
		"math plus":               "x = y+123456789",
		"big id":                  "id = 213800138000",
		"hash sha256":             "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"cert":                    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUY2xN\n-----END CERTIFICATE-----",
		"private key docs":        "-----BEGIN RSA PRIVATE KEY" + "-----\n...\n-----END RSA PRIVATE KEY-----",
		"secret_group":            "secret_group = 1",
		"password type":           "def login(user: str, password: str) -> bool:",
	} {
		t.Run(name, func(t *testing.T) {
			for _, f := range s.Scan([]byte(text)) {
				t.Errorf("%q: %s %s at column %d", text, f.Rule, f.Match, f.Column)
			}
		})
	}
}

// TestChunkBoundaries plants secrets of every kind so they straddle the chunk boundaries of
// a streaming scan, and requires ScanFile to find exactly what Scan finds on the whole.
func TestChunkBoundaries(t *testing.T) {
	// make test's whole pass plants about 1,900 samples 1-40 filler lines
	// apart over 3 MiB, and a long line of 320 KB. Under -short (the race
	// pass), where the scan in 1 KiB chunks (each step scans the 72 KiB carry
	// before it again) takes as long as three scans of the whole, about 360
	// samples 1-80 lines apart over 1 MiB + 64 KiB, still past the largest
	// chunk below chunkBytes; and a line of 160 KB, still long enough that
	// the 1 KiB chunks come to a buffer with no newline in it (under 128 KiB
	// they do not).
	size, apart, longLine := 3<<20, 40, 40000
	if testing.Short() {
		size, apart, longLine = 1<<20+1<<16, 80, 20000
	}
	s := defaultScanner(t)
	var b bytes.Buffer
	filler := "\tif err := run(ctx, opts); err != nil { return fmt.Errorf(\"step: %w\", err) }\n"
	for b.Len() < size {
		for _, smp := range secrettest.Samples() {
			b.WriteString(strings.Repeat(filler, 1+secrettest.Intn(apart)))
			b.WriteString(smp.Text + "\n")
		}
	}
	// One very long line, longer than the window a single-line rule reads, with a key in it.
	b.WriteString(strings.Repeat("abc=def;", longLine) + " ghp_" + secrettest.Rand("abcdef0123456789", 36) + " \n")
	content := b.Bytes()
	whole := s.Scan(content)
	if len(whole) == 0 {
		t.Fatal("nothing found")
	}
	for _, chunk := range []int{1 << 10, 97 << 10, 1 << 20, chunkBytes} {
		t.Run(fmt.Sprint(chunk), func(t *testing.T) {
			hits, err := s.scanReader(context.Background(), bytes.NewReader(content), nil, "", chunk)
			if err != nil {
				t.Fatal(err)
			}
			got := stripHits(hits)
			if len(got) != len(whole) {
				t.Fatalf("chunk %d: %d findings, whole scan %d", chunk, len(got), len(whole))
			}
			for i := range got {
				if got[i] != whole[i] {
					t.Fatalf("chunk %d: finding %d = %+v, whole scan %+v", chunk, i, got[i], whole[i])
				}
			}
		})
	}
}

// TestRedactUnchanged checks that ScanFile leaves a clean file alone.
func TestRedactUnchanged(t *testing.T) {
	s := defaultScanner(t)
	name := filepath.Join(t.TempDir(), "clean.go")
	if err := os.WriteFile(name, []byte("package x\n\nfunc f() int { return 1 }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(name)
	fs, err := s.ScanFile(name, true)
	if err != nil || len(fs) != 0 {
		t.Fatalf("ScanFile = %v, %v", fs, err)
	}
	after, _ := os.Stat(name)
	if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Error("clean file was rewritten")
	}
	entries, _ := os.ReadDir(filepath.Dir(name))
	if len(entries) != 1 {
		t.Errorf("left %d files behind", len(entries)-1)
	}
}

func TestMaskAndFingerprint(t *testing.T) {
	s := defaultScanner(t)
	key := "AKIA" + secrettest.Rand("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
	fs := s.Scan([]byte("id = " + key + "\nagain " + key + "\n"))
	if len(fs) != 2 {
		t.Fatalf("got %d findings", len(fs))
	}
	if fs[0].Match != "AKIA…(20)" {
		t.Errorf("Match = %q, want AKIA…(20)", fs[0].Match)
	}
	if fs[0].Fingerprint != fs[1].Fingerprint || !strings.HasPrefix(fs[0].Fingerprint, "aws-access-key-id:") {
		t.Errorf("fingerprints %q, %q: want equal, prefixed by the rule", fs[0].Fingerprint, fs[1].Fingerprint)
	}
	if strings.Contains(fs[0].Fingerprint, key[4:]) {
		t.Error("fingerprint reveals the key")
	}
	keyed, err := New(nil, WithFingerprintKey([]byte("k")))
	if err != nil {
		t.Fatal(err)
	}
	if keyed.fingerprint("r", []byte(key)) == s.fingerprint("r", []byte(key)) {
		t.Error("the fingerprint key changes nothing")
	}
	for _, tc := range []struct{ secret, want string }{
		{"13812345670", "13…(11)"},
		{"10.0.0.1", "10…(8)"},
		{"abc", "…(3)"},
		{"密码很长很长很长很长", "…(10)"},
	} {
		if got := mask([]byte(tc.secret)); got != tc.want {
			t.Errorf("mask(%q) = %q, want %q", tc.secret, got, tc.want)
		}
	}
}

// FuzzScan: no panics, spans inside the content and on the reported line and column, and
// a Match that never gives the secret away.
func FuzzScan(f *testing.F) {
	for _, smp := range secrettest.Samples() {
		f.Add([]byte("x = 1\n" + smp.Text + "\n"))
	}
	f.Add([]byte("password = \"\xff\xfe\""))
	f.Add([]byte("10.0.0.1 13812345670 +8613812345670"))
	s := defaultScanner(f)
	f.Fuzz(func(t *testing.T, content []byte) {
		fs := s.Scan(content)
		var prev int64
		for _, fd := range fs {
			if fd.Start < prev || fd.End <= fd.Start || fd.End > int64(len(content)) {
				t.Fatalf("bad span [%d,%d) after %d in %d bytes", fd.Start, fd.End, prev, len(content))
			}
			prev = fd.End
			secret := string(content[fd.Start:fd.End])
			if len(secret) > 4 && strings.Contains(fd.Match, secret) {
				t.Fatalf("Match %q holds the secret", fd.Match)
			}
			if line := bytes.Count(content[:fd.Start], []byte("\n")) + 1; line != fd.Line {
				t.Fatalf("line %d, want %d", fd.Line, line)
			}
		}
		red := Redact(content, fs)
		if len(fs) == 0 && !bytes.Equal(red, content) {
			t.Fatal("Redact changed content without findings")
		}
	})
}

// TestConcurrentScan shares one Scanner between goroutines, as the pipeline's pool does;
// run it with -race.
func TestConcurrentScan(t *testing.T) {
	s := defaultScanner(t)
	content, wants := plant(t, fileKinds[0], secrettest.Samples())
	done := make(chan []Finding)
	for range 8 {
		go func() { done <- s.Scan(content) }()
	}
	for range 8 {
		if got := <-done; len(got) != len(wants) {
			t.Errorf("%d findings, want %d", len(got), len(wants))
		}
	}
}

// Masks are the replacements Redact makes: applying them gives Redact's
// output, overlapping findings merged under the first one's rule.
func TestMasksMatchRedact(t *testing.T) {
	content := []byte("0123456789abcdefghij")
	fs := []Finding{{Start: 12, End: 15, Rule: "b"}, {Start: 2, End: 6, Rule: "a"}, {Start: 4, End: 9, Rule: "c"}, {Start: 18, End: 30, Rule: "out"}}
	var out []byte
	var pos int64
	for _, m := range Masks(fs, int64(len(content))) {
		out = append(append(out, content[pos:m.Start]...), m.Text...)
		pos = m.End
	}
	out = append(out, content[pos:]...)
	if want := Redact(content, fs); string(out) != string(want) {
		t.Errorf("masks applied = %q, Redact = %q", out, want)
	}
	if string(out) != "01[REDACTED:a]9ab[REDACTED:b]fghij" {
		t.Errorf("masks applied = %q", out)
	}
}

// ScanBytes finds what ScanReader finds in the same content, values
// included, without its read buffer.
func TestScanBytesMatchesScanReader(t *testing.T) {
	s := defaultScanner(t) // rules.Load(""), which this took, adds none to the defaults
	var all strings.Builder
	for _, sm := range secrettest.Samples() {
		all.WriteString("x = 1\n" + sm.Text + "\n")
	}
	for _, path := range []string{"a.txt", "config.yaml", "main.go", ""} {
		content := []byte(all.String())
		want, err := s.ScanReader(context.Background(), bytes.NewReader(content), path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.ScanBytes(context.Background(), content, path)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Findings) < 20 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: ScanBytes found %d, ScanReader %d (or the values differ)", path, len(got.Findings), len(want.Findings))
		}
	}
}
