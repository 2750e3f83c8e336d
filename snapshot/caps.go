package snapshot

import (
	"errors"
	"math"
	"path"

	"github.com/repoprep/repoprep/internal/lineindex"
)

// ErrTooLarge marks a file of OUT larger than a file of its name can be in
// this snapshot (docs/output.md, "Reading OUT back"): refused before it is
// read.
var ErrTooLarge = errors.New("larger than it can be in this snapshot")

// MaxFilesJSONBytes caps files.json, the one file whose cap cannot come
// from another: 1 GiB, about two million entries.
const MaxFilesJSONBytes = 1 << 30

// maxBytes is the cap on the file name of this snapshot (docs/output.md,
// "Reading OUT back"). The caps of search.index, lines.json and
// oversize.json are functions of the staged entries b lists; exact takes
// each staged file's size as the larger of what files.json says it was in
// SRC and what the copy in tree/ has (its text can be longer: decoded
// from UTF-16, masked), which costs a stat per file, where a first try
// takes the SRC sizes alone. Other files: 64 MiB, plus 16 bytes per byte
// of files.json.
func (s *Snapshot) maxBytes(name string, b *bounds, exact bool) int64 {
	size := func(e *boundEntry) int64 { return max(e.size, 0) }
	if exact {
		size = func(e *boundEntry) int64 {
			n := max(e.size, 0)
			if fi, err := s.root.Lstat(path.Join(TreeDir, e.path)); err == nil {
				n = max(n, fi.Size())
			}
			return n
		}
	}
	switch {
	case name == FilesJSON:
		return MaxFilesJSONBytes
	case name == SearchIndex && b != nil:
		return searchIndexCap(b.staged, size)
	case name == LinesJSON && b != nil:
		return linesCap(b.oversize, size)
	case name == LineTokens && b != nil:
		return lineTokensCap(b.staged)
	case name == OversizeJSON && b != nil:
		return oversizeCap(b.oversize, size)
	}
	list := int64(0)
	if fi, err := s.root.Lstat(FilesJSON); err == nil {
		list = fi.Size()
	}
	return capAdd(64<<20, capMul(16, list))
}

// searchIndexCap bounds search.index from its files' sizes: its header and
// footer, each file's path and two varints, and per trigram of a file (at
// most one a byte, and 2^24 in all) a posting of at most v bytes (v: the
// varint length of the file count) and at most one table entry of three
// bytes and two varints.
func searchIndexCap(staged []boundEntry, size func(*boundEntry) int64) int64 {
	v := int64(uvarintLen(uint64(len(staged))))
	n, pairs := int64(1<<10), int64(0)
	for i := range staged {
		n = capAdd(n, int64(len(staged[i].path))+20)
		pairs = capAdd(pairs, min(max(size(&staged[i])-2, 0), 1<<24))
	}
	n = capAdd(n, capMul(pairs, v))
	return capAdd(n, capMul(min(pairs, 1<<24), 13+v))
}

// linesCap bounds lines.json from its files' sizes and line counts: per
// file, its fields (the path escaped at worst six bytes a byte) and at most
// one mark per line and per Every bytes, each at most 44 bytes as JSON.
func linesCap(oversize []boundEntry, size func(*boundEntry) int64) int64 {
	n := int64(1 << 10)
	for i := range oversize {
		e := &oversize[i]
		marks := min(int64(max(e.lines, 0)), size(e)/lineindex.Every+1)
		n = capAdd(n, 512+6*int64(len(e.path)+len(e.hash)))
		n = capAdd(n, capMul(marks, 44))
	}
	return n
}

// oversizeCap bounds oversize.json: per file, its fields and a preview of
// at most its whole text, or of its lines each cut to
// maxPreviewLineBytes and marked, whichever is shorter, six bytes a byte
// escaped at worst.
func oversizeCap(oversize []boundEntry, size func(*boundEntry) int64) int64 {
	n := int64(1 << 10)
	for i := range oversize {
		e := &oversize[i]
		text := size(e)
		preview := min(capAdd(text, capMul(text/maxPreviewLineBytes+1, int64(len(previewCutMarker)))),
			capMul(int64(max(e.lines, 0)), maxPreviewLineBytes+int64(len(previewCutMarker))+1))
		n = capAdd(n, 512+6*int64(len(e.path)+len(e.encoding)))
		n = capAdd(n, capMul(preview, 6))
	}
	return n
}

func uvarintLen(x uint64) int {
	n := 1
	for ; x >= 0x80; x >>= 7 {
		n++
	}
	return n
}

// capAdd and capMul are + and × of non-negative caps, saturating: a
// files.json claiming an exabyte file gives the largest cap, not a
// negative one.
func capAdd(a, b int64) int64 {
	if b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}

func capMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}
