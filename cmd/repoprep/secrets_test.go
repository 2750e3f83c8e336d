package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/rules"
)

// TestMain points the user's configuration directory at a temporary one, so the
// fingerprint key file the runs create never lands in the real home directory.
//
// It also points the cache directory at a temporary one (the tokenizer's
// tables, default outputs), and with REPOPREP_TEST_MAIN=1 it is the
// command itself: a test runs this binary as repoprep (runAsCommand).
func TestMain(m *testing.M) {
	if os.Getenv("REPOPREP_TEST_MAIN") == "1" {
		main()
	}
	dir, err := os.MkdirTemp("", "repoprep-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	os.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	os.Unsetenv(keyEnv)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func readFindings(t *testing.T, out string) []secrets.PathFinding {
	t.Helper()
	var doc secrets.FindingsFile
	b, err := os.ReadFile(filepath.Join(out, "secrets.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Findings
}

// TestFailOnKinds: --fail-on-secrets fails on credentials only; --fail-on=pii also on
// personal data; a baseline made from a run makes the next run pass.
func TestFailOnKinds(t *testing.T) {
	token := "ghp_" + randomToken(36)
	piiOnly := smallRepo(t, map[string]string{"hosts.txt": "db at 10.20.30.40\n"})
	leaky := smallRepo(t, map[string]string{"config.env": "GITHUB_TOKEN=" + token + "\n", "hosts.txt": "db at 10.20.30.40\n"})
	logOnly := smallRepo(t, map[string]string{"debug.log": "GITHUB_TOKEN=" + token + "\n", "main.go": "package main\n"})
	marked := smallRepo(t, map[string]string{"test_api.py": "TOKEN = \"" + token + "\"  # " + secrets.AckMarker + "\n"})
	jsonMarked := smallRepo(t, map[string]string{"config.json": `{"token": "` + token + `", "note": "` + secrets.AckMarker + `"}` + "\n"})
	for _, tt := range []struct {
		name string
		args []string
		src  string
		code int
	}{
		{"pii with --fail-on-secrets", []string{"--fail-on-secrets"}, piiOnly, exitOK},
		{"pii with --fail-on=pii", []string{"--fail-on=pii"}, piiOnly, exitSecrets},
		{"credential with --fail-on=credential", []string{"--fail-on", "credential"}, leaky, exitSecrets},
		{"bad kind", []string{"--fail-on", "passwords"}, leaky, exitUsage},
		{"pii off", []string{"--fail-on=pii", "--pii", "off"}, piiOnly, exitOK},
		// A token in a committed log: nothing is staged, the finding fails the run.
		{"credential in a log only", []string{"--fail-on-secrets"}, logOnly, exitSecrets},
		// The tree's own marker counts for nothing; the user's --inline-allow
		// acknowledges the one finding it follows (still masked).
		{"marker without --inline-allow", []string{"--fail-on-secrets"}, marked, exitSecrets},
		{"marker with --inline-allow", []string{"--fail-on-secrets", "--inline-allow"}, marked, exitOK},
		{"marker in a JSON value", []string{"--fail-on-secrets", "--inline-allow"}, jsonMarked, exitSecrets},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Runs in this process, each with its own OUT, reading trees
			// none of them writes: two at a time (LoadKey lets two runs
			// make the fingerprint key at once).
			t.Parallel()
			args := append([]string{"run", "-q", "-o", filepath.Join(t.TempDir(), "o")}, tt.args...)
			if code, _, stderr := runCmd(t, append(args, tt.src)...); code != tt.code {
				t.Errorf("exit %d, want %d: %s", code, tt.code, stderr)
			}
		})
	}

	out := filepath.Join(t.TempDir(), "o")
	if code, _, stderr := runCmd(t, "run", "-q", "--fail-on=pii", "-o", out, leaky); code != exitSecrets {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	base := filepath.Join(t.TempDir(), "baseline.json")
	if code, _, stderr := runCmd(t, "baseline", "-o", base, out); code != exitOK {
		t.Fatalf("baseline: exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(base)
	if strings.Contains(string(b), token) || !strings.Contains(string(b), secrets.BaselineSchema) {
		t.Fatalf("baseline file:\n%s", b)
	}
	out2 := filepath.Join(t.TempDir(), "o")
	if code, _, stderr := runCmd(t, "run", "-q", "--fail-on=pii", "--baseline", base, "-o", out2, leaky); code != exitOK {
		t.Errorf("run with the baseline: exit %d: %s", code, stderr)
	}
	if fs := readFindings(t, out2); len(fs) != 0 {
		t.Errorf("baselined findings reported: %+v", fs)
	}
	staged, _ := os.ReadFile(filepath.Join(out2, "tree", "config.env"))
	if strings.Contains(string(staged), token) {
		t.Error("a baselined token was staged in clear: a baseline must change the report, not the tree")
	}
	if code, _, _ := runCmd(t, "run", "-q", "--baseline", "/nonexistent/b.json", "-o", filepath.Join(t.TempDir(), "o"), leaky); code != exitUsage {
		t.Errorf("missing baseline file: exit %d, want %d", code, exitUsage)
	}
}

// TestFingerprintKeys: two users (two key files, or two CI keys) fingerprint the same
// secret differently; one user's runs agree; the key never lands in OUT.
func TestFingerprintKeys(t *testing.T) {
	src := smallRepo(t, map[string]string{"config.env": "GITHUB_TOKEN=ghp_" + randomToken(36) + "\n"})
	fingerprint := func(t *testing.T, env map[string]string) (string, string) {
		t.Helper()
		for k, v := range env {
			t.Setenv(k, v)
		}
		out := filepath.Join(t.TempDir(), "o")
		if code, _, stderr := runCmd(t, "run", "-q", "-o", out, src); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		fs := readFindings(t, out)
		if len(fs) != 1 {
			t.Fatalf("findings %+v", fs)
		}
		return fs[0].Fingerprint, out
	}
	alice := map[string]string{"XDG_CONFIG_HOME": t.TempDir()}
	bob := map[string]string{"XDG_CONFIG_HOME": t.TempDir()}
	a1, outA := fingerprint(t, alice)
	a2, _ := fingerprint(t, alice)
	b1, _ := fingerprint(t, bob)
	if a1 != a2 {
		t.Errorf("one user's runs disagree: %s, %s", a1, a2)
	}
	if a1 == b1 {
		t.Errorf("two users' keys give the same fingerprint %s", a1)
	}
	key, err := os.ReadFile(filepath.Join(alice["XDG_CONFIG_HOME"], "repoprep", "fingerprint.key"))
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(filepath.Join(alice["XDG_CONFIG_HOME"], "repoprep", "fingerprint.key")); info.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", info.Mode().Perm())
	}
	filepath.WalkDir(outA, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), strings.TrimSpace(string(key))) {
				t.Errorf("%s holds the fingerprint key", p)
			}
		}
		return nil
	})
	ci1, _ := fingerprint(t, map[string]string{keyEnv: "ci-key-" + randomToken(32)})
	ci2, _ := fingerprint(t, map[string]string{keyEnv: "ci-key-" + randomToken(32)})
	if ci1 == ci2 || ci1 == a1 {
		t.Errorf("keys from %s do not key the fingerprint: %s %s %s", keyEnv, ci1, ci2, a1)
	}
}

