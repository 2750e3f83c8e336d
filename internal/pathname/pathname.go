// Package pathname decides which relative paths a snapshot may hold. The
// scan calls a file whose path fails Check "unsafe-name" and never stages
// it; the read server refuses a requested path that fails Check before it
// touches the disk. One function on both sides means a staged file is
// always servable and the server never has to trust files.json's spelling.
package pathname

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxBytes is PATH_MAX: no staged file can have a longer path.
const MaxBytes = 4096

// ErrTooLong is the one problem that says nothing about the spelling: the
// scan leaves it to the write (reason path-too-long), the server refuses.
var ErrTooLong = errors.New("path too long")

// Error says why a path was refused: the path as given, the decoded form
// that showed the problem (empty when the literal path did) and why.
type Error struct {
	Path    string
	Decoded string
	Why     string
	err     error // ErrTooLong, for errors.Is
}

func (e *Error) Error() string {
	if e.Decoded != "" {
		return fmt.Sprintf("%q: decodes to %q: %s", e.Path, e.Decoded, e.Why)
	}
	return fmt.Sprintf("%q: %s", e.Path, e.Why)
}

func (e *Error) Unwrap() error { return e.err }

// maxDecodeRounds bounds how often a path is percent-decoded and
// NFKC-folded: %252e needs two rounds to become "."; nothing legitimate
// needs more than a few, and the bound keeps hostile input cheap.
const maxDecodeRounds = 4

// Check returns nil when p is a plain relative path with '/' separators
// that names a file inside a tree: not empty, not absolute, no drive
// letter, no empty, "." or ".." segment, no trailing '/', valid UTF-8
// without NUL, control or bidirectional-control characters or backslashes,
// at most MaxBytes long. A path that only becomes one of these once a
// client or proxy percent-decodes it (%2e%2e%2f, also doubly encoded) or
// folds it with NFKC (full-width ．．／) is refused as well: it is not what
// a well-behaved writer produces, and it is what an attack looks like. A
// path Check accepts is always filepath.IsLocal. Safe for concurrent use.
func Check(p string) error {
	if why, err := plainProblem(p); why != "" {
		return &Error{Path: p, Why: why, err: err}
	}
	if isPlainASCII(p) {
		return nil // neither decoding nor folding can change it
	}
	seen := map[string]bool{p: true}
	frontier := []string{p}
	for range maxDecodeRounds {
		var next []string
		for _, s := range frontier {
			for _, alt := range []string{unescape(s), norm.NFKC.String(s)} {
				if seen[alt] {
					continue
				}
				seen[alt] = true
				if why, _ := plainProblem(alt); why != "" {
					return &Error{Path: p, Decoded: alt, Why: why}
				}
				next = append(next, alt)
			}
		}
		if len(next) == 0 {
			break
		}
		frontier = next
	}
	return nil
}

// isPlainASCII reports printable ASCII without '%': NFKC and percent
// decoding leave such a string as it is.
func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '%' {
			return false
		}
	}
	return true
}

// unescape decodes every well-formed %XX and leaves the rest as it is, so a
// stray "%zz" elsewhere cannot hide a "%2e%2e" (url.PathUnescape gives up on
// the whole string at the first bad escape).
func unescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f'
}

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}

// plainProblem says what is wrong with p as a literal path, or "".
func plainProblem(p string) (string, error) {
	switch {
	case p == "":
		return "empty path", nil
	case len(p) > MaxBytes:
		return "path too long", ErrTooLong
	case !utf8.ValidString(p):
		return "not valid UTF-8", nil
	case p[0] == '/':
		return "absolute path; give it relative to the snapshot root, as list_files shows it", nil
	case len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]):
		return "drive-letter path; give it relative to the snapshot root", nil
	case strings.HasSuffix(p, "/"):
		return "names a directory; use list_files with this prefix", nil
	}
	for _, r := range p {
		switch {
		case r == 0:
			return "contains NUL", nil
		case r == '\\':
			return "contains a backslash; the separator is /", nil
		case unicode.IsControl(r):
			return "contains a control character", nil
		case unicode.Is(unicode.Bidi_Control, r):
			// U+202E and friends reorder what a reader sees: "txt.exe"
			// displayed as "exe.txt".
			return "contains a bidirectional control character", nil
		}
	}
	for seg := range strings.SplitSeq(p, "/") {
		switch seg {
		case "":
			return "empty path segment (//)", nil
		case "..":
			return "'..' segment: paths stay inside the snapshot", nil
		case ".":
			return "'.' segment", nil
		}
	}
	return "", nil
}

func isASCIILetter(b byte) bool { return 'a' <= b|0x20 && b|0x20 <= 'z' }
