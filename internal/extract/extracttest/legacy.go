package extracttest

import (
	"encoding/binary"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"
)

// The legacy binary Office formats: the Compound File writer here, and
// Word, Excel and PowerPoint 97-2003 documents built record by record in
// legacy_doc.go, legacy_xls.go and legacy_ppt.go, with the records a
// reader needs to find the text.

var le = binary.LittleEndian

// CFBStream is one stream of a generated Compound File.
type CFBStream struct {
	Name string
	Data []byte
}

// Compound File constants: sector ids that are not sectors, and the
// sizes of version 3 files.
const (
	cfbFree       = 0xFFFFFFFF
	cfbEndOfChain = 0xFFFFFFFE
	cfbFATSect    = 0xFFFFFFFD
	cfbNoStream   = 0xFFFFFFFF
	cfbSector     = 512
	cfbMini       = 64
	cfbCutoff     = 4096
)

// CFB writes a version 3 Compound File (512-byte sectors) with the
// streams at its root. Streams under 4,096 bytes live in the mini stream,
// as the format requires. Sectors go FAT, directory, mini FAT, mini
// stream, then the large streams, each chain in order. The directory
// tree is degenerate: every entry black, each the right sibling of the
// one before in the format's name order (length, then upper case);
// readers do not check colours.
func CFB(t testing.TB, streams ...CFBStream) []byte {
	t.Helper()
	streams = append([]CFBStream(nil), streams...)
	sort.SliceStable(streams, func(i, j int) bool {
		a, b := utf16.Encode([]rune(streams[i].Name)), utf16.Encode([]rune(streams[j].Name))
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return strings.ToUpper(streams[i].Name) < strings.ToUpper(streams[j].Name)
	})
	sectors := func(n, size int) int { return (n + size - 1) / size }
	// The mini stream: small streams end to end, each from a 64-byte boundary.
	var mini []byte
	var miniFAT []uint32
	start := make([]uint32, len(streams))
	for i, s := range streams {
		start[i] = cfbEndOfChain
		if len(s.Data) >= cfbCutoff || len(s.Data) == 0 {
			continue
		}
		start[i] = uint32(len(miniFAT))
		n := sectors(len(s.Data), cfbMini)
		for k := range n {
			next := uint32(len(miniFAT) + 1)
			if k == n-1 {
				next = cfbEndOfChain
			}
			miniFAT = append(miniFAT, next)
		}
		mini = append(mini, s.Data...)
		mini = append(mini, make([]byte, n*cfbMini-len(s.Data))...)
	}
	entries := 1 + len(streams)
	dirN, miniFATN, miniN := sectors(entries*128, cfbSector), sectors(4*len(miniFAT), cfbSector), sectors(len(mini), cfbSector)
	rest := dirN + miniFATN + miniN
	for _, s := range streams {
		if len(s.Data) >= cfbCutoff {
			rest += sectors(len(s.Data), cfbSector)
		}
	}
	fatN := 1
	for fatN*cfbSector/4 < fatN+rest {
		fatN++
	}
	if fatN > 109 {
		t.Fatalf("CFB: %d FAT sectors need a DIFAT, which this writer does not write", fatN)
	}
	fat := make([]uint32, fatN*cfbSector/4)
	for i := range fat {
		fat[i] = cfbFree
	}
	next := uint32(0)
	chain := func(n int) uint32 { // allocates n sectors in a row; their first
		if n == 0 {
			return cfbEndOfChain
		}
		first := next
		for k := range n {
			fat[next] = next + 1
			if k == n-1 {
				fat[next] = cfbEndOfChain
			}
			next++
		}
		return first
	}
	for range fatN {
		fat[next] = cfbFATSect
		next++
	}
	dirStart, miniFATStart, miniStart := chain(dirN), chain(miniFATN), chain(miniN)
	var body []byte
	pad := func(b []byte) []byte { return append(b, make([]byte, sectors(len(b), cfbSector)*cfbSector-len(b))...) }
	// Directory: the root, then the streams.
	var dir []byte
	entry := func(name string, typ byte, child, right, start uint32, size int) {
		e := make([]byte, 128)
		u := utf16.Encode([]rune(name))
		for i, c := range u {
			le.PutUint16(e[2*i:], c)
		}
		le.PutUint16(e[64:], uint16(2*len(u)+2))
		e[66], e[67] = typ, 1 // black
		le.PutUint32(e[68:], cfbNoStream)
		le.PutUint32(e[72:], right)
		le.PutUint32(e[76:], child)
		le.PutUint32(e[116:], start)
		le.PutUint32(e[120:], uint32(size))
		dir = append(dir, e...)
	}
	child := uint32(cfbNoStream)
	if len(streams) > 0 {
		child = 1
	}
	entry("Root Entry", 5, child, cfbNoStream, miniStart, len(mini))
	var large [][]byte
	for i, s := range streams {
		right := uint32(cfbNoStream)
		if i+1 < len(streams) {
			right = uint32(i + 2)
		}
		st := start[i]
		if len(s.Data) >= cfbCutoff {
			st = chain(sectors(len(s.Data), cfbSector))
			large = append(large, s.Data)
		}
		entry(s.Name, 2, cfbNoStream, right, st, len(s.Data))
	}
	for len(dir)%cfbSector != 0 { // unused entries
		e := make([]byte, 128)
		le.PutUint32(e[68:], cfbNoStream)
		le.PutUint32(e[72:], cfbNoStream)
		le.PutUint32(e[76:], cfbNoStream)
		dir = append(dir, e...)
	}
	for _, v := range fat {
		body = le.AppendUint32(body, v)
	}
	body = append(body, dir...)
	var mf []byte
	for _, v := range miniFAT {
		mf = le.AppendUint32(mf, v)
	}
	for len(mf)%cfbSector != 0 {
		mf = le.AppendUint32(mf, cfbFree)
	}
	body = append(body, mf...)
	body = append(body, pad(mini)...)
	for _, d := range large {
		body = append(body, pad(d)...)
	}
	h := make([]byte, cfbSector)
	copy(h, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1})
	le.PutUint16(h[24:], 0x003E)
	le.PutUint16(h[26:], 3)
	le.PutUint16(h[28:], 0xFFFE)
	le.PutUint16(h[30:], 9) // 512-byte sectors
	le.PutUint16(h[32:], 6) // 64-byte mini sectors
	le.PutUint32(h[44:], uint32(fatN))
	le.PutUint32(h[48:], dirStart)
	le.PutUint32(h[56:], cfbCutoff)
	le.PutUint32(h[60:], miniFATStart)
	le.PutUint32(h[64:], uint32(miniFATN))
	le.PutUint32(h[68:], cfbEndOfChain) // no DIFAT sectors
	for i := range 109 {
		v := uint32(cfbFree)
		if i < fatN {
			v = uint32(i)
		}
		le.PutUint32(h[76+4*i:], v)
	}
	return append(h, body...)
}
