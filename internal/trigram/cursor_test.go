package trigram

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// builtData builds files into an index and returns the file's bytes.
func builtData(t testing.TB, files []File) []byte {
	t.Helper()
	dir := t.TempDir()
	dst := filepath.Join(dir, "index")
	if err := Build(context.Background(), files, dst, dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// sections splits an index file into what precedes its table, the table,
// and its trigram count.
func sections(data []byte) (head, table []byte, ntri uint64) {
	foot := data[len(data)-footerSize:]
	tableOff := binary.BigEndian.Uint64(foot[16:])
	return data[:tableOff], data[tableOff : len(data)-footerSize], binary.BigEndian.Uint64(foot[24:])
}

// TestUpdateRefusesDamagedTable: a previous index whose checksum fits but
// whose table does not (entries out of order, a number written long, a
// count of zero or past the files, postings past their section, bytes or
// entries left over) is refused by an update (ErrDamaged, nothing left at
// dst): read as it is merged, the table is checked as Parse checks it,
// and more strictly where an entry is copied as it is.
func TestUpdateRefusesDamagedTable(t *testing.T) {
	files := memFiles(map[string]string{"a.go": "alpha beta gamma", "b.go": "beta delta", "c.go": "gamma epsilon zeta"})
	data := builtData(t, files)
	head, table, ntri := sections(data)
	// The first entries' layout: 3 trigram bytes, count, bytes; all small here.
	if table[3] >= 0x80 || table[4] >= 0x80 {
		t.Fatal("test assumes one-byte counts")
	}
	const entry = 5
	for _, tc := range []struct {
		name   string
		table  func([]byte) []byte
		ntri   uint64
		parsed bool // Parse takes it: only the update's stricter check refuses it
	}{
		{"as built", func(b []byte) []byte { return b }, ntri, true},
		{"out of order", func(b []byte) []byte {
			return slices.Concat(b[entry:2*entry], b[:entry], b[2*entry:])
		}, ntri, false},
		{"count written long", func(b []byte) []byte {
			return slices.Concat(b[:3], []byte{b[3] | 0x80, 0}, b[4:])
		}, ntri, true},
		{"count zero", func(b []byte) []byte {
			return slices.Concat(b[:3], []byte{0}, b[4:])
		}, ntri, false},
		{"count past the files", func(b []byte) []byte {
			return slices.Concat(b[:3], []byte{9}, b[4:])
		}, ntri, false},
		{"postings past their section", func(b []byte) []byte {
			return slices.Concat(b[:4], []byte{0x7f}, b[5:])
		}, ntri, false},
		{"a byte left over", func(b []byte) []byte { return slices.Concat(b, []byte{1}) }, ntri, false},
		{"an entry fewer than the count", func(b []byte) []byte { return b[:len(b)-entry] }, ntri, false},
		{"an entry more than the count", func(b []byte) []byte { return b }, ntri - 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			damaged := withTable(head, tc.table(slices.Clone(table)), tc.ntri, data)
			if _, err := Parse(damaged); (err == nil) != tc.parsed {
				t.Fatalf("Parse: %v, want accepted %t", err, tc.parsed)
			}
			prev, err := ParseFiles(damaged)
			if err != nil {
				t.Fatalf("ParseFiles: %v", err)
			}
			dst := filepath.Join(t.TempDir(), "updated")
			from := []int{0, 1, -1} // c.go read again: every path through the merge
			err = UpdateWith(context.Background(), prev, files, from, func(id int) (File, bool) { return files[id], true }, dst)
			if tc.name == "as built" {
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(dst); !bytes.Equal(got, data) {
					t.Error("the update differs from the build")
				}
				return
			}
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("update: %v, want ErrDamaged", err)
			}
			if _, err := os.Stat(dst); err == nil {
				t.Error("a refused update left its file")
			}
		})
	}
}

// withTable is data (an index file) with its table replaced and its
// footer's trigram count and checksum made to fit.
func withTable(head, table []byte, ntri uint64, data []byte) []byte {
	foot := slices.Clone(data[len(data)-footerSize:])
	out := slices.Concat(head, table)
	binary.BigEndian.PutUint64(foot[24:], ntri)
	out = append(out, foot[:32]...)
	binary.BigEndian.PutUint64(foot[32:], uint64(crc32.ChecksumIEEE(out)))
	return append(out, foot[32:]...)
}

// FuzzTableCursor: whatever a previous index's table holds (its checksum
// made to fit), the cursor an update reads it with never panics and never
// takes a table Parse refuses; where it takes one, it reads the entries
// Parse decodes, and an update from it writes an index Parse accepts,
// listing the files it was given; where it refuses, the update errs with
// ErrDamaged and leaves nothing at dst. The cost is one pass over the
// table.
func FuzzTableCursor(f *testing.F) {
	files := memFiles(map[string]string{"a.go": "alpha beta gamma", "b.go": "beta delta", "c.go": "gamma epsilon zeta"})
	data := builtData(f, files)
	head, table, ntri := sections(data)
	f.Add(table, ntri)
	f.Add(table[:len(table)-5], ntri-1)
	f.Add([]byte{}, uint64(0))
	dir := f.TempDir() // one per process: a directory per input cost most of the time
	f.Fuzz(func(t *testing.T, table []byte, ntri uint64) {
		if len(table) > 1<<16 {
			return
		}
		damaged := withTable(head, table, ntri, data)
		full, perr := Parse(damaged)
		prev, err := ParseFiles(damaged)
		if err != nil {
			return // the frame itself (offsets past the end): not the cursor's
		}
		cur := newTableCursor(prev)
		var entries []entry
		var cerr error
		for {
			if cerr = cur.next(); cerr != nil || !cur.ok {
				break
			}
			entries = append(entries, cur.e)
		}
		if cerr == nil {
			if perr != nil {
				t.Fatalf("the cursor takes a table Parse refuses (%v)", perr)
			}
			if !slices.Equal(entries, full.table) {
				t.Fatal("the cursor reads other entries than Parse")
			}
		} else if !errors.Is(cerr, ErrDamaged) {
			t.Fatalf("cursor: %v, want ErrDamaged", cerr)
		}
		dst := filepath.Join(dir, "updated")
		os.Remove(dst)
		err = UpdateWith(context.Background(), prev, files, []int{0, 1, -1}, func(id int) (File, bool) { return files[id], true }, dst)
		if err != nil {
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("update: %v", err)
			}
			if _, serr := os.Stat(dst); serr == nil {
				t.Error("a refused update left its file")
			}
			return
		}
		if cerr != nil {
			t.Fatalf("an update took a table the cursor refuses (%v)", cerr)
		}
		out, _ := os.ReadFile(dst)
		ix, err := Parse(out)
		if err != nil {
			t.Fatalf("the update wrote an index Parse refuses: %v", err)
		}
		if !slices.Equal(ix.Paths(), []string{"a.go", "b.go", "c.go"}) {
			t.Fatalf("the update lists %q", ix.Paths())
		}
	})
}
