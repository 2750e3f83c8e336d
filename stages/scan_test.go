package stages

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/internal/testkit"
)

func TestScanPrunesExcludedDirs(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"main.go":                       "package main\n",
		"node_modules/left-pad/a.js":    "x",
		"src/node_modules/deep/b.js":    "x",
		".git/HEAD":                     "ref: refs/heads/main\n",
		"build/out.o":                   "x",
		"package.json":                  "{}",
		"src/__pycache__/m.cpython.pyc": "x",
		"src/app.py":                    "print(1)\n",
	})
	recs, pruned := scanDir(t, dir, ScanOptions{})
	for _, p := range []string{"node_modules", "src/node_modules", ".git", "build", "src/__pycache__"} {
		if pruned[p] != "excluded-dir" {
			t.Errorf("pruned[%q] = %q, want excluded-dir", p, pruned[p])
		}
	}
	for p := range recs {
		if strings.Contains(p, "node_modules") || strings.HasPrefix(p, ".git/") {
			t.Errorf("%s was scanned inside a pruned dir", p)
		}
	}
	if recs["main.go"] == nil || recs["src/app.py"] == nil {
		t.Errorf("regular files missing: %v", keys(recs))
	}
}

// TestScanOutputDirs: dist, build and target are build output beside the
// manifest of a tool that writes them, and source elsewhere (GOROOT's
// go/build package, cmd/dist).
func TestScanOutputDirs(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"web/package.json":      "{}",
		"web/dist/app.js":       "x",
		"web/build/x.js":        "x",
		"crate/Cargo.toml":      "[package]",
		"crate/target/debug/a":  "x",
		"go/build/build.go":     "package build\n",
		"cmd/dist/main.go":      "package main\n",
		"svc/go.mod":            "module svc\n",
		"svc/build/ci.sh":       "#!/bin/sh\n",
		"App/App.csproj":        "<Project/>",
		"App/bin/Debug/App.dll": "x",
		"mvn/pom.xml":           "<project/>",
		"mvn/bin/as.sh":         "#!/bin/sh\n",
		"mvn/target/a.class":    "x",
	})
	recs, pruned := scanDir(t, dir, ScanOptions{})
	for _, p := range []string{"web/dist", "web/build", "crate/target", "App/bin", "mvn/target"} {
		if pruned[p] != "excluded-dir" {
			t.Errorf("%s not pruned beside its manifest: %v", p, pruned)
		}
	}
	for _, p := range []string{"go/build/build.go", "cmd/dist/main.go", "svc/build/ci.sh", "mvn/bin/as.sh"} { // Maven does not write bin/
		if recs[p] == nil {
			t.Errorf("%s pruned, but no build manifest sits beside its directory", p)
		}
	}
}

func TestScanRecordsSpecialFilesWithoutOpening(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "hello\n", "sub/": ""})
	writeTree(t, outside, map[string]string{"secret.txt": "outside\n"})
	must(t, os.Symlink("a.txt", filepath.Join(dir, "link-in")))
	must(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "link-out")))
	must(t, os.Symlink(outside, filepath.Join(dir, "dir-out")))
	must(t, os.Symlink("loop-b", filepath.Join(dir, "loop-a")))
	must(t, os.Symlink("loop-a", filepath.Join(dir, "loop-b")))
	must(t, os.Symlink("..", filepath.Join(dir, "sub", "up")))
	testkit.Mkfifo(t, filepath.Join(dir, "fifo"))
	// A socket path must fit in 108 bytes; chdir makes it short.
	sock := filepath.Join(dir, "sock")
	if len(sock) < 100 {
		l, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
	}

	done := make(chan struct{})
	var recs map[string]*Record
	go func() {
		defer close(done)
		recs, _ = scanDir(t, dir, ScanOptions{})
		env := &Env{Src: openRoot(t, dir), Rules: defaultRules(t), MaxTextBytes: 1 << 20}
		for _, r := range recs {
			env.Sniff(context.Background(), r)
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("scan blocked: a FIFO or a symlink loop was opened")
	}
	want := map[string]struct{ reason, target string }{
		"link-in":  {"symlink", "a.txt"},
		"link-out": {"symlink", filepath.Join(outside, "secret.txt")},
		"dir-out":  {"symlink", outside},
		"loop-a":   {"symlink", "loop-b"},
		"loop-b":   {"symlink", "loop-a"},
		"sub/up":   {"symlink", ".."},
		"fifo":     {"special-file", ""},
	}
	if len(sock) < 100 {
		want["sock"] = struct{ reason, target string }{"special-file", ""}
	}
	for p, w := range want {
		r := recs[p]
		if r == nil {
			t.Errorf("%s not recorded", p)
			continue
		}
		if r.Category != "junk" || r.Reason != w.reason || r.LinkTarget != w.target || r.Staged {
			t.Errorf("%s = %s/%s target %q, want junk/%s target %q", p, r.Category, r.Reason, r.LinkTarget, w.reason, w.target)
		}
	}
	for p := range recs {
		if strings.HasPrefix(p, "dir-out/") || strings.HasPrefix(p, "sub/up/") {
			t.Errorf("walk followed a symlink into %s", p)
		}
	}
}

