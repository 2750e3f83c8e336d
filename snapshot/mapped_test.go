package snapshot

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/repoprep/repoprep/internal/trigram"
)

// TestSearchIndexMapped: the mapped reader gives what SearchIndex gives
// on a clean snapshot (the same bytes, the same files) and refuses what
// it refuses: an index of another snapshot (unbound), a flipped byte
// (damaged), one past its size cap (refused from its size), an empty
// file.
func TestSearchIndexMapped(t *testing.T) {
	other, _ := boundFixture(t, "gamma")
	cases := []struct {
		name string
		edit func(t *testing.T, dir string)
		want func(err error) bool // nil: read
	}{
		{name: "clean"},
		{name: "another snapshot's index", edit: func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(other, SearchIndex), filepath.Join(dir, SearchIndex))
		}, want: func(err error) bool { return errors.Is(err, ErrUnbound) }},
		{name: "a flipped byte", edit: func(t *testing.T, dir string) {
			name := filepath.Join(dir, SearchIndex)
			data, err := os.ReadFile(name)
			noErr(t, err)
			data[len(data)/2] ^= 0x40
			replaceFile(t, name, data)
		}, want: func(err error) bool { return err != nil }},
		{name: "past its cap", edit: func(t *testing.T, dir string) {
			name := filepath.Join(dir, SearchIndex)
			data, err := os.ReadFile(name)
			noErr(t, err)
			replaceFile(t, name, append(data, bytes.Repeat([]byte{0}, 64<<20)...))
		}, want: func(err error) bool { var tl *TooLargeError; return errors.As(err, &tl) }},
		{name: "empty", edit: func(t *testing.T, dir string) {
			replaceFile(t, filepath.Join(dir, SearchIndex), nil)
		}, want: func(err error) bool { return err != nil }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := boundFixture(t, "alpha")
			if c.edit != nil {
				c.edit(t, dir)
			}
			s, err := Open(dir)
			noErr(t, err)
			defer s.Close()
			m, _, err := s.Manifest()
			noErr(t, err)
			for _, read := range []func(*Manifest) (*trigram.Index, []byte, func(), error){
				s.SearchIndexMapped, s.SearchIndexFilesMapped,
			} {
				ix, data, release, err := read(m)
				if c.want != nil {
					if !c.want(err) {
						t.Errorf("got %v, want a refusal", err)
					}
					if err == nil {
						release()
					}
					continue
				}
				noErr(t, err)
				wix, wdata, err := s.SearchIndex(m)
				noErr(t, err)
				if !bytes.Equal(data, wdata) || !slices.Equal(ix.Paths(), wix.Paths()) {
					t.Errorf("mapped: %d bytes, files %q; read: %d bytes, files %q", len(data), ix.Paths(), len(wdata), wix.Paths())
				}
				release()
			}
		})
	}
}

// replaceFile writes name anew (a published file is read-only).
func replaceFile(t *testing.T, name string, data []byte) {
	t.Helper()
	noErr(t, os.Remove(name))
	noErr(t, os.WriteFile(name, data, 0o444))
}
