package tokens

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/repoprep/repoprep/internal/cachedir"
)

// This file keeps the tables of vocab.go in a file, so that only the first
// process of an executable builds them (0.4–0.5 s of one core, and the
// codec's 25 MB map it reads the ranks from) and the next ones read 20 MB
// back instead: a cron refresh that counts one edited file no longer
// spends most of its time on the tables.
//
// The file is only ever read by the executable that wrote it: its name
// and its header carry a key made of the executable's identity (device,
// inode, size, modification and change times), so a new build, whatever
// its table code, never reads an old build's tables. A CRC-32C over the
// whole file catches a torn or damaged one; anything that does not check
// out is ignored and the tables are built as if there were no file. The
// directory is the user's own (like the fingerprint key), so the tables
// are trusted as the executable itself is.
//
// Layout, integers little-endian uint64 unless said otherwise:
//
//	magic (32 bytes), key (32 bytes), pairSh, reachable,
//	the byte length of each of the numSections tables,
//	the tables in that order, each padded to 8 bytes,
//	CRC-32C of everything before it.

const (
	tablesMagic = "repoprep o200k tables v1\n"
	headerSize  = 32 + 32 + 8*(2+numSections)
	numSections = 7
	// maxTablesFile bounds what a load reads: the tables are about 20 MB.
	maxTablesFile = 64 << 20
	// keepTables is how many table files (of different executables) a
	// directory keeps: two builds used in turn must not evict each other.
	keepTables = 4
)

var tableCache struct {
	sync.Mutex
	dir string
}

// UseCache makes this process load the tables Count needs from a file in
// dir that an earlier process of the same executable wrote, or write one
// there once it has built them. "" (the default) builds them every time
// and writes nothing. It takes effect only if called before the tables
// are first needed (the first Count or Warm). A directory that cannot be
// read or written only costs the build.
func UseCache(dir string) {
	tableCache.Lock()
	tableCache.dir = dir
	tableCache.Unlock()
}

func cacheDir() string {
	tableCache.Lock()
	defer tableCache.Unlock()
	return tableCache.dir
}

// cachedVocab returns the tables from dir's file for this executable, or
// nil if there is none that checks out.
func cachedVocab(dir string) *vocab {
	key, ok := tablesKey()
	if !ok {
		return nil
	}
	v, err := loadTables(tablesPath(dir, key), key)
	if err != nil {
		return nil
	}
	return v
}

// saveVocab writes v's tables to dir for the next process of this
// executable, and removes all but the newest keepTables table files
// there. Failing is harmless: the next process builds them again.
func saveVocab(dir string, v *vocab) error {
	key, ok := tablesKey()
	if !ok {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "o200k-*.tmp")
	if err != nil {
		return err
	}
	err = writeTables(f, v, key)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), tablesPath(dir, key))
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	pruneTables(dir)
	return nil
}

func tablesPath(dir string, key [32]byte) string {
	return filepath.Join(dir, fmt.Sprintf("o200k-%x.tables", key[:8]))
}

// tablesKey is the running executable's identity, hashed with the format
// and the architecture, or false when it cannot be had.
func tablesKey() (key [32]byte, ok bool) {
	exe, err := os.Executable()
	if err != nil {
		return key, false
	}
	id, ok := cachedir.PathIdentity(exe)
	if !ok {
		return key, false
	}
	return sha256.Sum256([]byte(tablesMagic + runtime.GOOS + "/" + runtime.GOARCH + "\x00" + exe + "\x00" + id)), true
}

// pruneTables removes the oldest table files in dir beyond keepTables,
// and temporary ones an interrupted write left an hour or more ago.
func pruneTables(dir string) {
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			name := e.Name()
			if !strings.HasPrefix(name, "o200k-") || !strings.HasSuffix(name, ".tmp") || !e.Type().IsRegular() {
				continue
			}
			if info, err := e.Info(); err == nil && info.ModTime().Unix() < time.Now().Unix()-3600 {
				os.Remove(filepath.Join(dir, name))
			}
		}
	}
	cachedir.KeepNewest(dir, keepTables, func(name string) bool {
		return strings.HasPrefix(name, "o200k-") && strings.HasSuffix(name, ".tables")
	})
}

// sections returns v's tables as bytes, in the file's order.
func (v *vocab) sections() [numSections][]byte {
	return [numSections][]byte{
		asBytes(v.nodes), asBytes(v.bitmaps), asBytes(v.depth2), asBytes(v.toks),
		asBytes(v.tag2), asBytes(v.pairs), asBytes(v.pairBloom),
	}
}

func asBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

func pad8(n int) int { return (n + 7) &^ 7 }

