package pipeline

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/snapshot"
)

// grepOut fails the test for every file under out holding one of the values.
func grepOut(t *testing.T, out string, values map[string]string) {
	t.Helper()
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for what, v := range values {
			if bytes.Contains(b, []byte(v)) {
				t.Errorf("%s: %s reached OUT", strings.TrimPrefix(p, out), what)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestEveryCopyMasked: a value caught by a rule in one file is masked wherever else it
// occurs, with no context a rule could see (a bare Bearer value in a test, a TOTP seed
// in a fixture, a key body in a JSON string), and each occurrence is a finding.
func TestEveryCopyMasked(t *testing.T) {
	token := randFrom(t, alnum, 40)
	seed := randFrom(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 32)
	body := []string{randFrom(t, alnum+"+/", 64), randFrom(t, alnum+"+/", 64)}
	pem := "-----BEGIN RSA " + "PRIVATE KEY-----\n" + strings.Join(body, "\n") + "\n-----END RSA " + "PRIVATE KEY-----\n"
	src := t.TempDir()
	writeFiles(t, src, map[string]string{
		"deploy/.env":          "API_TOKEN=" + token + "\nTOTP_SECRET=" + seed + "\n",
		"tests/test_client.py": "def test_call(client):\n    client.get('/v1', headers=HEADERS, token='''" + token + "''')\n",
		"fixtures/otp.txt":     "seed " + seed + "\n",
		"keys/id_rsa":          pem,
		"config/app.json":      `{"ssh": "` + strings.Join(body, `\n`) + `"}` + "\n",
	})
	out := filepath.Join(t.TempDir(), "out")
	res := runFixture(t, src, out, nil)
	grepOut(t, out, map[string]string{"token": token, "seed": seed, "key line 1": body[0], "key line 2": body[1]})
	perPath := map[string]int{}
	for _, f := range res.Findings {
		perPath[f.Path]++
	}
	for _, p := range []string{"tests/test_client.py", "fixtures/otp.txt", "config/app.json"} {
		if perPath[p] == 0 {
			t.Errorf("%s: its copy of a caught value is not a finding (%v)", p, perPath)
		}
	}
	if drifts, err := snapshot.Verify(t.Context(), out); err != nil || len(drifts) != 0 {
		t.Errorf("verify: %v %v", drifts, err)
	}
}

// TestRedactionItems: every secret on a line, overlaps masked as their union, what the
// rule matched and nothing else, YAML values read as YAML, a 200 KiB PGP block (64 KiB
// under -short: the value pass over a caught block costs 1.6 GB under -race at the full
// size), base64 PEM and JWT.
func TestRedactionItems(t *testing.T) {
	t.Parallel() // changes no package state: see TestMain
	pgpBytes := 200 << 10
	if testing.Short() {
		pgpBytes = 64 << 10
	}
	tok1, tok2 := randFrom(t, alnum, 12)+"7"+randFrom(t, alnum, 12), randFrom(t, alnum, 14)+"3"+randFrom(t, alnum, 14)
	pass, pass2 := randFrom(t, alnum, 6)+"4"+randFrom(t, alnum, 5), randFrom(t, alnum, 6)+"9"+randFrom(t, alnum, 6)
	mobile := "138" + randFrom(t, "0123456789", 8)
	psPass := randFrom(t, alnum, 5) + "1" + randFrom(t, alnum, 4)
	yamlPass := randFrom(t, alnum, 8) + "#" + randFrom(t, "0123456789", 4)
	var pgp strings.Builder
	pgp.WriteString("-----BEGIN PGP PRIVATE KEY" + " BLOCK-----\n\n")
	var pgpLines []string
	for pgp.Len() < pgpBytes {
		l := randFrom(t, alnum+"+/", 64)
		pgpLines = append(pgpLines, l)
		pgp.WriteString(l + "\n")
	}
	pgp.WriteString("=" + randFrom(t, alnum, 4) + "\n-----END PGP PRIVATE KEY" + " BLOCK-----\n")
	pemBody := randFrom(t, alnum+"+/", 64)
	pemB64 := base64.StdEncoding.EncodeToString([]byte("-----BEGIN EC " + "PRIVATE KEY-----\n" + pemBody + "\n-----END EC " + "PRIVATE KEY-----\n"))
	jwt := "eyJ" + randFrom(t, alnum, 20) + ".eyJ" + randFrom(t, alnum, 40) + "." + randFrom(t, alnum, 43)
	jwtB64 := base64.StdEncoding.EncodeToString([]byte(jwt))
	src := t.TempDir()
	writeFiles(t, src, map[string]string{
		"oauth.txt":     "callback?oauth_token=" + tok1 + "&oauth_token_secret=" + tok2 + "&x=1\n",
		"login.json":    `{"user":"svc","pass":"` + pass + `","password":"` + pass2 + `"}` + "\n",
		"overlap.py":    `password = "wang.` + mobile + `"` + "\n",
		"deploy.ps1":    "$password = ConvertTo-SecureString '" + psPass + "' -AsPlainText -Force\n",
		"db.yaml":       "db:\n  password: " + yamlPass + "\n",
		"key.asc":       pgp.String(),
		"k8s/tls.yaml":  "data:\n  tls.key: " + pemB64 + "\n",
		"ci/token.yaml": "session: " + jwtB64 + "\n",
	})
	out := filepath.Join(t.TempDir(), "out")
	res := runFixture(t, src, out, nil)
	secrets := map[string]string{"oauth_token": tok1, "oauth_token_secret": tok2, "pass": pass, "password": pass2,
		"wang.": "wang." + mobile[:3], "powershell password": psPass, "yaml password": yamlPass,
		"pem in base64": pemB64[:40], "jwt in base64": jwtB64[:40]}
	for i := 0; i < len(pgpLines); i += 97 {
		secrets["pgp line"] = pgpLines[i]
	}
	grepOut(t, out, secrets)
	tree := func(p string) string { b, _ := os.ReadFile(filepath.Join(out, "tree", p)); return string(b) }
	if got := tree("deploy.ps1"); !strings.Contains(got, "ConvertTo-SecureString '[REDACTED:") {
		t.Errorf("deploy.ps1 staged as %q: the cmdlet must stay, the password go", got)
	}
	if got := tree("overlap.py"); got != "password = \"[REDACTED:password-assignment]\"\n" {
		t.Errorf("overlap.py staged as %q, want the whole value masked under the password rule", got)
	}
	if got := tree("key.asc"); got != "[REDACTED:private-key]\n" {
		t.Errorf("key.asc staged as %d bytes, want the block as one marker", len(got))
	}
	byPath := map[string][]string{}
	for _, f := range res.Findings {
		byPath[f.Path] = append(byPath[f.Path], f.Rule)
	}
	for p, want := range map[string]string{"k8s/tls.yaml": "private-key-base64", "ci/token.yaml": "jwt-base64", "deploy.ps1": "powershell-securestring"} {
		if !strings.Contains(strings.Join(byPath[p], " "), want) {
			t.Errorf("%s: findings %v, want %s", p, byPath[p], want)
		}
	}
	if len(byPath["oauth.txt"]) != 2 || len(byPath["login.json"]) != 2 {
		t.Errorf("two secrets on one line: oauth.txt %v, login.json %v", byPath["oauth.txt"], byPath["login.json"])
	}
}

// TestSecretInName: a credential in a file name or a symlink's target is masked in
// files.json and secrets.json, the file stays out of tree/ with reason secret-in-name,
// and no copy of the value (in another file's content either) reaches OUT.
func TestSecretInName(t *testing.T) {
	akid := "AKIA" + randFrom(t, upperDigits, 16)
	gh := "ghp_" + randFrom(t, alnum, 36)
	src := t.TempDir()
	writeFiles(t, src, map[string]string{
		"backups/backup-" + akid + ".txt": "nothing secret inside\n",
		"notes.md":                        "the old key was " + akid + " (rotated)\n",
		"ok.go":                           "package ok\n",
	})
	if err := os.Symlink("https://deploy:"+gh+"@git.internal/r.git", filepath.Join(src, "remote")); err != nil {
		t.Skip("symlinks:", err)
	}
	out := filepath.Join(t.TempDir(), "out")
	res := runFixture(t, src, out, nil)
	grepOut(t, out, map[string]string{"key id": akid, "github token": gh})
	var named, linked *snapshot.Entry
	for i, e := range res.Manifest.Files {
		switch {
		case strings.HasPrefix(e.Path, "backups/backup-"):
			named = &res.Manifest.Files[i]
		case e.Path == "remote":
			linked = &res.Manifest.Files[i]
		}
	}
	if named == nil || named.Staged || named.Reason != "secret-in-name" || !strings.Contains(named.Path, "[REDACTED:aws-access-key-id:") || named.Secrets != 1 {
		t.Errorf("file with a key in its name: %+v", named)
	}
	if linked == nil || linked.Reason != "secret-in-name" || !strings.Contains(linked.LinkTarget, "[REDACTED:") || linked.Secrets != 1 {
		t.Errorf("symlink with a token in its target: %+v", linked)
	}
	if _, err := os.Stat(filepath.Join(out, "tree", "backups")); err == nil {
		entries, _ := os.ReadDir(filepath.Join(out, "tree", "backups"))
		if len(entries) > 0 {
			t.Errorf("tree/backups holds %v", entries)
		}
	}
	var doc secrets.FindingsFile
	b, _ := os.ReadFile(filepath.Join(out, "secrets.json"))
	json.Unmarshal(b, &doc)
	lines := map[string]int{}
	for _, f := range doc.Findings {
		lines[f.Path] = f.Line
	}
	if l, ok := lines[named.Path]; !ok || l != 0 {
		t.Errorf("secrets.json has no line-0 finding for the masked name: %v", lines)
	}
	if _, ok := lines["notes.md"]; !ok {
		t.Errorf("the key's copy in notes.md is not a finding: %v", lines)
	}
	if drifts, err := snapshot.Verify(t.Context(), out); err != nil || len(drifts) != 0 {
		t.Errorf("verify: %v %v", drifts, err)
	}
}
