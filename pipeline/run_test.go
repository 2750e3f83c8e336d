package pipeline

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/snapshot"
)

// fixtureTree builds the small repository the golden tests run on. It is
// made at test time so symlinks, FIFOs and non-UTF-8 text need no
// committed binaries.
func fixtureTree(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "svc") // the map's title names it
	gbk, err := simplifiedchinese.GBK.NewEncoder().String("这是一个用于测试的中文文档。\n编码转换应当准确无误。\n")
	if err != nil {
		t.Fatal(err)
	}
	utf16, err := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().String("Notes in UTF-16.\nSecond line.\n")
	if err != nil {
		t.Fatal(err)
	}
	var zipBuf bytes.Buffer
	zw := zip.NewWriter(&zipBuf)
	w, _ := zw.Create("inner.txt")
	w.Write([]byte("zipped\n"))
	zw.Close()
	readme := "# svc\r\n\r\nA small service that stores things.\r\n"
	files := map[string]string{
		"go.mod":                       "module example.com/svc\n\ngo 1.22\n",
		"cmd/svc/main.go":              "package main\n\nimport \"example.com/svc/internal/store\"\n\nfunc main() { store.Open() }\n",
		"internal/store/store.go":      "package store\n\n// Open opens the store.\nfunc Open() {}\n",
		"internal/store/store_test.go": "package store\n\nimport \"testing\"\n\nfunc TestOpen(t *testing.T) { Open() }\n",
		"README.md":                    readme,
		"docs/copy-of-readme.md":       strings.ReplaceAll(readme, "\r\n", "\n"),
		"docs/guide-gbk.txt":           gbk,
		"docs/utf16.txt":               utf16,
		"assets/logo.png":              "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00" + strings.Repeat("\x00", 40),
		"data/notes.txt":               zipBuf.String(),
		"data/dump.sql":                "-- MySQL dump 10.13\nINSERT INTO t VALUES (1);\n",
		"node_modules/x/index.js":      "module.exports = 1\n",
		".gitignore":                   "*.log\n",
		"debug.log":                    "noise\n",
		"empty.txt":                    "",
		"web/app.min.js":               "var a=1;" + strings.Repeat("b", 600) + "\n",
		"big.txt":                      strings.Repeat("a line of an oversize file\n", 100),
		"CLAUDE.md":                    "# Agent notes\n\nRun make test.\n",
	}
	testkit.WriteTree(t, dir, files)
	if err := os.Symlink("README.md", filepath.Join(dir, "link-to-readme")); err != nil {
		t.Fatal(err)
	}
	testkit.Mkfifo(t, filepath.Join(dir, "pipe"))
	return dir
}

func runFixture(t testing.TB, src, out string, mod func(*Options)) *Result {
	t.Helper()
	opts := Options{Root: src, OutDir: out, Workers: 2, MaxTextBytes: 1024, PreviewLines: 3, Version: "test"}
	if mod != nil {
		mod(&opts)
	}
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestRunGolden(t *testing.T) {
	src := fixtureTree(t)
	out := filepath.Join(t.TempDir(), "out")
	res := runFixture(t, src, out, nil)
	if r := res.Report; r.Files != len(res.Manifest.Files) || r.Staged == 0 || r.StagedBytes == 0 || r.Bytes <= r.StagedBytes {
		t.Errorf("report: files %d staged %d staged bytes %d bytes %d", r.Files, r.Staged, r.StagedBytes, r.Bytes)
	}
	// Every stage, the final write included, each counting the files it
	// handled: every file, or (from secrets on) the staged ones.
	var names []string
	for _, st := range res.Report.Stages {
		names = append(names, st.Name)
		want := res.Report.Files
		switch st.Name {
		case "secrets", "hash", "dedup", "index":
			want = res.Report.Staged + res.Report.Audit.DuplicateFiles
			if st.Name == "index" {
				want = res.Report.Staged
			}
		}
		if st.Files != want {
			t.Errorf("report: stage %s counts %d files, want %d", st.Name, st.Files, want)
		}
	}
	// CPU time beside wall time: the steps of the loop share the loop's,
	// the cross-file stages take the process's while they run.
	var cpu float64
	for _, st := range res.Report.Stages {
		cpu += st.CPUSeconds
		if st.CPUSeconds < 0 {
			t.Errorf("stage %s: cpu_seconds %v", st.Name, st.CPUSeconds)
		}
	}
	if runtime.GOOS != "windows" && cpu <= 0 {
		t.Errorf("report: no stage took CPU time: %+v", res.Report.Stages)
	}
	if got, want := strings.Join(names, " "), "scan read classify triage normalize secrets hash dedup index write"; got != want {
		t.Errorf("report stages = %s, want %s", got, want)
	}
	var tokens int64
	for _, e := range res.Manifest.Files {
		if e.Staged {
			tokens += int64(e.Tokens)
		}
	}
	if r := res.Report; tokens == 0 || r.Tokens != tokens || r.Audit.Tokens != tokens {
		t.Errorf("report tokens %d, audit tokens %d; want the staged files' %d", r.Tokens, r.Audit.Tokens, tokens)
	}
	for _, name := range []string{"files.json", "oversize.json", "REPO_MAP.md", "secrets.json"} {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		checkGoldenFile(t, "run", name, got)
	}
	if info, err := os.Stat(out); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("OUT mode = %v, %v; want 0755 so readers can open it", info.Mode(), err)
	}
	// The staged tree holds exactly the staged entries.
	m, err := snapshot.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m.Files {
		_, err := os.Stat(filepath.Join(out, "tree", filepath.FromSlash(e.Path)))
		if e.Staged != (err == nil) {
			t.Errorf("%s: staged=%v but stat says %v", e.Path, e.Staged, err)
		}
	}
	gbk, err := os.ReadFile(filepath.Join(out, "tree", "docs", "guide-gbk.txt"))
	if err != nil || !strings.Contains(string(gbk), "编码转换应当准确无误") {
		t.Errorf("GBK file staged as %q, %v", gbk, err)
	}
}

