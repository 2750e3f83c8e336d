package pipeline

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/snapshot"
)

// The scanned tree is untrusted: nothing in it can unmask a secret or keep
// one from being reported (docs/secrets.md, the trust model). Values are
// random, made here.

// findingsAt groups a run's findings by path.
func findingsAt(res *Result) map[string][]secrets.PathFinding {
	out := map[string][]secrets.PathFinding{}
	for _, f := range res.Findings {
		out[f.Path] = append(out[f.Path], f)
	}
	return out
}

// grepNames fails the test for every path under out whose name holds one
// of the values (tree/ would show it).
func grepNames(t *testing.T, out string, values map[string]string) {
	t.Helper()
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		for what, v := range values {
			if strings.Contains(p, v) {
				t.Errorf("%s: %s in a name in OUT", strings.TrimPrefix(p, out), what)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMarkerInTreeUnmasksNothing: the allow marker written in the scanned
// content (a JSON value, prose, a glued word, a key block's first line)
// drops nothing and masks everything; with --inline-allow, a marker in a
// comment after the one finding on its line acknowledges that finding
// only, which stays masked.
func TestMarkerInTreeUnmasksNothing(t *testing.T) {
	gh, sk, pw := "gh"+"p_"+randFrom(t, alnum, 36), "sk_"+"live_"+randFrom(t, alnum, 24), randFrom(t, alnum, 14)+"9"
	ack, two1, two2 := "sk_"+"live_"+randFrom(t, alnum, 24), "gh"+"p_"+randFrom(t, alnum, 36), "gh"+"p_"+randFrom(t, alnum, 36)
	glued := "gh" + "p_" + randFrom(t, alnum, 36)
	body := randFrom(t, alnum+"+/", 64)
	values := map[string]string{"token": gh, "stripe": sk, "password": pw, "acknowledged": ack, "first of two": two1,
		"second of two": two2, "glued": glued, "key body": body}
	src := t.TempDir()
	writeFiles(t, src, map[string]string{
		"config.json": `{"token":"` + gh + `","stripe":"` + sk + `","password":"` + pw + `","note":"repoprep:allow"}` + "\n",
		"README.md":   "Set `STRIPE=" + sk + "` (repoprep:allow says nobody)\n",
		"ack.py":      "api_key = \"" + ack + "\"  # repoprep:allow\n",
		"two.py":      "a = \"" + two1 + "\"; b = \"" + two2 + "\"  # repoprep:allow\n",
		"glued.py":    "token = \"" + glued + "\"  # repoprep:allowed-by-nobody\n",
		"id_rsa":      "-----BEGIN RSA " + "PRIVATE KEY----- # repoprep:allow\n" + body + "\n-----END RSA " + "PRIVATE KEY-----\n",
	})
	for _, inline := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), "out")
		res := runFixture(t, src, out, func(o *Options) { o.InlineAllow = inline })
		grepOut(t, out, values)
		at := findingsAt(res)
		for _, p := range []string{"config.json", "README.md", "ack.py", "two.py", "glued.py", "id_rsa"} {
			if len(at[p]) == 0 {
				t.Errorf("inline-allow %v: %s: no finding", inline, p)
			}
			for _, f := range at[p] {
				if want := inline && p == "ack.py"; f.Acknowledged != want {
					t.Errorf("inline-allow %v: %s: %s acknowledged %v, want %v", inline, p, f.Rule, f.Acknowledged, want)
				}
			}
		}
		if n := len(at["config.json"]); n < 3 {
			t.Errorf("config.json: %d findings, want the token, the key and the password", n)
		}
	}
}

