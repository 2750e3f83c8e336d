package lineindex

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/repoprep/repoprep/internal/tokens"
)

// The token index (OUT/linetokens.index) holds, for every staged text,
// each line's byte length and the o200k tokens the line costs as read_file
// shows it after its number: Count(" " + line + "\n"). read_file shows a
// line as "  10 | text\n", and a numbered line's count is the count of its
// number part ("  10 |") plus that count, exactly: the number part ends
// in "|", and the next piece starts at the space after it, whatever the
// text is. Numbered lines follow one another at cuts (a newline, then a
// space or a digit: tokens.Cut), so a run of lines costs the sum of its
// lines' counts, exactly, and a server applies a token budget by lookup.
//
// Layout, integers little-endian:
//
//	"RPLTOK1\n"
//	the data of file 0, file 1, ...: per line uvarint(len), uvarint(c)
//	the directory: one 80-byte record per file, in path order
//	the footer: directory offset u64, files u64, contents [32], "RPLTOK1\n"
//
// A record is the file's hash [32] (files.json's, decoded), its staged
// size u64, its line count u64, its data's offset u64 and length u64, and
// its sum [16]. c is the line's count plus one, or 0 when the line was not
// counted (longer than MaxCountedLineBytes: read_file cuts such a line and
// counts what it shows). contents is the digest of every staged path and
// hash (trigram.Digest, as search.index records it), which binds the
// directory's order to files.json's staged files; a file's sum is SHA-256
// over its path, hash, size, line count and data (tokenSum), so a record
// left from other contents, or edited since without its sum, is refused.
const (
	tokenMagic = "RPLTOK1\n"
	// TokenRecordSize is the size of one directory record.
	TokenRecordSize = 32 + 8 + 8 + 8 + 8 + 16
	// TokenFooterSize is the size of the footer.
	TokenFooterSize = 8 + 8 + 32 + 8
	// MaxCountedLineBytes is the longest line whose count is recorded:
	// read_file never shows more than its MaxLineChars of a line (2000 by
	// default), so a longer line is cut and counted as shown.
	MaxCountedLineBytes = 64 << 10
	// MaxTokenDataBytes bounds one file's data a reader takes whole: about
	// three million lines. A larger file's budget is counted as before.
	MaxTokenDataBytes = 8 << 20
)

// ErrTokenIndex marks a token index that cannot be used as it is:
// damaged, truncated, or not this format. Readers count instead.
var ErrTokenIndex = errors.New("not a usable token index")

// TokenRecord is one file's entry in the token index's directory.
type TokenRecord struct {
	Hash  [32]byte // the staged text's BLAKE3, as files.json records it
	Size  int64    // staged bytes
	Lines int64    // lines as files.json counts them
	Off   int64    // where the file's data starts in the index
	N     int64    // the data's length
	Sum   [16]byte // see tokenSum
}

// tokenSum is the sum a record carries: the first 16 bytes of the
// SHA-256 of the format's magic, the file's path, hash, size, line count
// and data. SHA-256, not BLAKE3 as elsewhere: a server checks the sum of
// the file it reads on every read, and SHA-256 runs on the CPU's own
// instructions without the large stack BLAKE3's implementation grows
// each request's goroutine to.
func tokenSum(path string, hash [32]byte, size, lines int64, data []byte) [16]byte {
	h := sha256.New()
	var b [binary.MaxVarintLen64 * 3]byte
	h.Write([]byte(tokenMagic))
	n := binary.PutUvarint(b[:], uint64(len(path)))
	h.Write(b[:n])
	h.Write([]byte(path))
	h.Write(hash[:])
	n = binary.PutUvarint(b[:], uint64(size))
	n += binary.PutUvarint(b[n:], uint64(lines))
	n += binary.PutUvarint(b[n:], uint64(len(data)))
	h.Write(b[:n])
	h.Write(data)
	var sum [sha256.Size]byte
	return [16]byte(h.Sum(sum[:0]))
}

func (r *TokenRecord) put(b []byte) {
	copy(b[:32], r.Hash[:])
	binary.LittleEndian.PutUint64(b[32:], uint64(r.Size))
	binary.LittleEndian.PutUint64(b[40:], uint64(r.Lines))
	binary.LittleEndian.PutUint64(b[48:], uint64(r.Off))
	binary.LittleEndian.PutUint64(b[56:], uint64(r.N))
	copy(b[64:80], r.Sum[:])
}

