package stages

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"

	"github.com/repoprep/repoprep/internal/testkit"
)

// process runs the per-file loop on one record, as a run does.
func process(env *Env, rec *Record) error {
	return env.Process(context.Background(), rec, &Worker{}, &Clock{})
}

// normalizeOne runs the per-file loop on one file.
func normalizeOne(t *testing.T, name string, content []byte, maxText int64) (*Record, string, error) {
	t.Helper()
	src, out := t.TempDir(), t.TempDir()
	must(t, os.MkdirAll(filepath.Dir(filepath.Join(src, name)), 0o755))
	must(t, os.WriteFile(filepath.Join(src, name), content, 0o644))
	env := &Env{Src: openRoot(t, src), TreeDir: out, Rules: defaultRules(t), MaxTextBytes: maxText}
	rec := NewRecord(name, name, int64(len(content)))
	err := process(env, rec)
	staged, _ := os.ReadFile(filepath.Join(out, filepath.FromSlash(name)))
	return rec, string(staged), err
}

func TestNormalizeStage(t *testing.T) {
	sjis, _ := japanese.ShiftJIS.NewEncoder().String("日本語のテキストです。\r\nもう一行。\r\n")
	// BOM-less UTF-16/32 in files whose name promises nothing: mimetype
	// calls them octet-stream for their NULs, and they are text all the same.
	const hebrew = "שלום עולם, זהו טקסט קצר בעברית.\nשורה שנייה.\n"
	const plane1 = "𐌰𐌱𐌲 𐐀𐐁𐐂 𝐀𝐁𝐂 😀😁\n"
	he16 := utf16le(hebrew)
	p1utf16be, _ := unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewEncoder().String(plane1)
	p1utf32le, _ := utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM).NewEncoder().String(plane1)
	tests := []struct {
		name, content string
		maxText       int64
		want          string // staged content; "" means not staged
		encoding      string
		reason        string
		crlf          bool
		oversize      bool
	}{
		{"a.go", "package a\r\n\r\nfunc A() {}\r\n", 1 << 20, "package a\n\nfunc A() {}\n", "utf-8", "", true, false},
		{"old.txt", "line one\rline two\r", 1 << 20, "line one\nline two\n", "utf-8", "", true, false},
		{"bom.md", "\xef\xbb\xbf# Title\n", 1 << 20, "# Title\n", "utf-8", "", false, false},
		{"ja.txt", sjis, 1 << 20, "日本語のテキストです。\nもう一行。\n", "shift_jis", "", true, false},
		{"big.txt", strings.Repeat("x\n", 100), 50, strings.Repeat("x\n", 100), "utf-8", "", false, true},
		{"nul.txt", "text\x00with a NUL\n", 1 << 20, "", "", "binary", false, false},
		// Valid UTF-8 is never refused: a double-encoded text is staged as
		// written and flagged (rec.Mojibake, below).
		{"moji.txt", "Caf\u00c3\u00a9 cr\u00c3\u00a8me br\u00c3\u00bbl\u00c3\u00a9e\n", 1 << 20, "Caf\u00c3\u00a9 cr\u00c3\u00a8me br\u00c3\u00bbl\u00c3\u00a9e\n", "utf-8", "", false, false},
		{"hebrew-notes", string(he16), 1 << 20, hebrew, "utf-16le", "", false, false},
		{"plane1-16", p1utf16be, 1 << 20, plane1, "utf-16be", "", false, false},
		{"plane1-32", p1utf32le, 1 << 20, plane1, "utf-32le", "", false, false},
		{"stray.txt", "Привет, мир! Это текст в UTF-8 с одним \xe9 лишним байтом.\n", 1 << 20, "", "", "invalid-utf8", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, staged, err := normalizeOne(t, tt.name, []byte(tt.content), tt.maxText)
			if err != nil {
				t.Fatal(err)
			}
			if staged != tt.want || rec.Staged != (tt.want != "") {
				t.Errorf("staged %v %q, want %q", rec.Staged, staged, tt.want)
			}
			if rec.Reason != tt.reason || rec.CRLF != tt.crlf || rec.Oversize != tt.oversize {
				t.Errorf("reason %q crlf %v oversize %v; want %q %v %v", rec.Reason, rec.CRLF, rec.Oversize, tt.reason, tt.crlf, tt.oversize)
			}
			if rec.Mojibake != (tt.name == "moji.txt") {
				t.Errorf("Mojibake = %v", rec.Mojibake)
			}
			if tt.want != "" && (rec.Encoding != tt.encoding || rec.Lines != strings.Count(tt.want, "\n") || rec.Tokens == 0 || rec.OutSize != int64(len(tt.want))) {
				t.Errorf("encoding %q lines %d tokens %d size %d", rec.Encoding, rec.Lines, rec.Tokens, rec.OutSize)
			}
		})
	}
}

