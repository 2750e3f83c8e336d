package pipeline

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/snapshot"
)

// realTrees are trees nobody here wrote that are byte for byte the same on
// every machine: modules this one builds with, as the module cache holds
// them (go.sum pins their contents). Between them: Go source, Unicode
// tables, text in a dozen legacy encodings (x/text's and chardet's test
// data), files of many binary formats under misleading names (mimetype's
// test data), spreadsheets and documents (excelize's).
var realTrees = []string{
	"golang.org/x/text",
	"github.com/saintfish/chardet",
	"github.com/gabriel-vasile/mimetype",
	"github.com/xuri/excelize/v2",
}

// TestRealTreesGolden publishes each real tree and compares what the run
// decided, file by file, with testdata/real/<tree>.txt (go test -update
// rewrites it; review the diff): a change to any stage shows there as the
// files whose category, encoding, lines, tokens, staged hash or findings
// it moved. Each snapshot must also verify whole. This is what guards the
// per-file loop: it has one code path, and these trees exercise it on
// data it was not written against.
func TestRealTreesGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real trees are run whole without it")
	}
	for _, path := range realTrees {
		name := strings.ReplaceAll(path, "/", "_")
		t.Run(name, func(t *testing.T) {
			t.Parallel() // a tree and OUT of its own: two trees at a time
			src := moduleDir(t, path)
			out := filepath.Join(t.TempDir(), "out")
			res, err := Run(t.Context(), Options{Root: src, OutDir: out, Workers: 2, Version: "test", FingerprintKey: []byte("golden fingerprint key 0123456789")})
			if err != nil {
				t.Fatal(err)
			}
			if drifts, err := snapshot.Verify(t.Context(), out); err != nil || len(drifts) > 0 {
				t.Errorf("verify: %v %v", drifts, err)
			}
			testkit.Golden(t, filepath.Join("testdata", "real", name+".txt"), describeSnapshot(t, out, res.Manifest))
		})
	}
}

// moduleDir is the module cache's copy of the module at path, at the
// version this module requires (go.mod), downloaded through the module
// proxy if missing.
func moduleDir(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", path).Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", path, err)
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download %s: %v %s", path, err, mod.Error)
	}
	return mod.Dir
}

// describeSnapshot is a snapshot as text, one line per files.json entry
// and pruned directory, then the digests of the other files: what a
// golden file can show in a diff.
func describeSnapshot(t *testing.T, out string, m *snapshot.Manifest) []byte {
	t.Helper()
	var b strings.Builder
	staged, tokens := 0, 0
	for _, e := range m.Files {
		if e.Staged {
			staged++
			tokens += e.Tokens
		}
	}
	fmt.Fprintf(&b, "# %d files, %d staged, %d tokens; path, category/reason, encoding, lines, tokens, flags, hash\n", len(m.Files), staged, tokens)
	for _, e := range m.Files {
		flags := ""
		for _, f := range []struct {
			on bool
			c  string
		}{{e.Staged, "S"}, {e.Oversize, "O"}, {e.Test, "T"}, {e.ExtMismatch, "X"}, {e.BOM, "B"}, {e.CRLF, "C"}} {
			if f.on {
				flags += f.c
			}
		}
		if e.Secrets > 0 {
			flags += fmt.Sprintf("s%d", e.Secrets)
		}
		hash := strings.TrimPrefix(e.Hash, "blake3:")
		hash = hash[:min(len(hash), 12)]
		line := fmt.Sprintf("%s\t%s/%s\t%s\t%d\t%d\t%s\t%s", e.Path, e.Category, e.Reason, e.Encoding, e.Lines, e.Tokens, flags, hash)
		if e.DuplicateOf != "" {
			line += "\t= " + e.DuplicateOf
		}
		if e.ExtractedFrom != "" {
			line += "\t< " + e.ExtractedFrom
		}
		b.WriteString(line + "\n")
	}
	for _, p := range m.Pruned {
		fmt.Fprintf(&b, "pruned\t%s\t%s\n", p.Path, p.Reason)
	}
	for _, name := range []string{snapshot.RepoMapMD, snapshot.OversizeJSON, snapshot.SecretsJSON, snapshot.SecretsSARIF, snapshot.InstructionsJSON, snapshot.SearchIndex, snapshot.LinesJSON} {
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := blake3.Sum256(data)
		fmt.Fprintf(&b, "file\t%s\t%x\n", name, sum[:8])
	}
	return []byte(b.String())
}
