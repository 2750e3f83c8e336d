package corpus

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/pipeline"
	"github.com/repoprep/repoprep/snapshot"
)

// mitText is the MIT licence as repositories ship it.
const mitText = `MIT License

Copyright (c) 2024 Example Authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
`

// unlicenseText is the Unlicense's opening, enough for licensecheck.
const unlicenseText = `This is free and unencumbered software released into the public domain.

Anyone is free to copy, modify, publish, use, compile, sell, or
distribute this software, either in source code form or as a compiled
binary, for any purpose, commercial or non-commercial, and by any
means.

In jurisdictions that recognize copyright laws, the author or authors
of this software dedicate any and all copyright interest in the
software to the public domain. We make this dedication for the benefit
of the public at large and to the detriment of our heirs and
successors. We intend this dedication to be an overt act of
relinquishment in perpetuity of all present and future rights to this
software under copyright law.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND,
EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.
IN NO EVENT SHALL THE AUTHORS BE LIABLE FOR ANY CLAIM, DAMAGES OR
OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE,
ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR
OTHER DEALINGS IN THE SOFTWARE.

For more information, please refer to <https://unlicense.org>
`

// longGo is a Go file long enough for near-duplicate detection; word
// changes one identifier of it.
func longGo(word string) string {
	var b strings.Builder
	b.WriteString("package server\n\nimport \"fmt\"\n\n")
	for i := range 30 {
		fmt.Fprintf(&b, "// handler%d answers request number %d with its own greeting text.\nfunc handler%d(name string) string { return fmt.Sprintf(\"hello %%s from %d\", name) }\n\n", i, i, i, i)
	}
	fmt.Fprintf(&b, "var %s = handler0\n", word)
	return b.String()
}