func parseRecord(b []byte) TokenRecord {
	var r TokenRecord
	copy(r.Hash[:], b[:32])
	r.Size = int64(binary.LittleEndian.Uint64(b[32:]))
	r.Lines = int64(binary.LittleEndian.Uint64(b[40:]))
	r.Off = int64(binary.LittleEndian.Uint64(b[48:]))
	r.N = int64(binary.LittleEndian.Uint64(b[56:]))
	copy(r.Sum[:], b[64:80])
	return r
}

// LineCounter takes a text's bytes as they come, in pieces of any size,
// and encodes each line's length and count: a token index's data for one
// file. The zero value is ready; not safe for concurrent use.
type LineCounter struct {
	data    []byte // encoded so far
	line    []byte // " " + the line so far, while it is short enough to count
	length  int64  // bytes of the line so far
	lines   int64
	size    int64
	started bool
}

// Write takes the next bytes of the text; it never fails.
func (lc *LineCounter) Write(p []byte) (int, error) {
	n := len(p)
	lc.size += int64(n)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		part := p
		if i >= 0 {
			part = p[:i]
		}
		lc.add(part)
		if i < 0 {
			break
		}
		lc.end()
		p = p[i+1:]
	}
	return n, nil
}

// add appends part of the current line.
func (lc *LineCounter) add(part []byte) {
	if !lc.started {
		lc.line = append(lc.line[:0], ' ')
		lc.started = true
	}
	lc.length += int64(len(part))
	if lc.length <= MaxCountedLineBytes {
		lc.line = append(lc.line, part...)
	}
}

// end closes the current line: its count is that of " " + line + "\n".
func (lc *LineCounter) end() {
	lc.add(nil)
	c := uint64(0)
	if lc.length <= MaxCountedLineBytes {
		lc.line = append(lc.line, '\n')
		c = uint64(tokens.CountBytes(lc.line)) + 1
	}
	lc.data = binary.AppendUvarint(lc.data, uint64(lc.length))
	lc.data = binary.AppendUvarint(lc.data, c)
	lc.lines++
	lc.length, lc.started = 0, false
}

// CountText takes a whole text at once, as Write would, and returns its
// o200k count (tokens.Count): the text's count and its lines' share the
// tokenizer's work (tokens.CountLines). lc must be fresh (Reset, or the
// zero value); otherwise, or for a text that is not valid UTF-8, the two
// are counted apart, with the same results.
func (lc *LineCounter) CountText(text []byte) int {
	if lc.size == 0 && !lc.started {
		if whole, ok := tokens.CountLines(text, MaxCountedLineBytes, lc.addLine); ok {
			lc.size = int64(len(text))
			return whole
		}
	}
	lc.Write(text)
	return tokens.CountBytes(text)
}

// CountBatch takes the next bytes of a text, as Write would, and returns
// their o200k count, tokens.CountBytes(b): a streamed text's token batch
// (textenc.BatchCounter). When b starts a line and ends one (or the text:
// last), its lines are counted in the count's scan (tokens.CountLines),
// as CountText counts a whole text; otherwise apart, with the same
// results.
func (lc *LineCounter) CountBatch(b []byte, last bool) int {
	if !lc.started && len(b) > 0 && (last || b[len(b)-1] == '\n') {
		if whole, ok := tokens.CountLines(b, MaxCountedLineBytes, lc.addLine); ok {
			lc.size += int64(len(b))
			return whole
		}
	}
	lc.Write(b)
	return tokens.CountBytes(b)
}

// addLine records a line CountLines counted: count is -1 for a line
// over MaxCountedLineBytes.
func (lc *LineCounter) addLine(length, count int) {
	lc.data = binary.AppendUvarint(lc.data, uint64(length))
	lc.data = binary.AppendUvarint(lc.data, uint64(count+1))
	lc.lines++
}

// Finish closes a last line without '\n' (read_file shows it with one)
// and returns the data, the line count and the size of the text.
func (lc *LineCounter) Finish() (data []byte, lines, size int64) {
	if lc.started {
		lc.end()
	}
	return lc.data, lc.lines, lc.size
}

