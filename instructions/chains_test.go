package instructions

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/repoprep/repoprep/snapshot"
)

// fanOut is a monorepo whose packages share their documentation: roots
// CLAUDE.md files (pkg/pNNN/CLAUDE.md) each import every one of docs
// documents (docs/dNNN.md) of about docBytes. Each document also names two
// files that are not there and the next document, so every document has
// imports of its own, as real ones do.
func fanOut(roots, docs, docBytes int) map[string]string {
	files := map[string]string{}
	prose := "Keep handlers small; return errors with context; test every branch.\n"
	for d := range docs {
		var b strings.Builder
		fmt.Fprintf(&b, "# Document %d\n\n", d)
		for b.Len() < docBytes {
			b.WriteString(prose)
		}
		fmt.Fprintf(&b, "\nSee @gone/m%03d-a.md and @gone/m%03d-b.md.\nNext: @d%03d.md\n", d, d, (d+1)%docs)
		files[fmt.Sprintf("docs/d%03d.md", d)] = b.String()
	}
	for r := range roots {
		var b strings.Builder
		fmt.Fprintf(&b, "# Package %d\n\n", r)
		for d := range docs {
			fmt.Fprintf(&b, "- @../../docs/d%03d.md\n", d)
		}
		files[fmt.Sprintf("pkg/p%03d/CLAUDE.md", r)] = b.String()
		files[fmt.Sprintf("pkg/p%03d/main.go", r)] = "package p\n"
	}
	return files
}

// stage makes the manifest and staged tree of files (path -> content;
// "->target" is a symlink).
func stage(files map[string]string) (*snapshot.Manifest, fstest.MapFS) {
	tree := fstest.MapFS{}
	m := &snapshot.Manifest{Schema: snapshot.FilesSchema}
	for p, c := range files {
		if target, ok := strings.CutPrefix(c, "->"); ok {
			m.Files = append(m.Files, snapshot.Entry{Path: p, Category: "junk", Reason: "symlink", LinkTarget: target})
			continue
		}
		tree[p] = &fstest.MapFile{Data: []byte(c)}
		m.Files = append(m.Files, snapshot.Entry{Path: p, Size: int64(len(c)), Staged: true, Tokens: len(c) / 4})
	}
	slices.SortFunc(m.Files, func(a, b snapshot.Entry) int { return strings.Compare(a.Path, b.Path) })
	return m, tree
}

func encode(t testing.TB, idx *Index) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := snapshot.EncodeJSON(&buf, idx); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestFanOutStoresEachTextOnce: 30 CLAUDE.md files importing the same 20
// documents (about 60 KB of text in all) give an index of the size of the
// distinct texts, not of 30 copies of the documents' imports: each
// document's own @paths appear once, each file's chain names the 20
// documents, and Load gives back what an agent loads. (The index used to
// repeat every document's imports and their warnings under each file:
// 30 times here, 300 times in a 300-package tree.)
func TestFanOutStoresEachTextOnce(t *testing.T) {
	const roots, docs = 30, 20
	files := fanOut(roots, docs, 2000)
	m, tree := stage(files)
	idx, err := Build(m, tree)
	if err != nil {
		t.Fatal(err)
	}
	data := encode(t, idx)
	distinct := 0
	for p, c := range files {
		if strings.HasSuffix(p, ".md") {
			distinct += len(c)
		}
	}
	if len(data) > 4*distinct {
		t.Errorf("instructions.json is %d bytes for %d bytes of distinct texts: more than 4 bytes per byte", len(data), distinct)
	}
	for d := range docs {
		spec := fmt.Sprintf(`"gone/m%03d-a.md"`, d)
		if n := bytes.Count(data, []byte(spec)); n != 1 {
			t.Errorf("docs/d%03d.md's missing import appears %d times, want once", d, n)
		}
	}
	if len(idx.Imported) != docs || len(idx.Warnings) != 0 {
		t.Errorf("%d imported texts, warnings %q; want %d and none", len(idx.Imported), idx.Warnings, docs)
	}
	for _, f := range idx.Files {
		var want []string
		for d := range docs {
			want = append(want, fmt.Sprintf("docs/d%03d.md", d))
		}
		got := slices.Sorted(slices.Values(f.Chain))
		if !slices.Equal(got, want) {
			t.Fatalf("%s: chain %q, want the %d documents", f.Path, f.Chain, docs)
		}
		for _, w := range f.Warnings {
			if strings.Contains(w, "gone/") {
				t.Errorf("%s keeps a document's own warning: %q", f.Path, w)
			}
		}
		imps, warnings := idx.Load(&f)
		if got := loadedPaths(imps); !slices.Equal(got, f.Chain) {
			t.Fatalf("%s: Load expands %q, chain %q", f.Path, got, f.Chain)
		}
		// Every document's two missing files, said where they are.
		if n := countPrefix(warnings, "line "); n < 2*docs {
			t.Errorf("%s: Load gives %d import warnings, want at least %d", f.Path, n, 2*docs)
		}
	}
	// The same through the file the server reads.
	back, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range idx.Files {
		a, aw := idx.Load(&idx.Files[i])
		b, bw := back.Load(&back.Files[i])
		if fmt.Sprint(a) != fmt.Sprint(b) || !slices.Equal(aw, bw) {
			t.Fatalf("%s: Load differs after encoding and parsing", idx.Files[i].Path)
		}
	}
}