// shared is what the tests share, built once: the fixture's trees and a
// whole corpus of them in each format (each build runs four pipelines).
var shared struct {
	root                           string // TestMain's directory
	list                           sync.Once
	entries                        []Entry
	whole, jsonl, sharded          sync.Once
	wholeDir, jsonlDir, shardedDir string
	wholeErr, jsonlErr             error
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "repoprep-corpus-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	shared.root = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fixture is the LIST of four source trees and a missing one: alpha
// (MIT), beta (a copy of alpha's util.go, a near copy of its server.go,
// no licence), "gone", and gamma (MIT and the Unlicense: null). The
// trees are shared: tests must not change them.
func fixture(t *testing.T) []Entry {
	t.Helper()
	shared.list.Do(func() { shared.entries = writeFixture(t, filepath.Join(shared.root, "src")) })
	return slices.Clone(shared.entries)
}

// wholeCorpus is the fixture's corpus in format, shared: Parquet from
// one process, JSON Lines merged from a copy of sharedSharded's shards
// (the snapshots are built once more only for Parquet).
func wholeCorpus(t *testing.T, format string) string {
	t.Helper()
	list := fixture(t)
	if format == FormatJSONL {
		shards := sharedSharded(t)
		shared.jsonl.Do(func() {
			shared.jsonlDir = filepath.Join(shared.root, "merged-jsonl")
			if shared.jsonlErr = testkit.CopyTree(shards, shared.jsonlDir); shared.jsonlErr == nil {
				_, shared.jsonlErr = Merge(context.Background(), MergeOptions{Dir: shared.jsonlDir, Format: FormatJSONL})
			}
		})
		if shared.jsonlErr != nil {
			t.Fatal(shared.jsonlErr)
		}
		return shared.jsonlDir
	}
	shared.whole.Do(func() {
		shared.wholeDir = filepath.Join(shared.root, "whole")
		_, shared.wholeErr = Run(context.Background(), testOptions(list, shared.wholeDir))
	})
	if shared.wholeErr != nil {
		t.Fatal(shared.wholeErr)
	}
	return shared.wholeDir
}

// sharedSharded is the fixture run as two shards and merged, shared.
func sharedSharded(t *testing.T) string {
	t.Helper()
	shared.sharded.Do(func() { shared.shardedDir = shardedCorpus(t, fixture(t), 2, filepath.Join(shared.root, "sharded-2")) })
	if shared.shardedDir == "" {
		t.Fatal("the shared two-shard corpus failed in another test")
	}
	return shared.shardedDir
}

func writeFixture(t *testing.T, root string) (list []Entry) {
	t.Helper()
	util := "package util\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n"
	testkit.WriteTree(t, filepath.Join(root, "alpha"), map[string]string{
		"LICENSE":            mitText,
		"server.go":          longGo("first"),
		"util/util.go":       util,
		"pkg/__init__.py":    "",
		"README.md":          "# alpha\n\nA server.\n",
		"docs/guide.md":      "# Guide\n\nRead the code.\n",
		"internal/x_test.go": "package internal\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n",
	})
	testkit.WriteTree(t, filepath.Join(root, "beta"), map[string]string{
		"vendor_copy/util.go": util,
		"srv/server.go":       longGo("second"),
		"pkg/__init__.py":     "",
		"main.py":             "print('beta')\n",
	})
	testkit.WriteTree(t, filepath.Join(root, "gamma"), map[string]string{
		"LICENSE-MIT": mitText,
		"UNLICENSE":   unlicenseText,
		"lib.rs":      "pub fn gamma() -> u32 { 3 }\n",
	})
	return []Entry{
		{"alpha", filepath.Join(root, "alpha")},
		{"beta", filepath.Join(root, "beta")},
		{"gone", filepath.Join(root, "gone")},
		{"gamma", filepath.Join(root, "gamma")},
	}
}

// testOptions are a corpus's options with a fixed fingerprint key, so
// every run's secrets.json is the same.
func testOptions(list []Entry, dir string) Options {
	return Options{
		List: list, Dir: dir, Workers: 2,
		Run: pipeline.Options{FingerprintKey: []byte("corpus-test-key-0123456789"), Version: "test", Workers: 1},
	}
}

func mustRun(t *testing.T, opts Options) *Result {
	t.Helper()
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRunCorpus: every repository becomes a snapshot under repos/, the
// missing one is recorded by name with its error while the others finish,
// and the manifest counts the rows, the duplicates and the licences.
func TestRunCorpus(t *testing.T) {
	dir := wholeCorpus(t, FormatParquet)
	for _, name := range []string{"alpha", "beta", "gamma"} {
		drifts, err := snapshot.Verify(context.Background(), repoDir(dir, name))
		if err != nil || len(drifts) > 0 {
			t.Errorf("repos/%s does not verify: %v %v", name, err, drifts)
		}
	}
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Failures) != 1 || m.Failures[0].Name != "gone" || !strings.Contains(m.Failures[0].Error, "does not exist") {
		t.Errorf("failures %+v", m.Failures)
	}
	mit := "MIT"
	wantLicense := map[string]*string{"alpha": &mit, "beta": nil, "gamma": nil}
	for _, r := range m.Repos {
		if got, want := r.License, wantLicense[r.Name]; (got == nil) != (want == nil) || got != nil && *got != *want {
			t.Errorf("%s: license %v, want %v", r.Name, deref(got), deref(want))
		}
	}
	if m.Totals.Repos != 3 || m.Totals.Duplicates != 2 || m.Totals.NearDuplicates != 1 {
		t.Errorf("totals %+v: want 3 repositories, 2 duplicates (util.go, LICENSE-MIT), 1 near duplicate (server.go)", m.Totals)
	}
	if len(m.Parts) != 1 || m.Parts[0].Name != "part-00000.parquet" || m.Parts[0].Rows != m.Totals.Files {
		t.Errorf("parts %+v", m.Parts)
	}
}

// rowString shows a row but its near-duplicate mark (checked on its own)
// with its content's length and hash instead of the content.
func rowString(r Row) string {
	sum := blake3.Sum256([]byte(r.Content))
	return fmt.Sprintf("%s %s lang=%q cat=%s test=%v enc=%s bytes=%d tokens=%d hash=%s content=%d:%x dup=%s license=%s",
		r.Repo, r.Path, r.Language, r.Category, r.Test, r.Encoding, r.Bytes, r.Tokens, r.Hash, len(r.Content), sum[:8], deref(r.DuplicateOf), deref(r.License))
}

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// TestJSONLRows: --format jsonl writes the rows one may check field by
// field against each snapshot's files.json and staged texts; duplicates
// found by hashing the texts independently are the rows marked.
func TestJSONLRows(t *testing.T) {
	list := fixture(t)
	dir := wholeCorpus(t, FormatJSONL)
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	rows := readJSONL(t, filepath.Join(dir, CorpusDir), m)
	checkRows(t, dir, list, rows)
	near := 0
	for _, r := range rows {
		if r.NearDuplicateOf != nil {
			near++
			if r.Repo != "beta" || r.Path != "srv/server.go" || *r.NearDuplicateOf != "alpha/server.go" {
				t.Errorf("near duplicate %s/%s of %s: want beta/srv/server.go of alpha/server.go", r.Repo, r.Path, *r.NearDuplicateOf)
			}
		}
	}
	if near != 1 {
		t.Errorf("%d near duplicates, want 1", near)
	}
}

// readJSONL decodes every part the manifest lists.
func readJSONL(t *testing.T, dir string, m *Manifest) []Row {
	t.Helper()
	var rows []Row
	for _, p := range m.Parts {
		data, err := os.ReadFile(filepath.Join(dir, p.Name))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := zstd.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(zr)
		sc.Buffer(nil, 64<<20)
		n := 0
		for sc.Scan() {
			dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
			dec.DisallowUnknownFields()
			var r Row
			if err := dec.Decode(&r); err != nil {
				t.Fatalf("%s line %d: %v", p.Name, n+1, err)
			}
			rows = append(rows, r)
			n++
		}
		zr.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		if n != p.Rows {
			t.Errorf("%s: %d rows, the manifest says %d", p.Name, n, p.Rows)
		}
	}
	return rows
}

// checkRows checks the table against the snapshots, independently of how
// it was written: one row per staged file, in LIST then path order, each
// field as files.json and tree/ say, duplicate_of the first earlier row
// with the same text, license the repository's.
func checkRows(t *testing.T, dir string, list []Entry, rows []Row) {
	t.Helper()
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	licenses := map[string]*string{}
	for _, r := range m.Repos {
		licenses[r.Name] = r.License
	}
	first := map[string]string{}
	k := 0
	for _, e := range list {
		snapDir := repoDir(dir, e.Name)
		fm, err := snapshot.ReadManifest(snapDir)
		if errors.Is(err, snapshot.ErrNotSnapshot) {
			continue // failed
		} else if err != nil {
			t.Fatal(err)
		}
		var staged []snapshot.Entry
		for _, f := range fm.Files {
			if f.Staged {
				staged = append(staged, f)
			}
		}
		slices.SortFunc(staged, func(a, b snapshot.Entry) int { return strings.Compare(a.Path, b.Path) })
		for _, f := range staged {
			if k >= len(rows) {
				t.Fatalf("%d rows; %s/%s has none", len(rows), e.Name, f.Path)
			}
			r := rows[k]
			k++
			text, err := os.ReadFile(filepath.Join(snapDir, snapshot.TreeDir, filepath.FromSlash(f.Path)))
			if err != nil {
				t.Fatal(err)
			}
			sum := blake3.Sum256(text)
			hash := hex.EncodeToString(sum[:])
			want := Row{
				Repo: e.Name, Path: f.Path, Language: f.Language, Category: f.Category, Test: f.Test, Encoding: f.Encoding,
				Bytes: int64(len(text)), Tokens: int64(f.Tokens), Hash: hash, Content: string(text), License: licenses[e.Name],
			}
			if c, ok := first[hash]; ok && len(text) > 0 {
				want.DuplicateOf = &c
			} else if len(text) > 0 {
				first[hash] = e.Name + "/" + f.Path
			}
			if "blake3:"+hash != f.Hash {
				t.Errorf("%s/%s: tree/ hashes to %s, files.json says %s", e.Name, f.Path, hash, f.Hash)
			}
			if g, w := rowString(r), rowString(want); g != w {
				t.Errorf("row %d:\n got %s\nwant %s", k-1, g, w)
			}
		}
	}
	if k != len(rows) {
		t.Errorf("%d rows, the snapshots stage %d files", len(rows), k)
	}
}

// TestShardsMerge: two shards (and three, without -short) merged give
// the corpus directory one process gives, byte for byte, and the same
// snapshots; a rerun of a shard refreshes its snapshots rather than
// rebuilding them; a failing repository is recorded by its shard and
// named by the merge.
func TestShardsMerge(t *testing.T) {
	list := fixture(t)
	whole := wholeCorpus(t, FormatParquet)
	ns := []int{2, 3}
	if testing.Short() {
		ns = ns[:1]
	}
	for _, n := range ns {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dir := sharedSharded(t)
			if n != 2 {
				dir = shardedCorpus(t, list, n, t.TempDir())
			}
			sameTree(t, filepath.Join(whole, CorpusDir), filepath.Join(dir, CorpusDir), nil)
			for _, e := range list {
				sameTree(t, repoDir(whole, e.Name), repoDir(dir, e.Name), snapshot.Volatile)
			}
			// Resume: the shard's snapshots are there, and a rerun
			// refreshes them: it reuses the previous snapshot, or keeps
			// it as it stands.
			before, err := snapshot.StampAt(repoDir(dir, "alpha"))
			if err != nil {
				t.Fatal(err)
			}
			opts := testOptions(list, dir)
			opts.Shard = Shard{K: 0, N: n}
			mustRun(t, opts)
			after, err := snapshot.StampAt(repoDir(dir, "alpha"))
			if err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Refresh struct {
					Previous string `json:"previous"`
				} `json:"refresh"`
			}
			data, err := os.ReadFile(filepath.Join(repoDir(dir, "alpha"), snapshot.ReportJSON))
			if err == nil {
				err = json.Unmarshal(data, &rep)
			}
			if before != after && (err != nil || rep.Refresh.Previous != "used") {
				t.Errorf("rerun of a shard: republished with refresh.previous %q (%v), want used", rep.Refresh.Previous, err)
			}
		})
	}
}