// Reset makes lc ready for the next text, keeping its buffers.
func (lc *LineCounter) Reset() {
	*lc = LineCounter{data: lc.data[:0], line: lc.line[:0]}
}

// TokenWriter writes a token index: Add each staged file's data in path
// order, then Close. Not safe for concurrent use.
type TokenWriter struct {
	w        io.Writer
	off      int64
	dir      []byte
	contents [32]byte
	err      error
}

// NewTokenWriter starts a token index on w for the staged files whose
// path-and-hash digest is contents.
func NewTokenWriter(w io.Writer, contents [32]byte) *TokenWriter {
	tw := &TokenWriter{w: w, contents: contents}
	tw.write([]byte(tokenMagic))
	return tw
}

func (tw *TokenWriter) write(b []byte) {
	if tw.err != nil {
		return
	}
	n, err := tw.w.Write(b)
	tw.off += int64(n)
	tw.err = err
}

// Add writes the next file's data (LineCounter.Finish).
func (tw *TokenWriter) Add(path string, hash [32]byte, size, lines int64, data []byte) error {
	r := TokenRecord{Hash: hash, Size: size, Lines: lines, Off: tw.off, N: int64(len(data))}
	r.Sum = tokenSum(path, hash, size, lines, data)
	tw.write(data)
	var b [TokenRecordSize]byte
	r.put(b[:])
	tw.dir = append(tw.dir, b[:]...)
	return tw.err
}

// Close writes the directory and the footer.
func (tw *TokenWriter) Close() error {
	dirOff := tw.off
	tw.write(tw.dir)
	var f [TokenFooterSize]byte
	binary.LittleEndian.PutUint64(f[0:], uint64(dirOff))
	binary.LittleEndian.PutUint64(f[8:], uint64(len(tw.dir)/TokenRecordSize))
	copy(f[16:48], tw.contents[:])
	copy(f[48:], tokenMagic)
	tw.write(f[:])
	return tw.err
}

// TokenIndex reads a token index one file at a time, so a reader never
// holds more than one file's counts.
type TokenIndex struct {
	r        io.ReaderAt
	dirOff   int64
	files    int
	contents [32]byte

	// checked holds the sums of the data that passed CheckCounts, so a
	// file read again is not decoded whole again: the sum covers the
	// path, hash, size, line count and data CheckCounts judges (a
	// read_file of a 500-line head decoded every line of the file, 5% of
	// the server's CPU per call). At most files of them are kept.
	checked  sync.Map // [16]byte → struct{}
	nchecked atomic.Int64
}

// OpenTokens reads the footer of a token index of size bytes and checks
// that its parts fit; Record and Data read the rest on demand.
func OpenTokens(r io.ReaderAt, size int64) (*TokenIndex, error) {
	if size < int64(len(tokenMagic)+TokenFooterSize) {
		return nil, fmt.Errorf("%w: %d bytes, too short", ErrTokenIndex, size)
	}
	var head [len(tokenMagic)]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, err
	}
	var f [TokenFooterSize]byte
	if _, err := r.ReadAt(f[:], size-TokenFooterSize); err != nil {
		return nil, err
	}
	if string(head[:]) != tokenMagic || string(f[48:]) != tokenMagic {
		return nil, fmt.Errorf("%w: not this format", ErrTokenIndex)
	}
	ix := &TokenIndex{r: r, dirOff: int64(binary.LittleEndian.Uint64(f[0:]))}
	files := binary.LittleEndian.Uint64(f[8:])
	copy(ix.contents[:], f[16:48])
	dirEnd := size - TokenFooterSize
	if ix.dirOff < int64(len(tokenMagic)) || ix.dirOff > dirEnd || files != uint64(dirEnd-ix.dirOff)/TokenRecordSize ||
		(dirEnd-ix.dirOff)%TokenRecordSize != 0 {
		return nil, fmt.Errorf("%w: the directory does not fit the file", ErrTokenIndex)
	}
	ix.files = int(files)
	return ix, nil
}

// Contents is the digest of the staged paths and hashes the index was
// built for.
func (ix *TokenIndex) Contents() [32]byte { return ix.contents }

// Files is how many files the index lists.
func (ix *TokenIndex) Files() int { return ix.files }

