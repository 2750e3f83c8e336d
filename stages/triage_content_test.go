package stages

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Fixtures for the content rules: keys and blobs made at test time.
func derKeys(t *testing.T) (ecDER, rsaDER []byte) {
	t.Helper()
	// Fresh keys each run: their bytes do not matter, their shape does.
	ec, err := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if ecDER, err = x509.MarshalECPrivateKey(ec); err != nil {
		t.Fatal(err)
	}
	rk, err := rsa.GenerateKey(crand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	return ecDER, x509.MarshalPKCS1PrivateKey(rk)
}

// keynoteZip is what Keynote '09 and later write: a zip.
func keynoteZip(t *testing.T) []byte {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, name := range []string{"Index/Document.iwa", "Metadata/Properties.plist"} {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(strings.Repeat("keynote ", 40)))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed+1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestTriageByContent: content decides where the name misleads. Each row
// failed before: empty __init__.py and py.typed were junk/empty, a DER
// .key a Keynote document, a zip .key an archive, SVGs and one-line
// base64 text source or text.
func TestTriageByContent(t *testing.T) {
	ecDER, rsaDER := derKeys(t)
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: ecDER}))
	// hutool's asn1.key opens 30 81 8a 02 21: a SEQUENCE of two INTEGERs.
	hutoolASN1 := append([]byte{0x30, 0x81, 0x8a, 0x02, 0x21}, randomBytes(0x8a-2, 7)...)
	b64 := base64.StdEncoding.EncodeToString(randomBytes(12<<10, 1))
	svg := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><path d="M0 0h4v4H0z"/></svg>` + "\n"
	var pemLines strings.Builder // a certificate bundle: 64-byte lines of base64
	for range 6 {
		pemLines.WriteString(string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: randomBytes(1500, 9)})))
	}
	cases := []struct {
		path, content      string
		category, reason   string
		language, rulePart string // checked when not ""
	}{
		// meaningful empty files are staged as their kind; others stay junk
		{"pkg/__init__.py", "", "source", "", "Python", ""},
		{"pkg/sub/__init__.py", "", "source", "", "Python", ""},
		{"stubs/__init__.pyi", "", "source", "", "Python", ""},
		{"pkg/py.typed", "", "text", "", "", ""},
		{"logs/.gitkeep", "", "text", "", "", ""},
		{"cache/.keep", "", "text", "", "", ""},
		{"site/.nojekyll", "", "text", "", "", ""},
		{"pkg/empty.py", "", "junk", "empty", "", ""},
		{"notes.txt", "", "junk", "empty", "", ""},
		{"__init__.py.bak", "", "junk", "empty", "", ""},
		// .key: a Keynote zip, or a key whose content decides
		{"keys/asn1.key", string(hutoolASN1), "junk", "certificate-store", "", "DER"},
		{"keys/ec.key", string(ecDER), "junk", "certificate-store", "", "DER"},
		{"keys/rsa.key", string(rsaDER), "junk", "certificate-store", "", "DER"},
		{"keys/pem.key", pemKey, "text", "", "", ""},
		{"keys/noise.key", string(randomBytes(300, 5)), "junk", "binary", "", ""},
		{"talks/deck.key", string(keynoteZip(t)), "document", "office", "", "zip"},
		{"certs/ca.der", string(rsaDER), "junk", "certificate-store", "", ""},
		{"certs/blob.bin", string(ecDER), "junk", "certificate-store", "", "DER"},
		{"certs/opaque.bin", string(randomBytes(300, 6)), "data", "opaque", "", ""},
		// media in text: SVG by name or content, one-line base64
		{"docs/images/env.svg", `<svg xmlns="http://www.w3.org/2000/svg">` + strings.Repeat(`<path d="M1 2L3 4"/>`, 4000) + "</svg>", "junk", "media-text", "", ""},
		{"assets/icon", svg, "junk", "media-text", "", "content type"},
		{"data/blob.txt", b64, "junk", "media-text", "", "media"},
		{"src/inline.json", `{"logo": "data:image/png;base64,` + b64 + `"}` + "\n", "junk", "media-text", "", "media"},
		{"src/inline.ts", "export const logo = 'data:font/woff2;base64," + b64 + "';\n", "junk", "media-text", "", "media"},
		{"certs/bundle.pem", pemLines.String(), "text", "", "", ""},
		{"testdata/vectors.txt", hex.EncodeToString(randomBytes(8<<10, 2)), "text", "", "", ""},
		{"testdata/e.txt", "2." + strings.Repeat("7182818284590452353602874713526624977572", 300), "text", "", "", ""},
		{"small.txt", b64[:2000], "text", "", "", ""},
	}
	var tcs []triageCase
	for _, c := range cases {
		tcs = append(tcs, triageCase{path: c.path, content: c.content})
	}
	_, env := writeCases(t, tcs)
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			rec := triageOne(t, env, c.path, len(c.content))
			if rec.Category != c.category || rec.Reason != c.reason {
				t.Errorf("%s/%s (by %v, mime %s), want %s/%s", rec.Category, rec.Reason, rec.Why(), rec.Mime, c.category, c.reason)
			}
			if c.language != "" && rec.Language != c.language {
				t.Errorf("language %q, want %q", rec.Language, c.language)
			}
			if c.rulePart != "" && !strings.Contains(rec.Why().Rule+" "+rec.Why().Detail, c.rulePart) {
				t.Errorf("decided by %v, want a rule naming %q", rec.Why(), c.rulePart)
			}
			if rec.ExtMismatch && strings.HasSuffix(c.path, ".key") {
				t.Errorf("a %s .key is flagged ext_mismatch", rec.Category)
			}
		})
	}
}

// TestEmptyMeaningfulFilesStaged: every empty __init__.py is staged, 0
// bytes, and dedup keeps each (before, they were junk/empty and never
// reached the tree).
func TestEmptyMeaningfulFilesStaged(t *testing.T) {
	names := []string{"a/__init__.py", "a/b/__init__.py", "c/__init__.py", "a/py.typed", "a/.gitkeep", "a/empty.txt"}
	src, out := t.TempDir(), t.TempDir()
	files := map[string]string{}
	for _, n := range names {
		files[n] = ""
	}
	writeTree(t, src, files)
	env := &Env{Src: openRoot(t, src), TreeDir: out, Rules: defaultRules(t), MaxTextBytes: 1 << 20}
	var recs []*Record
	for _, n := range names {
		rec := NewRecord(n, n, 0)
		if err := process(env, rec); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		recs = append(recs, rec)
	}
	if err := env.Dedup(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		wantStaged := !strings.HasSuffix(rec.Path, "empty.txt")
		if rec.Staged != wantStaged || rec.DuplicateOf != "" {
			t.Errorf("%s: staged %v duplicate of %q (%s/%s), want staged %v", rec.Path, rec.Staged, rec.DuplicateOf, rec.Category, rec.Reason, wantStaged)
			continue
		}
		st, err := os.Stat(filepath.Join(out, filepath.FromSlash(rec.Path)))
		if wantStaged && (err != nil || st.Size() != 0 || rec.OutSize != 0 || rec.Hash == "") {
			t.Errorf("%s: staged copy %v %v, out size %d, hash %q", rec.Path, st, err, rec.OutSize, rec.Hash)
		}
		if !wantStaged && err == nil {
			t.Errorf("%s: junk/empty but in the tree", rec.Path)
		}
	}
}

func TestIsEncodedBlobAndDER(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString(randomBytes(6<<10, 3))
	for _, tc := range []struct {
		name string
		head string
		want bool
	}{
		{"base64", b64, true},
		{"url-safe base64", base64.RawURLEncoding.EncodeToString(randomBytes(6<<10, 4)), true},
		{"base64 wrapped at 76", strings.Join(chunk(b64, 76), "\n"), false},
		{"hex", hex.EncodeToString(randomBytes(4<<10, 4)), false},
		{"prose", strings.Repeat("The quick brown fox jumps over the lazy dog. ", 200), false},
		{"short", b64[:1000], false},
		{"half code, half blob", strings.Repeat("x := f(a, b)\n", 400) + b64[:5000], false},
	} {
		if got := isEncodedBlob([]byte(tc.head)); got != tc.want {
			t.Errorf("isEncodedBlob(%s) = %v", tc.name, got)
		}
	}
	ec, _ := derKeys(t)
	for _, tc := range []struct {
		name string
		b    []byte
		size int64
		want bool
	}{
		{"EC key", ec, int64(len(ec)), true},
		{"EC key, grown", ec, int64(len(ec)) + 1, false},
		{"starts with 0x30", append([]byte{0x30, 0x03, 0x41}, 1, 2), 5, false},
		{"short form", []byte{0x30, 0x03, 0x02, 0x01, 0x00}, 5, true},
		{"too short", []byte{0x30}, 1, false},
		{"long length", []byte{0x30, 0x84, 0, 0, 0, 1, 2}, 7, false},
	} {
		if got := isDER(tc.b, tc.size); got != tc.want {
			t.Errorf("isDER(%s) = %v", tc.name, got)
		}
	}
}

func chunk(s string, n int) []string {
	var out []string
	for len(s) > n {
		out, s = append(out, s[:n]), s[n:]
	}
	return append(out, s)
}

// FuzzIsDER: any head and size are judged without a panic.
func FuzzIsDER(f *testing.F) {
	f.Add([]byte{0x30, 0x81, 0x8a, 0x02}, int64(141))
	f.Add([]byte{0x30, 0x82}, int64(4))
	f.Fuzz(func(t *testing.T, head []byte, size int64) {
		if isDER(head, size) && (len(head) < 3 || head[0] != 0x30) {
			t.Fatalf("isDER(% x, %d) = true", head, size)
		}
		isEncodedBlob(head)
	})
}