// TestRulesCommand: `repoprep rules` prints every effective rule as TOML that reads back
// to the same rules, user extensions included.
func TestRulesCommand(t *testing.T) {
	extra := filepath.Join(t.TempDir(), "r.toml")
	os.WriteFile(extra, []byte("[[secrets]]\nid = \"internal-ipv4\"\nallow.regexes = ['^10\\.0\\.0\\.']\n"), 0o644)
	code, stdout, stderr := runCmd(t, "rules", "--rules", extra)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	printed, err := rules.ParseSecretRules([]byte(stdout), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	want, err := rules.Load(extra)
	if err != nil {
		t.Fatal(err)
	}
	if len(printed) != len(want.Secrets) {
		t.Fatalf("%d rules printed, %d effective", len(printed), len(want.Secrets))
	}
	for i := range printed {
		a, _ := json.Marshal(printed[i])
		b, _ := json.Marshal(want.Secrets[i])
		if string(a) != string(b) {
			t.Errorf("rule %d reads back as\n%s\nwant\n%s", i, a, b)
		}
	}
	if !strings.Contains(stdout, `^10\\.0\\.0\\.`) && !strings.Contains(stdout, `^10\.0\.0\.`) {
		t.Error("the user's allow regex is not in the printed rules")
	}
}

// TestFingerprintKeyUnwritable: a user whose configuration directory cannot be made (a
// system user's cron job without a home) gets an error that says how to go on.
func TestFingerprintKeyUnwritable(t *testing.T) {
	src := smallRepo(t, map[string]string{"README.md": "# a tree with no secrets\n"})
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(keyEnv, "")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(file, "config")) // below a file: no mkdir, even as root
	code, _, stderr := runCmd(t, "run", "-q", "-o", filepath.Join(t.TempDir(), "o"), src)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d: %s", code, exitFailed, stderr)
	}
	for _, want := range []string{"fingerprint key", keyEnv, "XDG_CONFIG_HOME"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q: %s", want, stderr)
		}
	}
}