// TestLeftOutFilesScanned: files the tree leaves out (an ignored log, a
// minified bundle, an SQL dump, one the repository's own .repoprep.toml
// excludes) are scanned from the source: their findings are reported with
// staged false, and a value caught there is masked where it is staged.
func TestLeftOutFilesScanned(t *testing.T) {
	logTok, minTok, dumpPw, hidden := "gh"+"p_"+randFrom(t, alnum, 36), "gh"+"p_"+randFrom(t, alnum, 36), randFrom(t, alnum, 16)+"3", "gh"+"p_"+randFrom(t, alnum, 36)
	src := t.TempDir()
	writeFiles(t, src, map[string]string{
		".gitignore":        "*.log\n",
		".repoprep.toml":    "exclude = [\"hide/**\"]\n",
		"debug.log":         "starting\nGITHUB_TOKEN=" + logTok + "\ncall 138" + randFrom(t, "0123456789", 8) + "\n",
		"web/app.min.js":    "var a=1;var k=\"" + minTok + "\";" + strings.Repeat("var x=1;", 300) + "\n",
		"db/dump.sql":       "INSERT INTO users VALUES (1,'admin');\n-- password=" + dumpPw + "\n" + strings.Repeat("INSERT INTO t VALUES (1,2,3);\n", 50),
		"hide/creds.txt":    "GITHUB_TOKEN=" + hidden + "\n",
		"docs/setup.md":     "Use the token " + logTok + " to try it.\n",
		"main.go":           "package main\n\nfunc main() {}\n",
		"package-lock.json": `{"name":"x","lockfileVersion":3,"token":"` + minTok + `"}` + "\n",
	})
	out := filepath.Join(t.TempDir(), "out")
	res := runFixture(t, src, out, nil)
	grepOut(t, filepath.Join(out, snapshot.TreeDir), map[string]string{"log token": logTok, "bundle token": minTok, "hidden": hidden})
	at := findingsAt(res)
	staged := map[string]bool{}
	for _, e := range res.Manifest.Files {
		staged[e.Path] = e.Staged
	}
	for _, p := range []string{"debug.log", "web/app.min.js", "db/dump.sql", "hide/creds.txt"} {
		if staged[p] {
			t.Errorf("%s: staged; the test wants it left out", p)
		}
		if len(at[p]) == 0 {
			t.Errorf("%s: left out, and its secret not reported", p)
		}
		for _, f := range at[p] {
			if f.Staged || f.Kind != "credential" {
				t.Errorf("%s: finding %s (%s) says staged %v; want credentials only, not staged", p, f.Rule, f.Kind, f.Staged)
			}
		}
	}
	if len(at["docs/setup.md"]) == 0 || !at["docs/setup.md"][0].Staged {
		t.Errorf("docs/setup.md: the log's token, staged here, is not a staged finding: %+v", at["docs/setup.md"])
	}
}

// TestNameHoldsCaughtValue: a name holding a value caught in a content is
// masked in files.json, REPO_MAP.md, the indexes and the tree, as one a
// rule catches; identifier characters are boundaries for a fixed-prefix
// format (backup_AKIA….txt) and for a short value.
func TestNameHoldsCaughtValue(t *testing.T) {
	tok := "gh" + "p_" + randFrom(t, alnum, 36)
	aws := "AKIA" + randFrom(t, upperDigits, 16)
	src := t.TempDir()
	writeFiles(t, src, map[string]string{
		"ci.yml":                "token: " + tok + "\n",
		"tok_" + tok + ".txt":   "a note\n",
		"dir_" + tok + "/a.txt": "another note\n",
		// Fixed-prefix formats: '_' is a boundary as '-' is, in names and text.
		"backup_" + aws + ".txt": "nothing secret inside\n",
		"notes.md":               "key_" + tok + " and backup_" + aws + "\n",
	})
	out := filepath.Join(t.TempDir(), "out")
	res := runFixture(t, src, out, nil)
	grepOut(t, out, map[string]string{"token": tok, "aws key": aws})
	grepNames(t, out, map[string]string{"token": tok, "aws key": aws})
	n := 0
	for _, e := range res.Manifest.Files {
		if e.Reason == "secret-in-name" {
			n++
			if e.Staged || !strings.Contains(e.Path, "[REDACTED:") {
				t.Errorf("%s: staged %v; want masked and not staged", e.Path, e.Staged)
			}
		}
	}
	if n != 3 {
		t.Errorf("%d entries with secret-in-name, want 3", n)
	}
}

// TestPersonalDataReportedNotMasked: by default an internal address and a
// phone number in code are reported and staged as written (an agent
// reading Ipv4Util.java must see its ranges); --pii redact masks them, and
// what was masked is counted in files.json and named in REPO_MAP.md.
func TestPersonalDataReportedNotMasked(t *testing.T) {
	line := "String range = \"A类 10.0.0.1-10.255.255.255\";\n"
	tok := "gh" + "p_" + randFrom(t, alnum, 36)
	src := t.TempDir()
	writeFiles(t, src, map[string]string{"Ipv4Util.java": line, "ci.yml": "token: " + tok + "\n"})
	out := filepath.Join(t.TempDir(), "out")
	res := runFixture(t, src, out, nil)
	if b, _ := os.ReadFile(filepath.Join(out, snapshot.TreeDir, "Ipv4Util.java")); string(b) != line {
		t.Errorf("Ipv4Util.java staged as %q, want it unaltered", b)
	}
	if len(findingsAt(res)["Ipv4Util.java"]) == 0 {
		t.Error("Ipv4Util.java: its addresses are not reported")
	}
	masked := map[string]int{}
	for _, e := range res.Manifest.Files {
		masked[e.Path] = e.Masked
	}
	if masked["Ipv4Util.java"] != 0 || masked["ci.yml"] != 1 {
		t.Errorf("masked counts %v: want the token's file only", masked)
	}
	repoMap, _ := os.ReadFile(filepath.Join(out, snapshot.RepoMapMD))
	if !strings.Contains(string(repoMap), "1 secret is masked") {
		t.Errorf("REPO_MAP.md does not say what was masked:\n%s", repoMap)
	}

	out = filepath.Join(t.TempDir(), "out")
	res = runFixture(t, src, out, func(o *Options) { o.PII = SecretsRedact })
	if b, _ := os.ReadFile(filepath.Join(out, snapshot.TreeDir, "Ipv4Util.java")); strings.Contains(string(b), "10.0.0.1") {
		t.Errorf("--pii redact: Ipv4Util.java staged as %q", b)
	}
	for _, e := range res.Manifest.Files {
		if e.Path == "Ipv4Util.java" && e.Masked == 0 {
			t.Error("--pii redact: Ipv4Util.java's masked count is 0")
		}
	}
}

