//go:build unix

package refresh

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRefuseFault: reading a mapping whose file shrank is a refused
// previous index (ok false, no error, what was being written removed),
// not a crash; any other panic goes on, and a read that does not fault
// keeps its result. On the code before, the previous index was read
// into the heap and never mapped.
func TestRefuseFault(t *testing.T) {
	cases := []struct {
		name     string
		body     func(t *testing.T, data []byte, file *os.File)
		ok       bool
		repanics bool
		removes  bool
	}{
		{name: "the file shrank", body: func(t *testing.T, data []byte, file *os.File) {
			if err := file.Truncate(0); err != nil {
				t.Fatal(err)
			}
			faultSink = data[len(data)-1] // past the end of the file now: a fault
		}, removes: true},
		{name: "no fault", body: func(t *testing.T, data []byte, file *os.File) { faultSink = data[len(data)-1] }, ok: true},
		{name: "another panic", body: func(t *testing.T, data []byte, file *os.File) { panic("not a fault") }, repanics: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			name := filepath.Join(dir, "search.index")
			if err := os.WriteFile(name, make([]byte, 3*os.Getpagesize()), 0o644); err != nil {
				t.Fatal(err)
			}
			partial := filepath.Join(dir, "partial")
			if err := os.WriteFile(partial, []byte("half"), 0o644); err != nil {
				t.Fatal(err)
			}
			file, err := os.OpenFile(name, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer file.Close()
			data, err := syscall.Mmap(int(file.Fd()), 0, 3*os.Getpagesize(), syscall.PROT_READ, syscall.MAP_SHARED)
			if err != nil {
				t.Fatal(err)
			}
			defer syscall.Munmap(data)
			read := func() (ok bool, err error) {
				defer refuseFault(&ok, &err, partial)()
				c.body(t, data, file)
				return true, nil
			}
			var ok bool
			repanicked := func() (p bool) {
				defer func() { p = recover() != nil }()
				ok, err = read()
				return false
			}()
			if repanicked != c.repanics || ok != c.ok || err != nil {
				t.Errorf("ok %t, err %v, panicked %t; want ok %t, panicked %t", ok, err, repanicked, c.ok, c.repanics)
			}
			if _, err := os.Stat(partial); os.IsNotExist(err) != c.removes {
				t.Errorf("after it, stat of what was being written: %v", err)
			}
		})
	}
}

// faultSink keeps the reads above from being optimised away.
var faultSink byte