func TestScanWeirdNames(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("n", 246) + ".txt" // 250 bytes
	deep := strings.Repeat("d/", 40) + "leaf.txt"
	writeTree(t, dir, map[string]string{
		"bad\xffname.txt":  "x\n",
		"new\nline.txt":    "x\n",
		"back\\slash.txt":  "x\n",
		"tab\tname.txt":    "x\n",
		"ünïcödé.txt":      "fine\n",
		long:               "x\n",
		deep:               "x\n",
		"bad\xfedir/f.txt": "x\n",
	})
	recs, _ := scanDir(t, dir, ScanOptions{})
	tests := []struct {
		path   string
		reason string
	}{
		{`bad\xFFname.txt`, "unsafe-name"},
		{`new\x0Aline.txt`, "unsafe-name"},
		{`back\\slash.txt`, "unsafe-name"},
		{`tab\x09name.txt`, "unsafe-name"},
		{`bad\xFEdir/f.txt`, "unsafe-name"},
		{"ünïcödé.txt", ""},
		{long, ""},
		{deep, ""},
	}
	for _, tt := range tests {
		r := recs[tt.path]
		if r == nil {
			t.Errorf("%q not recorded; have %q", tt.path, keys(recs))
			continue
		}
		if r.Reason != tt.reason {
			t.Errorf("%q reason = %q, want %q", tt.path, r.Reason, tt.reason)
		}
	}
	if len(recs) != len(tests) {
		t.Errorf("scanned %d files, want %d: %q", len(recs), len(tests), keys(recs))
	}
}

func TestEscapeName(t *testing.T) {
	tests := []struct {
		in, want string
		unsafe   bool
	}{
		{"plain.go", "plain.go", false},
		{"日本語.md", "日本語.md", false},
		{"a\xffb", `a\xFFb`, true},
		{"a\\b", `a\\b`, true},
		{"a\nb", `a\x0Ab`, true},
		{"a\x7fb", `a\x7Fb`, true},
		{"a\u0085b", `a\xC2\x85b`, true},            // C1 control
		{"\xe6\x97", `\xE6\x97`, true},              // truncated rune
		{"fffd\uFFFD.txt", "fffd\uFFFD.txt", false}, // a valid U+FFFD is the author's
	}
	for _, tt := range tests {
		got, unsafe := EscapeName(tt.in)
		if got != tt.want || unsafe != tt.unsafe {
			t.Errorf("EscapeName(%q) = %q, %v; want %q, %v", tt.in, got, unsafe, tt.want, tt.unsafe)
		}
	}
}