// shardedCorpus runs list as n shards into a new directory and merges
// them.
func shardedCorpus(t *testing.T, list []Entry, n int, dir string) string {
	t.Helper()
	for k := range n {
		opts := testOptions(list, dir)
		opts.Shard = Shard{K: k, N: n}
		res := mustRun(t, opts)
		if res.Manifest != nil {
			t.Error("a shard wrote the table")
		}
		for _, rr := range res.Repos {
			if (rr.Err != nil) != (rr.Name == "gone") {
				t.Errorf("shard %d/%d: %s: %v", k, n, rr.Name, rr.Err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, CorpusDir)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("shards wrote %s before the merge: %v", CorpusDir, err)
	}
	m, err := Merge(context.Background(), MergeOptions{Dir: dir, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Failures) != 1 || m.Failures[0].Name != "gone" {
		t.Errorf("merge: failures %+v, want gone", m.Failures)
	}
	return dir
}

// sameTree fails unless a and b hold the same files with the same bytes,
// skip aside (names at any depth).
func sameTree(t *testing.T, a, b string, skip []string) {
	t.Helper()
	files := func(root string) map[string][]byte {
		out := map[string][]byte{}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || slices.Contains(skip, d.Name()) {
				return err
			}
			data, err := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			out[rel] = data
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	_, errA := os.Stat(a)
	_, errB := os.Stat(b)
	if errors.Is(errA, fs.ErrNotExist) && errors.Is(errB, fs.ErrNotExist) {
		return // a failed repository: neither has it
	}
	fa, fb := files(a), files(b)
	for name, data := range fa {
		if other, ok := fb[name]; !ok {
			t.Errorf("%s: %s is missing", b, name)
		} else if !bytes.Equal(data, other) {
			t.Errorf("%s differs between %s and %s", name, a, b)
		}
	}
	for name := range fb {
		if _, ok := fa[name]; !ok {
			t.Errorf("%s: %s is extra", b, name)
		}
	}
}

// TestMergeRefuses: merge writes nothing from parts that are not one
// whole sharding of one LIST under one set of options, or from a snapshot
// published again since its shard ran. Each case spoils a copy of a good
// two-shard corpus.
func TestMergeRefuses(t *testing.T) {
	good := sharedSharded(t)
	editPart := func(dir, shard string, edit func(p *part)) {
		p, err := readPart(filepath.Join(dir, PartsDir, shard))
		if err != nil {
			t.Fatal(err)
		}
		edit(p)
		os.MkdirAll(filepath.Join(dir, PartsDir, strings.ReplaceAll(p.Shard, "/", "-of-")), 0o755)
		var buf bytes.Buffer
		snapshot.EncodeJSON(&buf, p)
		if err := os.WriteFile(filepath.Join(dir, PartsDir, strings.ReplaceAll(p.Shard, "/", "-of-"), partFile), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		spoil func(dir string)
		want  string
	}{
		{"no parts", func(dir string) { os.RemoveAll(filepath.Join(dir, PartsDir)) }, "run the shards first"},
		{"a shard missing", func(dir string) { os.RemoveAll(filepath.Join(dir, PartsDir, "1-of-2")) }, "shard 1/2 has not run"},
		{"two shardings", func(dir string) { editPart(dir, "0-of-2", func(p *part) { p.Shard = "0/1" }) }, "parts of 1 and 2 shards"},
		{"another list", func(dir string) { editPart(dir, "1-of-2", func(p *part) { p.List = p.List[1:] }) }, "another LIST"},
		{"other options", func(dir string) { editPart(dir, "1-of-2", func(p *part) { p.Options.Secrets = "report" }) }, "other options"},
		{"republished", func(dir string) {
			editPart(dir, "0-of-2", func(p *part) { p.Repos[0].FilesJSON = "blake3:00" })
		}, "published again after its shard ran"},
		{"a foreign repository", func(dir string) {
			editPart(dir, "0-of-2", func(p *part) { p.Repos[0].Name = "beta" })
		}, "does not record alpha"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := testkit.CopyTree(good, dir); err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(filepath.Join(dir, CorpusDir))
			tc.spoil(dir)
			_, err := Merge(context.Background(), MergeOptions{Dir: dir})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("merge: %v, want an error saying %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, CorpusDir, ManifestFile)); err == nil {
				t.Error("a refused merge wrote the manifest")
			}
		})
	}
}
