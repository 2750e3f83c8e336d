package dirfd

import (
	"encoding/binary"
	"strings"
	"unicode/utf16"
)

// Reparse tags of the name surrogates whose targets parseReparse reads
// (IO_REPARSE_TAG_SYMLINK, IO_REPARSE_TAG_MOUNT_POINT).
const (
	reparseTagSymlink    = 0xA000000C
	reparseTagMountPoint = 0xA0000003
)

// parseReparse reads a Windows symlink's or junction's target from a
// REPARSE_DATA_BUFFER (what FSCTL_GET_REPARSE_POINT returns): its print
// name, or its substitute name without the NT prefix `\??\` when there is
// no print name. ok is false for another tag or a buffer whose offsets
// point outside it. It is plain byte parsing, so it lives here and is
// tested (and fuzzed) on every platform.
func parseReparse(b []byte) (target string, ok bool) {
	le := binary.LittleEndian
	if len(b) < 16 {
		return "", false
	}
	var path int // where PathBuffer starts
	switch le.Uint32(b) {
	case reparseTagSymlink:
		path = 20 // 8 of header, four uint16 offsets and lengths, uint32 flags
	case reparseTagMountPoint:
		path = 16 // no flags
	default:
		return "", false
	}
	if len(b) < path {
		return "", false
	}
	str := func(off, n int) (string, bool) {
		lo, hi := path+off, path+off+n
		if n%2 != 0 || hi > len(b) {
			return "", false
		}
		u := make([]uint16, n/2)
		for i := range u {
			u[i] = le.Uint16(b[lo+2*i:])
		}
		return string(utf16.Decode(u)), true
	}
	if n := int(le.Uint16(b[14:])); n > 0 {
		return str(int(le.Uint16(b[12:])), n)
	}
	s, ok := str(int(le.Uint16(b[8:])), int(le.Uint16(b[10:])))
	return strings.TrimPrefix(s, `\??\`), ok
}