// TestNormalizeWriteFailureIsFatal: a write that fails (here the snapshot
// directory vanished; in life a full disk) stops the run instead of
// publishing a snapshot with files missing.
func TestNormalizeWriteFailureIsFatal(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	must(t, os.WriteFile(filepath.Join(src, "a.go"), []byte("package a\n"), 0o644))
	env := &Env{Src: openRoot(t, src), TreeDir: out, Rules: defaultRules(t), MaxTextBytes: 1 << 20}
	must(t, os.RemoveAll(out))
	rec := NewRecord("a.go", "a.go", 10)
	if err := process(env, rec); err == nil || !strings.Contains(err.Error(), "a.go") {
		t.Fatalf("Process = %v, want an error naming a.go", err)
	}
}

// TestNormalizeVanishedFile: a file deleted after the scan is recorded as
// unreadable and the loop goes on.
func TestNormalizeVanishedFile(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	env := &Env{Src: openRoot(t, src), TreeDir: out, Rules: defaultRules(t), MaxTextBytes: 1 << 20}
	rec := NewRecord("gone.go", "gone.go", 10)
	if err := process(env, rec); err != nil {
		t.Fatal(err)
	}
	if rec.Reason != "unreadable" || rec.Staged || !strings.Contains(rec.Err, "gone.go") {
		t.Errorf("vanished file = %+v, want unreadable naming the file", rec)
	}
}

// TestPruneEmptyDirsAfterRefusal: a refused file's directories are
// removed again, so tree/ holds exactly what files.json calls staged. The
// file is text for longer than the loop holds (so it is streamed to the
// tree as it is decoded) and a NUL past that makes it binary.
func TestPruneEmptyDirsAfterRefusal(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	must(t, os.MkdirAll(filepath.Join(src, "only", "deeper"), 0o755))
	content := strings.Repeat("a line of plain text\n", 2*readCapBytes/21) + "text\x00with a NUL\n"
	must(t, os.WriteFile(filepath.Join(src, "only", "deeper", "x.txt"), []byte(content), 0o644))
	env := &Env{Src: openRoot(t, src), TreeDir: out, Rules: defaultRules(t), MaxTextBytes: 64 << 20}
	rec := NewRecord("only/deeper/x.txt", filepath.Join("only", "deeper", "x.txt"), int64(len(content)))
	if err := process(env, rec); err != nil {
		t.Fatal(err)
	}
	if rec.Reason != "binary" {
		t.Fatalf("reason %q, want binary: the test no longer refuses a streamed text", rec.Reason)
	}
	must(t, os.MkdirAll(filepath.Join(out, "kept"), 0o755))
	must(t, os.WriteFile(filepath.Join(out, "kept", "f"), nil, 0o644))
	must(t, env.PruneEmptyDirs())
	entries, _ := os.ReadDir(out)
	if len(entries) != 1 || entries[0].Name() != "kept" || rec.Staged {
		t.Errorf("tree/ holds %v after refusing the only file (staged %v), want only kept/", entries, rec.Staged)
	}
}

// TestNormalizePathTooLong: a path legal in SRC that is too long once
// OUT's path precedes it is recorded for that file; the run goes on.
func TestNormalizePathTooLong(t *testing.T) {
	src := t.TempDir()
	var parts []string
	for range 19 {
		parts = append(parts, strings.Repeat("d", 200))
	}
	rel := filepath.Join(append(parts, "x.txt")...) // ~3.8 KB: fits under PATH_MAX in SRC
	must(t, os.MkdirAll(filepath.Join(src, filepath.Dir(rel)), 0o755))
	must(t, os.WriteFile(filepath.Join(src, rel), []byte("hello\n"), 0o644))
	out := filepath.Join(t.TempDir(), strings.Repeat("o", 250), strings.Repeat("p", 250))
	must(t, os.MkdirAll(out, 0o755))
	env := &Env{Src: openRoot(t, src), TreeDir: out, Rules: defaultRules(t), MaxTextBytes: 1 << 20}
	rec := NewRecord(filepath.ToSlash(rel), rel, 6)
	if err := process(env, rec); err != nil {
		t.Fatalf("Process = %v: a long path must not stop the run", err)
	}
	if rec.Reason != "path-too-long" || rec.Staged {
		t.Errorf("reason %q staged %v, want path-too-long and not staged", rec.Reason, rec.Staged)
	}
}