// TestScanSkip: OUT, its lock and temporary snapshots are passed over by
// identity (device and inode); files of the input that merely share their
// names are scanned like any other (a repository holding ".staging.tmp-42/"
// or ".staging.notes" lost them from files.json when the skip went by
// name).
func TestScanSkip(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a.go": "package a\n", "staging/files.json": "{}", ".staging.lock": "pid 1",
		".staging.tmp-123/x": "x", ".staging.tmp-42/y.go": "package y\n", ".staging.notes": "kept", ".stagingx": "kept",
	})
	skip := map[dirfd.ID]bool{}
	for _, name := range []string{"staging", ".staging.lock", ".staging.tmp-123"} {
		skip[idOf(t, filepath.Join(dir, name))] = true
	}
	recs, pruned := scanDir(t, dir, ScanOptions{Skip: skip})
	if got, want := keys(recs), []string{".staging.notes", ".staging.tmp-42/y.go", ".stagingx", "a.go"}; !slices.Equal(got, want) || len(pruned) != 0 {
		t.Errorf("scanned %q pruned %v, want %q", got, pruned, want)
	}
}

func idOf(t testing.TB, name string) dirfd.ID {
	t.Helper()
	st, err := dirfd.Lstat(name)
	if err != nil {
		t.Fatal(err)
	}
	return st.ID
}

// TestIgnoreMatchesGit compares the scan's .gitignore handling with
// `git check-ignore` on the same tree.
func TestIgnoreMatchesGit(t *testing.T) {
	dir := t.TempDir()
	// The shared tricky patterns and paths, and ignore files below the root.
	files := append(slices.Clone(testkit.TrickyIgnorePaths),
		"sub/n.txt", "sub/readme.txt", "sub/local-only", "sub/x/local-only",
		"sub/deep/d.go", "sub/y/deep/e.go", "z/n.txt",
		"arch/keep/x.go", "arch/keep/sub/z.go", "arch/top.go", "arch/src/y.go",
	)
	tree := map[string]string{
		".gitignore":      "# comment\n" + strings.Join(testkit.TrickyIgnorePatterns, "\n") + "\n",
		"arch/.gitignore": "/*\n!/keep/\n!.gitignore\n",
		"sub/.gitignore":  "*.txt\n!readme.txt\n/local-only\ndeep/\n",
		"q/.gitignore":    "*\n!*.go\n!.gitignore\n",
	}
	for _, f := range files {
		tree[f] = "x\n"
	}
	writeTree(t, dir, tree)
	all := append(slices.Clone(files), ".gitignore", "sub/.gitignore", "q/.gitignore", "arch/.gitignore")
	gitIgnored := testkit.GitIgnored(t, dir, all)
	if len(gitIgnored) < 10 {
		t.Fatalf("git check-ignore found only %d ignored paths; the fixture is broken", len(gitIgnored))
	}

	skipGit := map[dirfd.ID]bool{idOf(t, filepath.Join(dir, ".git")): true}
	got := scanIgnored(t, dir, all, ScanOptions{Skip: skipGit})
	for _, f := range all {
		if got[f] != gitIgnored[f] {
			t.Errorf("%s: ignored = %v, git check-ignore says %v", f, got[f], gitIgnored[f])
		}
	}

	// --no-ignore scans everything.
	recs, pruned := scanDir(t, dir, ScanOptions{NoIgnore: true, Skip: skipGit})
	if len(pruned) != 0 || len(recs) != len(all) {
		t.Errorf("--no-ignore: %d records, %d pruned; want %d and 0", len(recs), len(pruned), len(all))
	}
}

func TestDotIgnoreFile(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".ignore": "*.md\n", "a.md": "x", "b.go": "package b\n", "sub/.ignore": "!keep.md\n", "sub/keep.md": "x", "sub/drop.md": "x",
	})
	recs, _ := scanDir(t, dir, ScanOptions{})
	for p, want := range map[string]string{"a.md": "ignored", "b.go": "", "sub/keep.md": "", "sub/drop.md": "ignored"} {
		if r := recs[p]; r == nil || r.Reason != want {
			t.Errorf("%s reason = %v, want %q", p, r, want)
		}
	}
}