// Record reads file i's record and checks that its data lies in the data
// section.
func (ix *TokenIndex) Record(i int) (TokenRecord, error) {
	if i < 0 || i >= ix.files {
		return TokenRecord{}, fmt.Errorf("%w: file %d of %d", ErrTokenIndex, i, ix.files)
	}
	var b [TokenRecordSize]byte
	if _, err := ix.r.ReadAt(b[:], ix.dirOff+int64(i)*TokenRecordSize); err != nil {
		return TokenRecord{}, err
	}
	r := parseRecord(b[:])
	if r.Off < int64(len(tokenMagic)) || r.N < 0 || r.Off > ix.dirOff || r.N > ix.dirOff-r.Off || r.Size < 0 || r.Lines < 0 {
		return TokenRecord{}, fmt.Errorf("%w: record %d points outside the data", ErrTokenIndex, i)
	}
	return r, nil
}

// ErrTokenSum means a file's counts do not match their sum: damaged, or
// edited without it, or of another path. The caller counts instead.
var ErrTokenSum = errors.New("counts do not match their sum (damaged or edited)")

// Data reads r's data into buf (grown as needed) and checks it against
// the record's sum for path, and that it decodes to r.Lines lines whose
// lengths add up to the text's size. A file over MaxTokenDataBytes is
// refused (ErrTokenIndex): read_file counts such a file as before.
func (ix *TokenIndex) Data(path string, r TokenRecord, buf []byte) ([]byte, error) {
	if r.N > MaxTokenDataBytes {
		return buf, fmt.Errorf("%w: %d bytes of counts for %q, more than a read takes", ErrTokenIndex, r.N, path)
	}
	if int64(cap(buf)) < r.N {
		buf = make([]byte, r.N)
	}
	buf = buf[:r.N]
	if _, err := ix.r.ReadAt(buf, r.Off); err != nil {
		return buf, err
	}
	if tokenSum(path, r.Hash, r.Size, r.Lines, buf) != r.Sum {
		return buf, fmt.Errorf("%q: %w", path, ErrTokenSum)
	}
	if _, ok := ix.checked.Load(r.Sum); ok {
		return buf, nil // these very bytes passed before
	}
	if err := CheckCounts(buf, r.Lines, r.Size); err != nil {
		return buf, fmt.Errorf("%q: %w", path, err)
	}
	if ix.nchecked.Add(1) <= int64(ix.files) {
		ix.checked.Store(r.Sum, struct{}{})
	}
	return buf, nil
}

// CheckCounts checks that data decodes to lines lines whose lengths, each
// with its newline, account for size bytes (the last line may lack its
// newline).
func CheckCounts(data []byte, lines, size int64) error {
	d := Counts{data: data}
	var n, total int64
	for {
		length, _, ok := d.Next()
		if !ok {
			break
		}
		n++
		total += length + 1
		if total > size+1 {
			return fmt.Errorf("%w: lines longer than the text", ErrTokenIndex)
		}
	}
	if d.Err() {
		return fmt.Errorf("%w: counts do not decode", ErrTokenIndex)
	}
	if n != lines || (total != size && total != size+1) || (lines == 0) != (size == 0) {
		return fmt.Errorf("%w: %d lines of %d bytes, the text has %d lines of %d bytes", ErrTokenIndex, n, total, lines, size)
	}
	return nil
}

// Counts decodes one file's data, line after line.
type Counts struct {
	data []byte
	bad  bool
}

// NewCounts decodes data (TokenIndex.Data).
func NewCounts(data []byte) Counts { return Counts{data: data} }

// Next returns the next line's length and count, -1 when the line was not
// counted. ok is false at the end or on damage (Err).
func (d *Counts) Next() (length int64, count int, ok bool) {
	if len(d.data) == 0 || d.bad {
		return 0, 0, false
	}
	l, n := binary.Uvarint(d.data)
	if n <= 0 {
		d.bad = true
		return 0, 0, false
	}
	c, m := binary.Uvarint(d.data[n:])
	if m <= 0 || l > 1<<62 || c > 1<<62 {
		d.bad = true
		return 0, 0, false
	}
	d.data = d.data[n+m:]
	return int64(l), int(c) - 1, true
}

// Err reports whether the data ended in damage.
func (d *Counts) Err() bool { return d.bad }
