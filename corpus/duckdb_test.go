package corpus

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/testkit"
)

// duckDir holds the script and the package.json and package-lock.json
// that pin DuckDB's Node package, which ships DuckDB's binary.
var duckDir = filepath.Join("testdata", "duckdb")

// TestDuckDBReadsTable reads the Parquet table with DuckDB, a reader that
// is neither repoprep nor the Parquet library it writes with: every row
// of every part, each field checked against the snapshots' files.json and
// staged texts (checkRows); SELECT count(*) ... WHERE duplicate_of IS NOT
// NULL against the duplicates found by hashing the staged texts here; the
// column types; and file metadata that holds nothing but repoprep's
// name and version (no time, no host). The table is cut small, so there
// are several parts and several row groups.
//
// The first run installs the package with npm ci into a cache directory
// (a few seconds from npm's cache); without node or npm it is skipped.
func TestDuckDBReadsTable(t *testing.T) {
	if testkit.Race {
		t.Skip("runs node as a child; the pass without -race runs it")
	}
	node, npm := testkit.Node(t, "DuckDB's reading of the table is not checked")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	modules := testkit.NPMCI(t, ctx, npm, duckDir)

	defer func(rows int, group, part int64) { rowGroupRows, rowGroupBytes, partBytes = rows, group, part }(rowGroupRows, rowGroupBytes, partBytes)
	rowGroupRows, rowGroupBytes, partBytes = 3, 1<<20, 4<<10

	list := fixture(t)
	dir := t.TempDir()
	mustRun(t, testOptions(list, dir))
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Parts) < 2 {
		t.Fatalf("%d parts; the test wants several", len(m.Parts))
	}
	var files []string
	for _, p := range m.Parts {
		files = append(files, filepath.Join(dir, CorpusDir, p.Name))
	}
	// Node resolves the package from the script's directory: the script
	// runs from beside node_modules, a copy per test.
	script := testkit.Script(t, modules, filepath.Join(duckDir, "read.mjs"))
	cmd := exec.CommandContext(ctx, node, append([]string{script}, files...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node read.mjs: %v\n%s", err, stderr.Bytes())
	}
	var got struct {
		Files []struct {
			File      string     `json:"file"`
			Rows      []Row      `json:"rows"`
			CreatedBy []string   `json:"created_by"`
			KV        [][]string `json:"kv"`
			RowGroups int        `json:"row_groups"`
		} `json:"files"`
		Columns        [][]string `json:"columns"`
		Duplicates     int        `json:"duplicates"`
		NearDuplicates int        `json:"near_duplicates"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("read.mjs printed %q: %v", stdout.Bytes(), err)
	}
	var rows []Row
	for i, f := range got.Files {
		rows = append(rows, f.Rows...)
		if len(f.Rows) != m.Parts[i].Rows {
			t.Errorf("%s: DuckDB reads %d rows, the manifest says %d", f.File, len(f.Rows), m.Parts[i].Rows)
		}
		if want := (len(f.Rows) + rowGroupRows - 1) / rowGroupRows; f.RowGroups != want {
			t.Errorf("%s: %d row groups, want %d (%d rows, %d a group)", f.File, f.RowGroups, want, len(f.Rows), rowGroupRows)
		}
		if len(f.CreatedBy) != 1 || f.CreatedBy[0] != "repoprep version test" || len(f.KV) != 0 {
			t.Errorf("%s: created_by %q, key-value metadata %q: want repoprep's version alone", f.File, f.CreatedBy, f.KV)
		}
	}
	checkRows(t, dir, list, rows)

	// The duplicates, found by hashing the staged texts here.
	seen := map[string]bool{}
	dups := 0
	for _, e := range list {
		staged := filepath.Join(repoDir(dir, e.Name), "tree")
		filepath.WalkDir(staged, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil || len(data) == 0 {
				return err
			}
			sum := blake3.Sum256(data)
			if h := hex.EncodeToString(sum[:]); seen[h] {
				dups++
			} else {
				seen[h] = true
			}
			return nil
		})
	}
	if got.Duplicates != dups || dups == 0 {
		t.Errorf("DuckDB counts %d rows WHERE duplicate_of IS NOT NULL; hashing the staged texts finds %d duplicates", got.Duplicates, dups)
	}
	if got.NearDuplicates != m.Totals.NearDuplicates || got.NearDuplicates == 0 {
		t.Errorf("DuckDB counts %d near duplicates, the manifest %d", got.NearDuplicates, m.Totals.NearDuplicates)
	}
	want := "repo VARCHAR,path VARCHAR,language VARCHAR,category VARCHAR,test BOOLEAN,encoding VARCHAR,bytes BIGINT,tokens BIGINT," +
		"hash VARCHAR,content VARCHAR,duplicate_of VARCHAR,near_duplicate_of VARCHAR,license VARCHAR"
	var cols []string
	for _, c := range got.Columns {
		cols = append(cols, c[0]+" "+c[1])
	}
	if strings.Join(cols, ",") != want {
		t.Errorf("columns %s\nwant    %s", strings.Join(cols, ","), want)
	}
}
