package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplain: explain names the rule behind each verdict, the same one a
// run applies, and exits 1 for a path that is not there.
func TestExplain(t *testing.T) {
	dir := smallRepo(t, map[string]string{
		".repoprep.toml":                 "[[override]]\npaths = [\"db/*.sql\"]\ncategory = \"text\"\n",
		"go.mod":                         "module example.com/demo\n",
		"go.sum":                         "example.com/x v1.0.0 h1:abc=\n",
		"vendor/modules.txt":             "# example.com/x v1.0.0\n",
		"vendor/example.com/x/x.go":      "package x\n",
		"pkg/env/env.go":                 "package env\n",
		"pkg/env/env_test.go":            "package env\n",
		"pkg/env/garbled.c":              "int x; /* \x81\xfe\xfe\x81\x8f\xa0\xfe\xff\xfe\x80\x81 */\n",
		"node_modules/left-pad/index.js": "module.exports = 1;\n",
		"db/schema.sql":                  "CREATE TABLE t (id int);\n",
	})
	tests := []struct {
		path string
		want []string
	}{
		{"pkg/env/env.go", []string{"category:  source", "language:  Go", "decided:   language: by extension", "test:      no", "text:      staged, utf-8, 1 lines"}},
		{"pkg/env/garbled.c", []string{"category:  source/undecodable", "decided:   decode: no charset reads it", "triage said source", "text:      not staged"}},
		{"pkg/env/env_test.go", []string{"test:      yes, test file name: *_test.go (Go)"}},
		{"vendor/example.com/x/x.go", []string{"category:  junk/vendored", "vendor/: vendor/ (Go modules, beside go.mod, holding modules.txt)"}},
		{"go.sum", []string{"junk/lockfile", "junk name: go.sum"}},
		{"node_modules/left-pad/index.js", []string{"not walked: node_modules/ is pruned (excluded-dir)", "exclude_dirs: node_modules"}},
		{"db/schema.sql", []string{"category:  text", "path override: db/*.sql (.repoprep.toml override)", "rules:     defaults, then .repoprep.toml"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			code, out, errOut := runCmd(t, "explain", "--src", dir, tt.path)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("explain %s lacks %q:\n%s", tt.path, w, out)
				}
			}
		})
	}
	code, _, errOut := runCmd(t, "explain", "--src", dir, "nope.go", "pkg/env/env.go")
	if code != exitFailed || !strings.Contains(errOut, "nope.go: not found") {
		t.Errorf("missing path: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runCmd(t, "explain", "--src", dir, "../etc/passwd"); code != exitUsage || !strings.Contains(errOut, "inside") {
		t.Errorf("path outside SRC: exit %d, %q", code, errOut)
	}
	if code, _, _ := runCmd(t, "explain"); code != exitUsage {
		t.Errorf("no path: exit %d, want %d", code, exitUsage)
	}
	code, out, _ := runCmd(t, "explain", "--json", "--src", dir, filepath.Join(dir, "go.sum"))
	var xs []map[string]any
	if err := json.Unmarshal([]byte(out), &xs); code != exitOK || err != nil || len(xs) != 1 || xs[0]["reason"] != "lockfile" || xs[0]["path"] != "go.sum" {
		t.Errorf("--json with an absolute path: exit %d, %v, %s", code, err, out)
	}
}