// TestRunDeterministic: files.json is byte-identical across runs and
// worker counts.
func TestRunDeterministic(t *testing.T) {
	src := fixtureTree(t)
	var first []byte
	for _, workers := range []int{1, 2, 8} {
		out := filepath.Join(t.TempDir(), "out")
		runFixture(t, src, out, func(o *Options) { o.Workers = workers })
		got, err := os.ReadFile(filepath.Join(out, "files.json"))
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = got
		} else if !bytes.Equal(first, got) {
			t.Fatalf("files.json with %d workers differs from the first run", workers)
		}
		if bytes.Contains(got, []byte(src)) || bytes.Contains(got, []byte(out)) {
			t.Fatal("files.json holds an absolute path")
		}
	}
}

// treeState fingerprints every file's content, mode and times, so a test
// can prove a run wrote nothing and touched no access time.
func treeState(t testing.TB, root string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		mtime, atime := fileTimes(t, p)
		fmt.Fprintf(h, "%s %v %d %s\n", p, info.Mode(), info.Size(), mtime)
		// Reading a directory (this walk does) moves its atime, and so does
		// reading a symlink (the scan must, for link_target). Where the
		// platform cannot open without moving atimes (dirfd.KeepsATime
		// false: macOS, Windows, -tags repoprep_portable) they are left out.
		if info.Mode().IsRegular() && dirfd.KeepsATime {
			fmt.Fprintf(h, "atime %s\n", atime)
		}
		if info.Mode().IsRegular() {
			// O_NOATIME: the check itself must not move the times it checks.
			f, err := openNoATime(p)
			if err != nil {
				return err
			}
			defer f.Close()
			if _, err := io.Copy(h, f); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestSourceUntouched: the run writes nothing under SRC and changes no
// access time (files are opened with O_NOATIME; where the platform has
// none, treeState leaves atimes out and the rest is still checked).
func TestSourceUntouched(t *testing.T) {
	src := fixtureTree(t)
	// Put every atime before its mtime: with relatime, a plain read would
	// now update it, so the test can fail.
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			info, _ := os.Stat(p)
			os.Chtimes(p, info.ModTime().Add(-48*3600e9), info.ModTime())
		}
		return nil
	})
	before := treeState(t, src)
	runFixture(t, src, filepath.Join(t.TempDir(), "out"), nil)
	if after := treeState(t, src); after != before {
		t.Fatal("the run changed the source tree (content, mode or times)")
	}
}

