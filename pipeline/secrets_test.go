package pipeline

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/snapshot"
)

// randFrom returns n random characters of alphabet, from crypto/rand: the
// planted credentials are new on every run and never committed.
func randFrom(t testing.TB, alphabet string, n int) string {
	t.Helper()
	b := make([]byte, 0, n)
	for len(b) < n {
		c := alphabet[randInt(t, len(alphabet))]
		if len(b) > 0 && c == b[len(b)-1] {
			continue // no runs that read as placeholders (xxxx)
		}
		b = append(b, c)
	}
	return string(b)
}

func randInt(t testing.TB, n int) int {
	k, err := rand.Int(rand.Reader, big.NewInt(int64(n)))
	if err != nil {
		t.Fatal(err)
	}
	return int(k.Int64())
}

const (
	upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	alnum       = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

// plantedSecrets makes one credential of each kind the embedded rules
// cover, as the raw value that must never appear in OUT.
func plantedSecrets(t testing.TB) map[string]string {
	jwtPart := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	pemBody := base64.StdEncoding.EncodeToString([]byte(randFrom(t, alnum, 96)))
	return map[string]string{
		"aws":      "AKIA" + randFrom(t, upperDigits, 16),
		"github":   "ghp_" + randFrom(t, alnum, 36),
		"gitlab":   "glpat-" + randFrom(t, alnum, 20),
		"slack":    "xox" + "b-" + randFrom(t, "0123456789", 11) + "-" + randFrom(t, "0123456789", 12) + "-" + randFrom(t, alnum, 24),
		"stripe":   "sk_" + "live_" + randFrom(t, alnum, 24),
		"google":   "AIza" + randFrom(t, alnum, 35),
		"jwt":      jwtPart(`{"alg":"HS256","typ":"JWT"}`) + "." + jwtPart(`{"sub":"`+randFrom(t, alnum, 12)+`"}`) + "." + randFrom(t, alnum, 43),
		"pgpass":   randFrom(t, alnum, 16),
		"password": randFrom(t, alnum, 14),
		"ip":       fmt.Sprintf("10.%d.%d.%d", randInt(t, 256), randInt(t, 256), 1+randInt(t, 254)),
		"mobile":   "138" + randFrom(t, "0123456789", 8),
		"pem":      pemBody,
	}
}

// TestNoSecretReachesOut plants credentials in several file types (one
// file duplicated elsewhere), runs with defaults and greps the whole OUT
// for each raw value.
func TestNoSecretReachesOut(t *testing.T) {
	s := plantedSecrets(t)
	src := t.TempDir()
	files := map[string]string{
		"app/config.py":   fmt.Sprintf("AWS_KEY = %q\nGITHUB = %q\n\nDATABASE_URL = \"postgres://app:%s@db.internal:5432/app\"\n", s["aws"], s["github"], s["pgpass"]),
		".env":            fmt.Sprintf("SLACK_TOKEN=%s\nSTRIPE_KEY=%s\nGITLAB=%s\n", s["slack"], s["stripe"], s["gitlab"]),
		"web/main.go":     fmt.Sprintf("package main\n\nconst mapsKey = %q\nconst server = %q\n", s["google"], s["ip"]),
		"docs/ops.md":     fmt.Sprintf("# Ops\n\nOn call: %s\n\ntoken: %s\n", s["mobile"], s["jwt"]),
		"deploy/db.yaml":  fmt.Sprintf("db:\n  user: app\n  password: %s\n", s["password"]),
		"keys/id_rsa.txt": "-----BEGIN RSA " + "PRIVATE KEY-----\n" + s["pem"] + "\n-----END RSA " + "PRIVATE KEY-----\n",
	}
	files["copy/config.py"] = files["app/config.py"] // a duplicate holds the same findings
	files["keys/old/id_rsa.txt"] = files["keys/id_rsa.txt"]
	writeFiles(t, src, files)
	out := filepath.Join(t.TempDir(), "out")
	res := runFixture(t, src, out, func(o *Options) { o.PII = SecretsRedact }) // personal data too

	grepOut(t, out, s)
	// Every kind was found (recall), and the duplicate has its own findings.
	rules := map[string]bool{}
	perPath := map[string]int{}
	for _, f := range res.Findings {
		rules[f.Rule] = true
		perPath[f.Path]++
	}
	for _, want := range []string{"aws-access-key-id", "github-token", "gitlab-token", "slack-token", "stripe-key",
		"google-api-key", "jwt", "connection-string", "password-assignment", "internal-ipv4", "cn-mobile", "private-key"} {
		if !rules[want] {
			t.Errorf("no finding of rule %s; got %v", want, rules)
		}
	}
	if perPath["copy/config.py"] == 0 || perPath["copy/config.py"] != perPath["app/config.py"] {
		t.Errorf("duplicate has %d findings, canonical %d: want the same", perPath["copy/config.py"], perPath["app/config.py"])
	}
	// Redaction folds the key block to one line; the duplicate reports the
	// copy it is served from, not its own pre-redaction counts.
	entries := map[string]snapshot.Entry{}
	for _, e := range res.Manifest.Files {
		entries[e.Path] = e
	}
	if a, b := entries["keys/id_rsa.txt"], entries["keys/old/id_rsa.txt"]; a.Lines != b.Lines || a.Tokens != b.Tokens || a.Hash != b.Hash || b.DuplicateOf != a.Path {
		t.Errorf("duplicate of a redacted file: %+v vs canonical %+v", b, a)
	}
	staged, _ := os.ReadFile(filepath.Join(out, "tree", "app", "config.py"))
	if !strings.Contains(string(staged), "[REDACTED:aws-access-key-id]") {
		t.Errorf("staged copy not redacted:\n%s", staged)
	}
	// Verify agrees that the redacted snapshot is whole.
	drifts, err := snapshot.Verify(t.Context(), out)
	if err != nil || len(drifts) != 0 {
		t.Errorf("verify after redaction: %v %v", drifts, err)
	}
}

// TestAllowlistedCanonicalDuplicate: a user rule allowlists testdata/. The
// canonical copy of a content lies there, a duplicate elsewhere: the
// duplicate still gets its finding, and the copy it is served from is
// redacted.
func TestAllowlistedCanonicalDuplicate(t *testing.T) {
	token := "mytok_" + randFrom(t, alnum, 24)
	src := t.TempDir()
	writeFiles(t, src, map[string]string{
		"testdata/cfg.txt": "see " + token + " here\n",
		"pkg/sub/cfg.txt":  "see " + token + " here\n",
	})
	rulesFile := filepath.Join(t.TempDir(), "rules.toml")
	writeFiles(t, filepath.Dir(rulesFile), map[string]string{"rules.toml": `
[[secrets]]
id = "my-token"
regex = '\b(mytok_[A-Za-z0-9]{24})\b'
keywords = ["mytok_"]
allow.paths = ['(^|/)testdata/']
`})
	out := filepath.Join(t.TempDir(), "out")
	res := runFixture(t, src, out, func(o *Options) { o.RulesFile = rulesFile })
	got := map[string]int{}
	for _, f := range res.Findings {
		got[f.Path]++
	}
	if got["pkg/sub/cfg.txt"] != 1 || got["testdata/cfg.txt"] != 0 {
		t.Errorf("findings per path = %v, want only pkg/sub/cfg.txt", got)
	}
	b, err := os.ReadFile(filepath.Join(out, "tree", "testdata", "cfg.txt"))
	if err != nil || bytes.Contains(b, []byte(token)) {
		t.Errorf("the copy pkg/sub/cfg.txt is served from still holds the token (%v)", err)
	}
}

func TestSecretModes(t *testing.T) {
	token := "ghp_" + randFrom(t, alnum, 36)
	src := t.TempDir()
	writeFiles(t, src, map[string]string{"a.env": "TOKEN=" + token + "\n", "b.env": "TOKEN=" + token + "\n", "clean.go": "package c\n"})
	tests := []struct {
		mode      string
		staged    bool   // a.env stays in tree/
		hasSecret bool   // the staged copy still holds the token
		reason    string // a.env's reason
	}{
		{SecretsRedact, true, false, ""},
		{SecretsReport, true, true, ""},
		{SecretsExclude, false, false, "secret"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			res := runFixture(t, src, out, func(o *Options) { o.Secrets = tt.mode })
			b, err := os.ReadFile(filepath.Join(out, "tree", "a.env"))
			if (err == nil) != tt.staged {
				t.Fatalf("a.env staged = %v, want %v", err == nil, tt.staged)
			}
			if bytes.Contains(b, []byte(token)) != tt.hasSecret {
				t.Errorf("staged copy holds the token = %v, want %v", !tt.hasSecret, tt.hasSecret)
			}
			for _, e := range res.Manifest.Files {
				if e.Path == "a.env" && (e.Reason != tt.reason || e.Secrets != 1) {
					t.Errorf("a.env = reason %q secrets %d, want %q and 1", e.Reason, e.Secrets, tt.reason)
				}
				if e.Path == "b.env" && tt.mode == SecretsExclude && (e.DuplicateOf != "" || e.Reason != "secret") {
					t.Errorf("duplicate of an excluded file = %+v, want reason secret and no duplicate_of", e)
				}
			}
			if drifts, err := snapshot.Verify(t.Context(), out); err != nil || len(drifts) != 0 {
				t.Errorf("verify: %v %v", drifts, err)
			}
			sarif, err := os.ReadFile(filepath.Join(out, "secrets.sarif"))
			if err != nil || !bytes.Contains(sarif, []byte(`"2.1.0"`)) || bytes.Contains(sarif, []byte(token)) {
				t.Errorf("secrets.sarif missing, not 2.1.0, or holding the token: %v", err)
			}
		})
	}
}

// TestDedupAcrossEncodings: files that differ only in encoding or line
// endings are one content after normalization.
func TestDedupAcrossEncodings(t *testing.T) {
	src := fixtureTree(t)
	writeFiles(t, src, map[string]string{
		"zz/guide-utf8.txt":  "这是一个用于测试的中文文档。\r\n编码转换应当准确无误。\r\n",
		"zz/same-size-a.txt": "aaaa\n", "zz/same-size-b.txt": "bbbb\n",
	})
	res := runFixture(t, src, filepath.Join(t.TempDir(), "out"), nil)
	byPath := map[string]snapshot.Entry{}
	for _, e := range res.Manifest.Files {
		byPath[e.Path] = e
	}
	if got := byPath["zz/guide-utf8.txt"].DuplicateOf; got != "docs/guide-gbk.txt" {
		t.Errorf("UTF-8 CRLF twin of a GBK file: duplicate_of = %q, want docs/guide-gbk.txt", got)
	}
	if byPath["zz/same-size-a.txt"].DuplicateOf != "" || byPath["zz/same-size-b.txt"].DuplicateOf != "" {
		t.Error("equal-size different files were merged")
	}
}

func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	testkit.WriteTree(t, root, files)
}