// writeTables writes v's tables, keyed by key, to w.
func writeTables(w io.Writer, v *vocab, key [32]byte) error {
	crc := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	out := io.MultiWriter(w, crc)
	head := make([]byte, headerSize)
	copy(head, tablesMagic)
	copy(head[32:], key[:])
	binary.LittleEndian.PutUint64(head[64:], uint64(v.pairSh))
	binary.LittleEndian.PutUint64(head[72:], uint64(v.reachable))
	secs := v.sections()
	for i, s := range secs {
		binary.LittleEndian.PutUint64(head[80+8*i:], uint64(len(s)))
	}
	if _, err := out.Write(head); err != nil {
		return err
	}
	var zeros [8]byte
	for _, s := range secs {
		if _, err := out.Write(s); err != nil {
			return err
		}
		if _, err := out.Write(zeros[:pad8(len(s))-len(s)]); err != nil {
			return err
		}
	}
	binary.LittleEndian.PutUint64(zeros[:], uint64(crc.Sum32()))
	_, err := w.Write(zeros[:])
	return err
}

// loadTables reads the tables from the file at path, which must carry key.
func loadTables(path string, key [32]byte) (*vocab, error) {
	f, err := openTables(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := info.Size()
	if !info.Mode().IsRegular() || size < headerSize+8 || size > maxTablesFile || size%8 != 0 {
		return nil, errors.New("not a tables file")
	}
	// Off the heap, as built tables are (see offHeap): 20 MB more live
	// heap would let the collector grow the heap by as much again.
	mem, mapped := offHeap[uint64](int(size / 8))
	buf := asBytes(mem)
	v := &vocab{}
	if mapped != nil {
		v.mapped = append(v.mapped, mapped)
	}
	if _, err := io.ReadFull(f, buf); err != nil {
		v.release()
		return nil, err
	}
	if err := v.parseTables(buf, key); err != nil {
		v.release()
		return nil, err
	}
	return v, nil
}

// parseTables points v's tables into buf, a whole tables file, after
// checking its magic, key, checksum and every table's size.
func (v *vocab) parseTables(buf []byte, key [32]byte) error {
	if len(buf) < headerSize+8 || len(buf)%8 != 0 || uintptr(unsafe.Pointer(unsafe.SliceData(buf)))%8 != 0 {
		return errors.New("tables: bad size or alignment")
	}
	if string(buf[:len(tablesMagic)]) != tablesMagic || [32]byte(buf[32:64]) != key {
		return errors.New("tables: another format or another executable's")
	}
	body := buf[:len(buf)-8]
	if crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)) != uint32(binary.LittleEndian.Uint64(buf[len(body):])) {
		return errors.New("tables: checksum mismatch")
	}
	v.pairSh = uint(binary.LittleEndian.Uint64(buf[64:]))
	v.reachable = int(binary.LittleEndian.Uint64(buf[72:]))
	var secs [numSections][]byte
	off := headerSize
	for i := range secs {
		n := binary.LittleEndian.Uint64(buf[80+8*i:])
		if n > uint64(len(body)-off) || pad8(int(n)) > len(body)-off {
			return fmt.Errorf("tables: table %d overruns the file", i)
		}
		secs[i] = body[off : off+int(n)]
		off += pad8(int(n))
	}
	if off != len(body) {
		return errors.New("tables: bytes after the last table")
	}
	if err := errors.Join(
		view(&v.nodes, secs[0], -1),
		view(&v.bitmaps, secs[1], -1),
		view(&v.depth2, secs[2], 1<<16),
		view(&v.toks, secs[3], numTokens),
		view(&v.tag2, secs[4], 1<<16),
		view(&v.pairs, secs[5], -1),
		view(&v.pairBloom, secs[6], -1),
	); err != nil {
		return err
	}
	if len(v.nodes) < 257 || len(v.pairs) < 2 || len(v.pairs)&(len(v.pairs)-1) != 0 ||
		v.pairSh != uint(64-bits.TrailingZeros(uint(len(v.pairs)))) ||
		len(v.pairBloom)*64 != len(v.pairs)<<pairBloomExtraBits {
		return errors.New("tables: inconsistent sizes")
	}
	return nil
}

// view points *dst at b, which must hold a whole number of Ts: want of
// them, unless want is -1.
func view[T any](dst *[]T, b []byte, want int) error {
	size := int(unsafe.Sizeof(*new(T)))
	if len(b)%size != 0 || (want >= 0 && len(b)/size != want) {
		return fmt.Errorf("tables: %d bytes is not a table of %T", len(b), *new(T))
	}
	if len(b) == 0 {
		*dst = nil
		return nil
	}
	*dst = unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size)
	return nil
}
