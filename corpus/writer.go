package corpus

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	pqzstd "github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/zeebo/blake3"
)

// Where the table is cut, in rows and staged bytes, so its files are a
// function of the rows alone: a row group closes at rowGroupRows rows or
// rowGroupBytes of content, whichever comes first, and a part file at
// partBytes of content (a row is never split). Tests shrink them.
// A row group is held in memory until it is written whole (flushGroup).
var (
	rowGroupRows  = 10_000
	rowGroupBytes = int64(32 << 20)
	partBytes     = int64(512 << 20)
	// arenaBytes is the room for one row group's texts: rowGroupBytes,
	// and the largest text that closes a group beside it (2 MiB by
	// default, --max-text-bytes; a larger one is copied).
	arenaBytes = rowGroupBytes + 4<<20
)

// tableWriter writes rows into part files in a directory, one format.
// Everything it writes depends on the rows and the version only: no
// times, no host, one compression thread.
type tableWriter struct {
	dir, format, version string
	parts                []PartFile

	f         *os.File
	hash      *blake3.Hasher
	bw        *bufio.Writer
	pq        *parquet.GenericWriter[Row]
	zw        *zstd.Encoder
	je        *json.Encoder
	rows      int   // in the open part
	bytes     int64 // of content in the open part
	group     []Row // the open row group, written whole (see flushGroup)
	groupSize int64
	// arena holds the open row group's texts, which its rows' Content
	// point into (content): the library copies each value as the group
	// is written, so the arena is reused for the next group, not
	// allocated (and, on a fresh page, faulted in) again text by text.
	// JSON Lines encodes each row as it comes and reuses it at once.
	arena []byte
}

// space is room for a text of size bytes (and the byte more a read
// takes to see it grow) at the end of the arena, or nil to make the
// reader allocate when the arena cannot take it. The arena starts small
// and doubles up to arenaBytes; one it outgrew stays alive only as long
// as the open group's rows point into it.
func (t *tableWriter) space(size int64) []byte {
	if t.format == FormatJSONL {
		t.arena = t.arena[:0]
	}
	need := size + 1
	if int64(cap(t.arena)-len(t.arena)) < need {
		if need > arenaBytes || cap(t.arena) == int(arenaBytes) {
			return nil
		}
		t.arena = make([]byte, 0, min(arenaBytes, max(need, 2*int64(cap(t.arena)), 64<<10)))
	}
	return t.arena[len(t.arena):len(t.arena)]
}

// content is text as a row's Content. A text read into space's room is
// taken into the arena without a copy; any other is copied.
func (t *tableWriter) content(text []byte) string {
	end := len(t.arena)
	if len(text) == 0 || cap(t.arena) == end || &text[0] != &t.arena[:end+1][end] {
		return string(text)
	}
	t.arena = t.arena[:end+len(text)]
	return unsafe.String(&text[0], len(text))
}

func newTableWriter(dir, format, version string) *tableWriter {
	return &tableWriter{dir: dir, format: format, version: version}
}

// partName is the name of part i: part-00000.parquet, part-00000.jsonl.zst.
func partName(format string, i int) string {
	if format == FormatJSONL {
		return fmt.Sprintf("part-%05d.jsonl.zst", i)
	}
	return fmt.Sprintf("part-%05d.parquet", i)
}

// write adds row, opening a part first when none is open.
func (t *tableWriter) write(row *Row) error {
	if t.f == nil {
		if err := t.open(); err != nil {
			return err
		}
	}
	size := int64(len(row.Content))
	switch t.format {
	case FormatJSONL:
		if err := t.je.Encode(row); err != nil {
			return err
		}
	default:
		t.group = append(t.group, *row)
		t.groupSize += size
		if len(t.group) >= rowGroupRows || t.groupSize >= rowGroupBytes {
			if err := t.flushGroup(); err != nil {
				return err
			}
		}
	}
	t.rows++
	t.bytes += size
	if t.bytes >= partBytes {
		return t.closePart()
	}
	return nil
}

// flushGroup writes the open row group in one call: the library makes a
// page of each call's values, and row by row the content column compressed
// to 90% of its size where one call gets 30%.
func (t *tableWriter) flushGroup() error {
	if len(t.group) == 0 {
		return nil
	}
	if _, err := t.pq.Write(t.group); err != nil {
		return err
	}
	clear(t.group) // the texts are the library's now; drop ours
	t.group, t.groupSize, t.arena = t.group[:0], 0, t.arena[:0]
	return t.pq.Flush()
}

func (t *tableWriter) open() error {
	name := partName(t.format, len(t.parts))
	f, err := os.OpenFile(filepath.Join(t.dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	t.f, t.hash = f, blake3.New()
	t.bw = bufio.NewWriterSize(io.MultiWriter(f, t.hash), 1<<20)
	t.rows, t.bytes, t.group, t.groupSize = 0, 0, t.group[:0], 0
	switch t.format {
	case FormatJSONL:
		t.zw, err = zstd.NewWriter(t.bw, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))
		if err != nil {
			return err
		}
		t.je = json.NewEncoder(t.zw)
		t.je.SetEscapeHTML(false)
	default:
		t.pq = parquet.NewGenericWriter[Row](t.bw,
			// Not parquet.CreatedBy, which writes "version v1(build )":
			// the convention is "app version V (build B)", and there is no
			// build but the version.
			&parquet.WriterConfig{CreatedBy: "repoprep version " + t.version},
			parquet.Compression(&pqzstd.Codec{Level: pqzstd.SpeedDefault, Concurrency: 1}),
		)
	}
	t.parts = append(t.parts, PartFile{Name: name})
	return nil
}

// closePart finishes the open part and records its rows, size and hash.
func (t *tableWriter) closePart() error {
	var err error
	switch t.format {
	case FormatJSONL:
		err = t.zw.Close()
		t.zw, t.je = nil, nil
	default:
		err = t.flushGroup()
		if cerr := t.pq.Close(); err == nil {
			err = cerr
		}
		t.pq = nil
	}
	if err == nil {
		err = t.bw.Flush()
	}
	if err == nil {
		err = t.f.Sync()
	}
	var info os.FileInfo
	if err == nil {
		info, err = t.f.Stat()
	}
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	t.f = nil
	if err != nil {
		return err
	}
	p := &t.parts[len(t.parts)-1]
	p.Rows, p.Bytes, p.Hash = t.rows, info.Size(), hashPrefix+hex.EncodeToString(t.hash.Sum(nil))
	return nil
}

// close finishes the last part and returns every part. A corpus with no
// rows still has one, empty part, so a reader finds the table's schema.
func (t *tableWriter) close() ([]PartFile, error) {
	if t.f == nil && len(t.parts) == 0 {
		if err := t.open(); err != nil {
			return nil, err
		}
	}
	if t.f != nil {
		if err := t.closePart(); err != nil {
			return nil, err
		}
	}
	return t.parts, nil
}

// abort closes what is open after a failure; the pending directory is
// discarded with it.
func (t *tableWriter) abort() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
}