// TestEveryCopyOfAShortPassword: a password caught where its context gives
// it away (a .properties file) is masked in a README that only mentions it,
// though it looks like a word with a digit.
func TestEveryCopyOfAShortPassword(t *testing.T) {
	pw := randFrom(t, "abcdefghijklmnopqrstuvwxyz", 7) + "1"
	src := t.TempDir()
	writeFiles(t, src, map[string]string{
		"src/main/resources/app.properties": "db.user=admin\ndb.password=" + pw + "\n",
		"README.md":                         "Run it:\n\n    docker run -e ADMIN_PASSWORD=" + pw + " app\n",
	})
	out := filepath.Join(t.TempDir(), "out")
	res := runFixture(t, src, out, nil)
	if len(findingsAt(res)["src/main/resources/app.properties"]) == 0 {
		t.Fatal("app.properties: the password is not caught, so there is no copy to mask")
	}
	grepOut(t, filepath.Join(out, snapshot.TreeDir), map[string]string{"password": pw})
}

// keyBlock is a PGP private key block of about n bytes of random base64
// lines, and its lines.
func keyBlock(t *testing.T, n int) (string, []string) {
	lines := make([]string, 0, n/65)
	for range n / 65 {
		lines = append(lines, randFrom(t, alnum+"+/", 64))
	}
	return "-----BEGIN PGP " + "PRIVATE KEY BLOCK-----\n\n" + strings.Join(lines, "\n") + "\n-----END PGP " + "PRIVATE KEY BLOCK-----\n", lines
}

// TestLargeKeyBlock: a 4 MB private key block (1 MB under -short, 256 KB
// under -race) is one
// finding, masked whole, its lines masked where they are copied, and a
// cancel in the secret stage ends the run within a second (2 s allowed on
// a loaded machine). With the trie the value pass used, a 1.2 MB block took
// 30 s and 2.7 GB.
func TestLargeKeyBlock(t *testing.T) {
	size := 4 << 20
	switch {
	case testkit.Race:
		size = 256 << 10 // the detector multiplies the cost; 4 MB runs in the whole pass
	case testing.Short():
		size = 1 << 20
	}
	block, lines := keyBlock(t, size)
	src := t.TempDir()
	writeFiles(t, src, map[string]string{
		"keys/release.asc": block,
		"docs/keys.md":     "The key begins\n\n    " + lines[0] + "\n    " + lines[1] + "\n\nand ends " + lines[len(lines)-1] + "\n",
	})
	out := filepath.Join(t.TempDir(), "out")
	res := runFixture(t, src, out, func(o *Options) { o.MaxTextBytes = 64 << 20 })
	grepOut(t, filepath.Join(out, snapshot.TreeDir), map[string]string{"line 1": lines[0], "line 2": lines[1], "last line": lines[len(lines)-1]})
	if n := len(findingsAt(res)["keys/release.asc"]); n != 1 {
		t.Errorf("keys/release.asc: %d findings, want the block as one", n)
	}

	for _, after := range []time.Duration{0, 20 * time.Millisecond} {
		ctx, cancel := context.WithCancel(t.Context())
		cancelled := make(chan time.Time, 1)
		hook := func() {
			go func() {
				time.Sleep(after)
				cancelled <- time.Now()
				cancel()
			}()
		}
		_, err := Run(ctx, Options{Root: src, OutDir: filepath.Join(t.TempDir(), "out"), Workers: 2, MaxTextBytes: 64 << 20, Progress: onStage{"secrets", hook}})
		took := time.Since(<-cancelled)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancel %v into the secret stage: err = %v, want context.Canceled", after, err)
		}
		if took > 2*time.Second {
			t.Errorf("cancel %v into the secret stage: the run ended %v later, want under 1 s", after, took)
		}
	}
}
