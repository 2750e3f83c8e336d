package dirfd

import (
	"encoding/binary"
	"testing"
	"unicode/utf16"
)

// reparseBuffer lays out a REPARSE_DATA_BUFFER as Windows returns it:
// the substitute name first, then the print name, in PathBuffer.
func reparseBuffer(tag uint32, substitute, print string) []byte {
	sub, pr := utf16.Encode([]rune(substitute)), utf16.Encode([]rune(print))
	le := binary.LittleEndian
	b := le.AppendUint32(nil, tag)
	b = le.AppendUint16(b, 0) // ReparseDataLength: not read
	b = le.AppendUint16(b, 0)
	b = le.AppendUint16(b, 0)                  // SubstituteNameOffset
	b = le.AppendUint16(b, uint16(2*len(sub))) // SubstituteNameLength
	b = le.AppendUint16(b, uint16(2*len(sub))) // PrintNameOffset
	b = le.AppendUint16(b, uint16(2*len(pr)))  // PrintNameLength
	if tag == reparseTagSymlink {
		b = le.AppendUint32(b, 1) // Flags: SYMLINK_FLAG_RELATIVE
	}
	for _, u := range append(sub, pr...) {
		b = le.AppendUint16(b, u)
	}
	return b
}

func TestParseReparse(t *testing.T) {
	for _, tc := range []struct {
		name string
		buf  []byte
		want string
		ok   bool
	}{
		{"relative symlink", reparseBuffer(reparseTagSymlink, `..\lib\a.go`, `..\lib\a.go`), `..\lib\a.go`, true},
		{"absolute symlink", reparseBuffer(reparseTagSymlink, `\??\C:\Users\x`, `C:\Users\x`), `C:\Users\x`, true},
		{"junction, no print name", reparseBuffer(reparseTagMountPoint, `\??\D:\data`, ""), `D:\data`, true},
		{"junction", reparseBuffer(reparseTagMountPoint, `\??\D:\données`, `D:\données`), `D:\données`, true},
		{"not a name surrogate", reparseBuffer(0x9000001A, "x", "x"), "", false}, // a cloud file
		{"short", []byte{0x0C, 0, 0, 0xA0}, "", false},
		{"name past the end", reparseBuffer(reparseTagSymlink, "abc", "abc")[:24], "", false},
	} {
		got, ok := parseReparse(tc.buf)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: parseReparse = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzParseReparse: any buffer is refused or parsed, never a panic.
func FuzzParseReparse(f *testing.F) {
	f.Add(reparseBuffer(reparseTagSymlink, `a\b`, `a\b`))
	f.Add(reparseBuffer(reparseTagMountPoint, `\??\C:\x`, ""))
	f.Fuzz(func(t *testing.T, b []byte) {
		parseReparse(b)
	})
}
