package snapshot

import (
	"fmt"

	"github.com/repoprep/repoprep/internal/trigram"
)

// SearchIndexMapped is SearchIndex over a read-only mapping of
// search.index instead of a copy on the heap: a refresh after an edit
// reads the previous 15 MB index of Go's src/ to copy most of its posting
// lists, and reading it cost a heap buffer zeroed and filled (a fifth of
// that refresh's CPU). The same checks apply (size cap, checksum, content
// digest). ix and data are valid until release is called, which the
// caller must do once it is done with both.
//
// A mapping faults if the file shrinks while it is read: OUT is ours
// under the lock, but the caller reads data with
// debug.SetPanicOnFault(true) and turns such a panic into a refused
// index (Faulted). Where mapping is not available the file is read.
func (s *Snapshot) SearchIndexMapped(m *Manifest) (ix *trigram.Index, data []byte, release func(), err error) {
	return s.searchIndexMapped(m, trigram.Parse)
}

// SearchIndexFilesMapped is SearchIndexMapped without the trigram table
// (trigram.ParseFiles): for a caller that copies the file whole.
func (s *Snapshot) SearchIndexFilesMapped(m *Manifest) (ix *trigram.Index, data []byte, release func(), err error) {
	return s.searchIndexMapped(m, trigram.ParseFiles)
}

func (s *Snapshot) searchIndexMapped(m *Manifest, parse func([]byte) (*trigram.Index, error)) (ix *trigram.Index, data []byte, release func(), err error) {
	b := s.forManifest(m)
	data, release, err = s.mapCapped(SearchIndex, b)
	if err != nil {
		return nil, nil, nil, err
	}
	ix, err = parse(data)
	if err == nil {
		err = b.checkContents(data)
	} else {
		err = fmt.Errorf("%s: %w", SearchIndex, err)
	}
	if err != nil {
		release()
		return nil, nil, nil, err
	}
	return ix, data, release, nil
}

// mapCapped is readCapped through a mapping: the same cap, taken from the
// file's size before it is mapped.
func (s *Snapshot) mapCapped(name string, b *bounds) (data []byte, release func(), err error) {
	f, err := s.OpenFile(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	limit := s.maxBytes(name, b, false)
	if info.Size() > limit {
		limit = max(limit, s.maxBytes(name, b, true))
	}
	if info.Size() > limit {
		return nil, nil, &TooLargeError{Name: name, Size: info.Size(), Max: limit}
	}
	if data, release, err = mapFile(f.Fd(), info.Size()); err == nil {
		return data, release, nil
	}
	data, err = s.readCapped(name, b)
	return data, func() {}, err
}

// Faulted reports whether r, a value recovered from a panic, is the fault
// of reading a mapping whose file shrank (SearchIndexMapped).
func Faulted(r any) bool {
	err, ok := r.(error)
	return ok && err != nil && isFault(err)
}

// isFault: the runtime's error for a memory fault under SetPanicOnFault
// carries the faulting address.
func isFault(err error) bool {
	_, ok := err.(interface{ Addr() uintptr })
	return ok
}