func loadedPaths(imps []Import) []string {
	var out []string
	for _, im := range imps {
		if im.Status == ImportOK {
			out = append(out, im.Path)
			out = append(out, loadedPaths(im.Imports)...)
		}
	}
	return out
}

func countPrefix(list []string, prefix string) int {
	n := 0
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

// TestSizeBoundLeavesOutImports: past the bound, the files farthest from
// the root lose their imports and chains, each says so, and the index's
// warning names them; the files kept load as before, and every file is
// still listed with its scope and sizes.
func TestSizeBoundLeavesOutImports(t *testing.T) {
	files := fanOut(30, 20, 2000)
	files["CLAUDE.md"] = "# Root\n@docs/d000.md\n" // the root, kept first
	m, tree := stage(files)
	full, err := Build(m, tree)
	if err != nil {
		t.Fatal(err)
	}
	bound := sizeBound{perChar: 4, min: 0, max: 48 << 10}
	idx, err := buildWithin(m, tree, bound)
	if err != nil {
		t.Fatal(err)
	}
	data := encode(t, idx)
	if len(data) > bound.max {
		t.Errorf("instructions.json is %d bytes, over the %d-byte bound", len(data), bound.max)
	}
	if len(idx.Warnings) != 1 {
		t.Fatalf("index warnings %q, want one", idx.Warnings)
	}
	var kept, left []string
	for i, f := range idx.Files {
		if f.TotalChars != full.Files[i].TotalChars || f.Path != full.Files[i].Path {
			t.Errorf("%s: total %d, %d without the bound", f.Path, f.TotalChars, full.Files[i].TotalChars)
		}
		imps, _ := idx.Load(&f)
		if slices.ContainsFunc(f.Warnings, func(w string) bool {
			return strings.HasPrefix(w, "imports left out: instructions.json reached its size bound")
		}) {
			left = append(left, f.Path)
			if f.Imports != nil || f.Chain != nil || imps != nil {
				t.Errorf("%s: left out, yet imports %d, chain %d, loads %d", f.Path, len(f.Imports), len(f.Chain), len(imps))
			}
			continue
		}
		kept = append(kept, f.Path)
		want, _ := full.Load(&full.Files[i])
		if fmt.Sprint(imps) != fmt.Sprint(want) {
			t.Errorf("%s: kept, but loads differently under the bound", f.Path)
		}
	}
	if len(kept) < 2 || kept[0] != "CLAUDE.md" || len(left) == 0 {
		t.Fatalf("kept %q, left out %q: want the root and some packages kept, others left out", kept, left)
	}
	w := idx.Warnings[0]
	for _, want := range []string{"reached its size bound of 49,152 bytes", fmt.Sprintf("the imports of %d of 31 Claude files were left out: %s", len(left), left[0]), fmt.Sprintf("and %d more", len(left)-maxNamedLeftOut)} {
		if !strings.Contains(w, want) {
			t.Errorf("index warning %q lacks %q", w, want)
		}
	}
}

// TestDefaultBound: files that import little but load much (300 small
// CLAUDE.md importing one index that imports 199 documents, under 60 KB of
// text) meet the default bound's floor, 1 MiB, and stay under it.
func TestDefaultBound(t *testing.T) {
	files := map[string]string{}
	var hub strings.Builder
	for d := range 199 {
		fmt.Fprintf(&hub, "@d%03d.md\n", d)
		files[fmt.Sprintf("docs/d%03d.md", d)] = "short\n"
	}
	files["docs/index.md"] = hub.String()
	for r := range 300 {
		files[fmt.Sprintf("pkg/p%03d/CLAUDE.md", r)] = "@../../docs/index.md\n"
	}
	m, tree := stage(files)
	idx, err := Build(m, tree)
	if err != nil {
		t.Fatal(err)
	}
	if data := encode(t, idx); len(data) > defaultBound.min || len(idx.Warnings) != 1 {
		t.Errorf("instructions.json is %d bytes (bound %d), warnings %q", len(data), defaultBound.min, idx.Warnings)
	}
	if n := len(idx.Files[0].Chain); n != maxImportsPerFile {
		t.Errorf("the first file's chain has %d texts, want %d", n, maxImportsPerFile)
	}
}

// TestImportOfSymlinkLeavingSnapshot: an import naming an in-tree symlink
// whose target leaves the snapshot is outside, like the target itself; a
// dangling one is missing.
func TestImportOfSymlinkLeavingSnapshot(t *testing.T) {
	idx := build(t, map[string]string{
		"CLAUDE.md":       "@up.md @abs.md @home.md @twice.md @dangling.md @ok.md\n",
		"up.md":           "->../../outside.md",
		"abs.md":          "->/etc/passwd",
		"home.md":         "->~/notes.md",
		"twice.md":        "->up.md", // through another link
		"dangling.md":     "->nowhere.md",
		"ok.md":           "->docs/real.md",
		"docs/real.md":    "real\n",
		"docs/CLAUDE.md":  "@../up.md\n",
		"docs/imports.md": "unused\n",
	})
	want := map[string]string{"up.md": ImportOutside, "abs.md": ImportOutside, "home.md": ImportOutside, "twice.md": ImportOutside, "dangling.md": ImportMissing, "ok.md": ImportOK, "../up.md": ImportOutside}
	for _, f := range idx.Files {
		for _, r := range f.Imports {
			if r.Status != want[r.Spec] {
				t.Errorf("%s: @%s is %s (%s), want %s", f.Path, r.Spec, r.Status, r.Detail, want[r.Spec])
			}
		}
	}
}

// TestSizeEstimates: what the bound counts for a text is what encoding it
// adds to instructions.json, or a little more, never less.
func TestSizeEstimates(t *testing.T) {
	files := fanOut(3, 4, 200)
	files["docs/d001.md"] += "Odd: @\"quoted\".md @ünï.md @x\u2028y.md\n"
	m, tree := stage(files)
	idx, err := Build(m, tree)
	if err != nil {
		t.Fatal(err)
	}
	all := idx.Imported
	idx.Imported = []Text{}
	none := len(encode(t, idx))
	for _, x := range all {
		idx.Imported = []Text{x}
		got := len(encode(t, idx)) - none
		if est := textSize(x.Path, x.Source, x.Chars, x.Tokens, x.Imports); est < got || est > got+16 {
			t.Errorf("%s: estimated %d bytes, encoded %d", x.Path, est, got)
		}
	}
}
