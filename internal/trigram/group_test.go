package trigram

import (
	"slices"
	"testing"
)

// The splitter hands each partition its own share of a file's trigrams:
// share k holds exactly the trigrams of partition k's range, in the order
// they first occurred, and the shares together are the whole set, however
// many partitions and wherever they meet.
func TestGroupShares(t *testing.T) {
	mixed := []uint32{'z'<<16 | 1, 'a'<<16 | 2, 0, 255<<16 | 7, 'm'<<16 | 3, 'a'<<16 | 9, 'n' << 16}
	for _, c := range []struct {
		name     string
		points   []uint32
		trigrams []uint32
	}{
		{"one partition", nil, mixed},
		{"two", []uint32{'n' << 16}, mixed},
		{"four", []uint32{'b' << 16, 'n' << 16, 'o' << 16}, mixed},
		{"an empty share in the middle", []uint32{'b' << 16, 'c' << 16, 'z' << 16}, mixed},
		{"all in the last", []uint32{1 << 16, 2 << 16}, []uint32{200 << 16, 201 << 16}},
		{"no trigrams", []uint32{'n' << 16}, nil},
		{"sixteen", []uint32{16 << 16, 32 << 16, 48 << 16, 64 << 16, 80 << 16, 96 << 16, 97 << 16, 98 << 16,
			110 << 16, 120 << 16, 130 << 16, 140 << 16, 150 << 16, 200 << 16, 254 << 16}, mixed},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkGroup(t, c.points, c.trigrams)
		})
	}
}

func checkGroup(t *testing.T, points, trigrams []uint32) {
	t.Helper()
	sp := &splitter{}
	set := &fileSet{trigrams: slices.Clone(trigrams)}
	o := newOwners(points)
	sp.group(set, o)
	bounds := append(append([]uint32{0}, points...), 1<<24)
	total := 0
	for k := range len(points) + 1 {
		var want []uint32
		for _, tri := range trigrams {
			if bounds[k] <= tri && tri < bounds[k+1] {
				want = append(want, tri)
			}
		}
		got := set.share(k)
		if !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Errorf("partition %d [%#x, %#x): got %#x, want %#x", k, bounds[k], bounds[k+1], got, want)
		}
		total += len(got)
	}
	if total != len(trigrams) {
		t.Errorf("the shares hold %d trigrams, the set %d", total, len(trigrams))
	}
}

// FuzzGroup: any set and any ascending first-byte points (as splitPoints
// makes them) are grouped into shares that are the set, range by range.
func FuzzGroup(f *testing.F) {
	f.Add([]byte("abcdefghij"), []byte{'d'})
	f.Add([]byte{}, []byte{1, 2, 3})
	f.Add([]byte{255, 0, 0, 255, 255, 255}, []byte{})
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		if len(data) > 3<<10 {
			data = data[:3<<10] // bounded: a set of at most a thousand trigrams
		}
		var trigrams []uint32
		for i := 0; i+3 <= len(data); i += 3 {
			trigrams = append(trigrams, uint32(data[i])<<16|uint32(data[i+1])<<8|uint32(data[i+2]))
		}
		var points []uint32
		for _, c := range cuts {
			p := uint32(c) << 16
			if p > 0 && (len(points) == 0 || p > points[len(points)-1]) && len(points) < maxPartitions-1 {
				points = append(points, p)
			}
		}
		checkGroup(t, points, trigrams)
	})
}