// TestOutInsideSrc: OUT inside SRC is never scanned, whatever exists there.
func TestOutInsideSrc(t *testing.T) {
	src := fixtureTree(t)
	out := filepath.Join(src, "staging")
	runFixture(t, src, out, nil)
	first, _ := os.ReadFile(filepath.Join(out, "files.json"))
	runFixture(t, src, out, nil)
	second, _ := os.ReadFile(filepath.Join(out, "files.json"))
	if !bytes.Equal(first, second) {
		t.Fatal("second run over an existing OUT inside SRC gave a different files.json")
	}
	if bytes.Contains(second, []byte(`"staging`)) || bytes.Contains(second, []byte(`".staging.`)) {
		t.Fatal("files.json lists the output directory or its lock")
	}
}

// TestOutInsideSrcThroughSymlink: SRC given as a symlink to the directory
// that holds OUT is the same tree, and OUT is still never scanned.
func TestOutInsideSrcThroughSymlink(t *testing.T) {
	src := fixtureTree(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(src, link); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(src, "staging")
	runFixture(t, link, out, nil)
	res := runFixture(t, link, out, nil)
	for _, e := range res.Manifest.Files {
		if strings.HasPrefix(e.Path, "staging/") || strings.HasPrefix(e.Path, ".staging.") {
			t.Fatalf("scanned the output through the symlinked source: %s", e.Path)
		}
	}
	if _, err := Run(context.Background(), Options{Root: link, OutDir: filepath.Dir(src)}); !errors.Is(err, ErrBadOptions) {
		t.Errorf("OUT containing a symlinked SRC: err = %v, want ErrBadOptions", err)
	}
}

// TestRefusesOutContainingSrc: publishing swaps OUT away; it must never
// be SRC or above it.
func TestRefusesOutContainingSrc(t *testing.T) {
	src := fixtureTree(t)
	for _, out := range []string{src, filepath.Dir(src)} {
		_, err := Run(context.Background(), Options{Root: src, OutDir: out})
		if !errors.Is(err, ErrBadOptions) {
			t.Errorf("out %s: err = %v, want ErrBadOptions", out, err)
		}
	}
}

// TestRefusesToReplaceOtherDirs: OUT is replaced wholesale, so it must be
// a previous snapshot or empty; a mistyped -o pointing at a project or a
// file is refused and left alone.
func TestRefusesToReplaceOtherDirs(t *testing.T) {
	src := fixtureTree(t)
	parent := t.TempDir()
	notes := filepath.Join(parent, "notes")
	testkit.WriteTree(t, notes, map[string]string{"todo.txt": "keep me\n"})
	file := filepath.Join(parent, "file")
	testkit.WriteTree(t, parent, map[string]string{"file": "x"})
	empty := filepath.Join(parent, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{notes, file} {
		_, err := Run(context.Background(), Options{Root: src, OutDir: out})
		if !errors.Is(err, ErrBadOptions) {
			t.Errorf("out %s: err = %v, want ErrBadOptions", out, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(notes, "todo.txt")); err != nil || string(b) != "keep me\n" {
		t.Fatalf("the refused run touched %s: %q %v", notes, b, err)
	}
	runFixture(t, src, empty, nil) // an empty directory is fine
	runFixture(t, src, empty, nil) // and so is a previous snapshot
}

// TestCancelledRunKeepsOld: a run cancelled mid-way leaves the previous
// snapshot as it was and no temporary directory behind.
func TestCancelledRunKeepsOld(t *testing.T) {
	src := fixtureTree(t)
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	runFixture(t, src, out, nil)
	before := treeState(t, out)
	ctx, cancel := context.WithCancel(context.Background())
	_, err := Run(ctx, Options{Root: src, OutDir: out, Progress: cancelAt{"files", cancel}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if treeState(t, out) != before {
		t.Fatal("a cancelled run changed the published snapshot")
	}
	assertNoLeftovers(t, parent)
}

// cancelAt cancels the run when a stage starts.
type cancelAt struct {
	stage  string
	cancel func()
}

func (c cancelAt) Stage(name string, _ int) {
	if name == c.stage {
		c.cancel()
	}
}
func (cancelAt) Add(int) {}
func (cancelAt) Done()   {}

func assertNoLeftovers(t *testing.T, parent string) {
	t.Helper()
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary snapshot %s left behind", e.Name())
		}
	}
}

func noErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// checkGoldenFile compares got with testdata/<dir>/<name>, rewriting it
// under -update.
func checkGoldenFile(t *testing.T, dir, name string, got []byte) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", dir, name), got)
}