func keys(m map[string]*Record) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// mkdeep makes levels nested directories "d" under dir, one level at a
// time through an os.Root on the level above (the whole path is far over
// PATH_MAX), with a file every fileEvery levels and leaf.txt at the
// bottom.
func mkdeep(t testing.TB, dir string, levels, fileEvery int) {
	t.Helper()
	r, err := os.OpenRoot(dir)
	must(t, err)
	write := func(name, content string) {
		f, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		must(t, err)
		_, err = f.WriteString(content)
		must(t, err)
		must(t, f.Close())
	}
	for i := range levels {
		must(t, r.Mkdir("d", 0o755))
		next, err := r.OpenRoot("d")
		must(t, err)
		r.Close()
		r = next
		if fileEvery > 0 && (i+1)%fileEvery == 0 {
			write("f.txt", fmt.Sprintf("level %d\n", i+1))
		}
	}
	write("leaf.txt", "the bottom\n")
	r.Close()
}

// openFDs counts this process's open descriptors.
func openFDs(t testing.TB) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(entries)
}

// TestScanDeep: 10,000 nested levels are walked through directory
// descriptors in linear time (resolving each path from the root made
// 4,000 levels take 209 s and 10,000 never finish), holding a bounded
// number of descriptors, and the deepest file can be opened and read.
//
// The whole pass walks 10,000 levels under a 2-minute guard. Under -short
// (make test's race pass, where the walk runs about eight times slower)
// it walks 4,000 levels, a path of 8,000 bytes, under a 1-minute guard:
// still far over PATH_MAX and over the descriptor cache, and the
// quadratic walk took 209 s there.
func TestScanDeep(t *testing.T) {
	levels, guard := 10000, 2*time.Minute
	if testing.Short() {
		levels, guard = 4000, time.Minute
	}
	const fileEvery = 1000
	dir := memDir(t)
	mkdeep(t, dir, levels, fileEvery)
	ctx, cancel := context.WithTimeout(context.Background(), guard) // a hang guard, not a benchmark
	defer cancel()
	tree := openRoot(t, dir)
	fds := openFDs(t)
	recs, _, err := Scan(ctx, ScanOptions{Root: tree, Rules: defaultRules(t), Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	if n := openFDs(t) - fds; n > 64+4 {
		t.Errorf("the walk left %d descriptors open, want at most the cache's 64", n)
	}
	if len(recs) != levels/fileEvery+1 {
		t.Fatalf("%d records, want %d f.txt and leaf.txt", len(recs), levels/fileEvery)
	}
	var leaf *Record
	for _, r := range recs {
		if strings.HasSuffix(r.Path, "leaf.txt") {
			leaf = r
		}
	}
	if want := strings.Repeat("d/", levels) + "leaf.txt"; leaf == nil || leaf.Path != want {
		t.Fatalf("deepest record missing or misnamed")
	}
	env := &Env{Src: tree, Rules: defaultRules(t)}
	must(t, env.readAndClassify(ctx, leaf, &Worker{}))
	if leaf.Err != "" || string(leaf.sniffed()) != "the bottom\n" {
		t.Errorf("deepest file read as %q, err %q", leaf.sniffed(), leaf.Err)
	}
}

// TestScanUnservableNames: a name the read server would refuse once it is
// percent-decoded or NFKC-folded, or that holds a bidi control, is
// unsafe-name, as is every file below such a directory.
func TestScanUnservableNames(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"%2e%2e/x.txt": "x\n", "．．/y.txt": "x\n", "evil\u202egnp.js": "x\n", "c:drive.txt": "x\n",
		"\u200fmark.txt": "x\n", "x%zz%2f%2e%2e%2fq.txt": "x\n", "fine%41.txt": "x\n", "ok/中文.md": "x\n",
	})
	recs, _ := scanDir(t, dir, ScanOptions{})
	for p, want := range map[string]string{
		"%2e%2e/x.txt": "unsafe-name", "．．/y.txt": "unsafe-name", "evil\u202egnp.js": "unsafe-name",
		"c:drive.txt": "unsafe-name", "\u200fmark.txt": "unsafe-name", "x%zz%2f%2e%2e%2fq.txt": "unsafe-name",
		"fine%41.txt": "", "ok/中文.md": "",
	} {
		if r := recs[p]; r == nil || r.Reason != want {
			t.Errorf("%q: %+v, want reason %q", p, r, want)
		}
	}
}

// memDir is a temporary directory on a tmpfs where there is one: making
// and removing 10,000 levels on a disk is most of such a test's time.
func memDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "repoprep-test-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
	})
	return dir
}
