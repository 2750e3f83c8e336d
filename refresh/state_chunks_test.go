package refresh

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"log/slog"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/repoprep/repoprep/snapshot"
)

// testKeys are the keys the state tests write and read with.
var testKeys = NewKeys([]byte("a fingerprint key of 32 bytes..."))

// pendingOut begins a snapshot in a fresh OUT, discarded when the test ends.
func pendingOut(t *testing.T) *snapshot.Pending {
	t.Helper()
	lock, err := snapshot.Acquire(t.TempDir()+"/out", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lock.Release)
	p, err := lock.Begin()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Discard)
	return p
}

// readBack writes m as the pending snapshot's files.json and reads back
// the state written into it.
func readBack(t *testing.T, p *snapshot.Pending, m *snapshot.Manifest) *State {
	t.Helper()
	if err := p.WriteJSON(snapshot.FilesJSON, m); err != nil {
		t.Fatal(err)
	}
	snap, err := snapshot.Open(p.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	got, err := readState(snap, testKeys.mac)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// writeState writes st with a manifest of entries into a pending
// snapshot and returns the state read back and the bytes Write allocated.
func writeState(t *testing.T, st *State, m *snapshot.Manifest) (*State, uint64) {
	t.Helper()
	p := pendingOut(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := st.Write(p, "files", "map", m, nil, testKeys); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return readBack(t, p, m), after.TotalAlloc - before.TotalAlloc
}

func chunkedState(n int) (*State, *snapshot.Manifest) {
	st := &State{Schema: stateSchema, Key: "blake3:k", StartedNs: 1}
	m := &snapshot.Manifest{Schema: snapshot.FilesSchema, Pruned: []snapshot.Pruned{{Path: "vendor", Reason: "vendored"}}}
	for i := range n {
		path := fmt.Sprintf("d%03d/file%06d.go", i%100, i)
		st.Files = append(st.Files, stateEntry{Path: path, Ino: uint64(i), Size: int64(i), Dir: "d"})
		m.Files = append(m.Files, snapshot.Entry{Path: path, Size: int64(i), Category: "source", Staged: true,
			Hash: fmt.Sprintf("blake3:%064x", i), Lines: i, Tokens: 2 * i})
	}
	return st, m
}

// TestStateChunks: the state's files and manifest entries are written in
// chunks of stateChunkLen and read back whole, on either side of a
// chunk's boundary (the files and the entries may differ in number).
func TestStateChunks(t *testing.T) {
	for _, n := range []int{0, 1, stateChunkLen - 1, stateChunkLen, stateChunkLen + 1, 2*stateChunkLen + 7} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			st, m := chunkedState(n)
			if n > 0 {
				st.Files = st.Files[1:] // one file fewer than entries
			}
			wantFiles, wantEntries := st.Files, m.Files
			got, _ := writeState(t, st, m)
			if len(got.Files) != len(wantFiles) || got.Manifest == nil || len(got.Manifest.Files) != len(wantEntries) {
				t.Fatalf("read back %d files and %v, want %d files and %d entries", len(got.Files), got.Manifest, len(wantFiles), len(wantEntries))
			}
			for i := range wantFiles {
				if got.Files[i] != wantFiles[i] {
					t.Fatalf("file %d: %+v, want %+v", i, got.Files[i], wantFiles[i])
				}
			}
			for i := range wantEntries {
				if got.Manifest.Files[i] != wantEntries[i] {
					t.Fatalf("entry %d: %+v, want %+v", i, got.Manifest.Files[i], wantEntries[i])
				}
			}
			if len(got.Manifest.Pruned) != 1 || got.Manifest.Schema != snapshot.FilesSchema {
				t.Errorf("manifest head %+v", got.Manifest)
			}
		})
	}
}

// TestStateWriteHoldsNoBody: Write streams the state to its file; it
// never holds the body whole. Before, it grew a buffer to 288 bytes a
// file and gob encoded the whole State into its own buffer first: the
// body twice, at the run's peak of memory (about 560 bytes a file here).
func TestStateWriteHoldsNoBody(t *testing.T) {
	const n = 20_000
	st, m := chunkedState(n)
	st0, m0 := chunkedState(100)
	_, small := writeState(t, st0, m0)
	_, alloc := writeState(t, st, m)
	perFile := float64(alloc-small) / (n - 100)
	t.Logf("Write allocated %d bytes for %d files: %.0f bytes a file beyond 100 files", alloc, n, perFile)
	if perFile > 64 {
		t.Errorf("Write allocates %.0f bytes a file, want it to stream the body (under 64)", perFile)
	}
}

// FuzzDecodeChunks: whatever follows the state's schema, decodeChunks
// gives the items of the chunks up to the last or an error, never more
// than the body can hold nor a panic; its cost is bounded by the body.
func FuzzDecodeChunks(f *testing.F) {
	var b bytes.Buffer
	enc := gob.NewEncoder(&b)
	enc.Encode(fileChunk{Items: []stateEntry{{Path: "a"}, {Path: "b"}}})
	enc.Encode(fileChunk{Items: []stateEntry{{Path: "c"}}, Last: true})
	f.Add(b.Bytes())
	f.Add(b.Bytes()[:len(b.Bytes())/2])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := decodeChunks[fileChunk](gob.NewDecoder(bytes.NewReader(body)), len(body), func(c fileChunk) ([]stateEntry, bool) { return c.Items, c.Last })
		if err == nil && len(got) > len(body) {
			t.Fatalf("%d values from a body of %d bytes", len(got), len(body))
		}
	})
}

// TestStateEntriesEarly: a run writes the manifest's entries into the
// state beside the index build (Entries), and Write only the rest; the
// state read back is the one Write alone makes. Write refuses a manifest
// other than the one whose entries were written.
func TestStateEntriesEarly(t *testing.T) {
	for _, n := range []int{0, 1, stateChunkLen + 1} {
		for _, same := range []bool{true, false} {
			t.Run(fmt.Sprint(n, same), func(t *testing.T) {
				p := pendingOut(t)
				st, m := chunkedState(n)
				files := st.Files
				st.Files = nil
				if err := st.begin(p, testKeys); err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				for _, e := range files {
					if err := st.stream.add(e); err != nil {
						t.Fatal(err)
					}
				}
				if err := st.Entries(m); err != nil {
					t.Fatal(err)
				}
				final := m
				if !same {
					final = &snapshot.Manifest{Schema: m.Schema, Files: append(slices.Clone(m.Files), snapshot.Entry{Path: "late"})}
				}
				err := st.Write(p, "files", "map", final, nil, testKeys)
				if !same {
					if err == nil {
						t.Fatal("Write took a manifest with an entry the state's entries lack")
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				got := readBack(t, p, m)
				if !slices.Equal(got.Files, files) || got.Manifest == nil || !slices.EqualFunc(got.Manifest.Files, m.Files, func(a, b snapshot.Entry) bool { return reflect.DeepEqual(a, b) }) {
					t.Fatalf("read back %d files and %d entries, want %d and %d", len(got.Files), len(got.Manifest.Files), len(files), len(m.Files))
				}
			})
		}
	}
}
