package snapshot

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
)

// TestReadFileMax: a file of at most max bytes reads whole; a larger one
// is refused from its size, naming it, its size and the bound, before a
// byte of it is read: a sparse file of 4 GiB planted in OUT costs a stat,
// not 4 GiB of reads and memory (on Linux the process's read count shows
// it). A missing file is fs.ErrNotExist.
func TestReadFileMax(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FilesJSON), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("x"), 1000)
	if err := os.WriteFile(filepath.Join(dir, "exact"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "planted"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(4 << 30); err != nil { // sparse: no block written
		t.Fatal(err)
	}
	f.Close()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	if got, err := s.ReadFileMax("exact", 1000); err != nil || !bytes.Equal(got, data) {
		t.Errorf("a file of max bytes: %d bytes, %v", len(got), err)
	}
	var tl *TooLargeError
	if _, err := s.ReadFileMax("exact", 999); !errors.As(err, &tl) || !errors.Is(err, ErrTooLarge) || tl.Size != 1000 || tl.Max != 999 || tl.Grew {
		t.Errorf("a file of max+1 bytes: %v, want a TooLargeError of 1000 over 999", err)
	}
	before := testkit.ReadBytes()
	_, err = s.ReadFileMax("planted", 1<<20)
	read := testkit.ReadBytes() - before
	if !errors.As(err, &tl) || tl.Size != 4<<30 || !strings.Contains(err.Error(), "planted is 4,294,967,296 bytes, over the 1,048,576") {
		t.Errorf("a sparse 4 GiB file: %v, want a TooLargeError naming it, its size and the bound", err)
	}
	if read > 1<<20 {
		t.Errorf("refusing a 4 GiB file read %d bytes", read)
	}
	if _, err := s.ReadFileMax("missing", 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
}