// TestSwappedForSymlinkAfterScan: a file replaced after the scan by a
// symlink to another file inside SRC (an ignored .env) is refused, not
// staged with the other file's content.
func TestSwappedForSymlinkAfterScan(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	writeTree(t, src, map[string]string{"notes.txt": "harmless\n", ".env": "SECRET=1\n", ".gitignore": ".env\n"})
	recs, _ := scanDir(t, src, ScanOptions{})
	rec := recs["notes.txt"]
	must(t, os.Remove(filepath.Join(src, "notes.txt")))
	must(t, os.Symlink(".env", filepath.Join(src, "notes.txt")))
	env := &Env{Src: openRoot(t, src), TreeDir: out, Rules: defaultRules(t), MaxTextBytes: 1 << 20}
	if err := process(env, rec); err != nil {
		t.Fatal(err)
	}
	if rec.Staged || rec.Reason != "unreadable" || !strings.Contains(rec.Err, "replaced") {
		t.Errorf("swapped file = staged %v reason %q err %q; want unreadable, replaced", rec.Staged, rec.Reason, rec.Err)
	}
}

// TestSwappedForFIFOAfterScan: a file replaced by a FIFO after the scan is
// refused at once; opening it must not wait for a writer.
func TestSwappedForFIFOAfterScan(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	writeTree(t, src, map[string]string{"notes.txt": "harmless\n"})
	recs, _ := scanDir(t, src, ScanOptions{})
	rec := recs["notes.txt"]
	must(t, os.Remove(filepath.Join(src, "notes.txt")))
	testkit.Mkfifo(t, filepath.Join(src, "notes.txt"))
	env := &Env{Src: openRoot(t, src), TreeDir: out, Rules: defaultRules(t), MaxTextBytes: 1 << 20}
	done := make(chan struct{})
	go func() {
		defer close(done)
		process(env, rec)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("opening a FIFO swapped in after the scan blocked")
	}
	if rec.Staged || rec.Reason != "unreadable" {
		t.Errorf("swapped file = staged %v reason %q, want unreadable", rec.Staged, rec.Reason)
	}
}

// PruneEmptyDirs on random trees of directories, files and symlinks:
// afterwards every directory left holds something that is not a directory
// somewhere below it, and every file and symlink is still there (a symlink
// to a directory is never followed nor removed).
//
// The whole pass checks 30 random trees. Under -short (make test's race
// pass) it checks the first 10 of them.
func TestPruneEmptyDirsShapes(t *testing.T) {
	rounds := 30
	if testing.Short() {
		rounds = 10
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range rounds {
		out := t.TempDir()
		var leaves []string
		dirs := []string{"."}
		for range 40 {
			parent := dirs[rng.IntN(len(dirs))]
			name := filepath.Join(parent, fmt.Sprintf("n%d", rng.IntN(1000)))
			switch rng.IntN(4) {
			case 0, 1:
				if os.Mkdir(filepath.Join(out, name), 0o755) == nil {
					dirs = append(dirs, name)
				}
			case 2:
				if os.WriteFile(filepath.Join(out, name), nil, 0o644) == nil {
					leaves = append(leaves, name)
				}
			case 3:
				if os.Symlink(dirs[rng.IntN(len(dirs))], filepath.Join(out, name)) == nil {
					leaves = append(leaves, name)
				}
			}
		}
		env := &Env{TreeDir: out}
		must(t, env.PruneEmptyDirs())
		for _, l := range leaves {
			if _, err := os.Lstat(filepath.Join(out, l)); err != nil {
				t.Fatalf("round %d: %s was removed", round, l)
			}
		}
		filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() || p == out {
				return err
			}
			holds := false
			filepath.WalkDir(p, func(q string, e fs.DirEntry, err error) error {
				holds = holds || err == nil && !e.IsDir()
				return nil
			})
			if !holds {
				t.Errorf("round %d: %s is left though nothing but directories is below it", round, p)
			}
			return nil
		})
	}
}
