package extract

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"
)

// textWriter is where every extractor writes. It makes what reaches the
// staged file clean text whatever the document held: valid UTF-8 (bad
// bytes become U+FFFD), no control characters but tab and newline (CR,
// form feed and vertical tab end a line), no BOMs or noncharacters, no
// trailing blanks on a line, at most one blank line in a row, none at the
// start, and a final newline. It stops short of MaxTextBytes (room: the
// limit less markerReserve) with an over-limit refusal, which sticks:
// extractors check Err at their own pace. Extract then cuts the text
// short there (truncate), in the room kept for its closing marker.
type textWriter struct {
	w        io.Writer
	max      int64 // MaxTextBytes: nothing written goes past it
	room     int64 // what the document's own text may take: max less the marker's reserve
	written  int64
	line     []byte // the current line, not yet written
	blank    bool   // a blank line is due before the next text
	started  bool   // some text has been written
	prevCR   bool
	marker   bool  // the current line is a section marker, not content
	content  int64 // bytes of lines that are not markers
	err      error
	writeErr bool // err came from w, not from a limit
}

// markerReserve is the room the text limit keeps for the closing marker
// of a text cut short ("[… rest not extracted: text limit 16777216
// bytes]"): the bytes a longer phrase (one naming a part) is cut to.
const markerReserve = 256

func newTextWriter(w io.Writer, max int64) *textWriter {
	return &textWriter{w: w, max: max, room: max - min(markerReserve, max/2)}
}

// Err is the first error: the text limit, or a failed write.
func (t *textWriter) Err() error { return t.err }

func (t *textWriter) failed() bool { return t.writeErr }

// Text writes s, sanitized; newlines in s end lines.
func (t *textWriter) Text(s string) error {
	for i := 0; i < len(s) && t.err == nil; {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			t.ascii(c)
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		t.prevCR = false
		switch {
		case r == utf8.RuneError && n == 1:
			t.line = utf8.AppendRune(t.line, utf8.RuneError)
		case r >= 0x80 && r < 0xA0, r == 0xFEFF, r&0xFFFE == 0xFFFE, r >= 0xFDD0 && r <= 0xFDEF:
			// C1 controls, byte-order marks and noncharacters say nothing
		case r == 0x2028 || r == 0x2029: // line and paragraph separators
			t.newline()
		default:
			t.line = append(t.line, s[i-n:i]...)
		}
		t.checkLine()
	}
	return t.err
}

func (t *textWriter) ascii(c byte) {
	switch {
	case c == '\n':
		if !t.prevCR {
			t.newline()
		}
		t.prevCR = false
	case c == '\r' || c == '\f' || c == '\v':
		t.newline()
		t.prevCR = c == '\r'
	case c == '\t' || c >= 0x20 && c != 0x7F:
		t.prevCR = false
		t.line = append(t.line, c)
		t.checkLine()
	default: // NUL and the other controls: a document's text never means them
		t.prevCR = false
	}
}

// checkLine stops at a line that would take the text past its room.
func (t *textWriter) checkLine() {
	if t.err == nil && t.written+int64(len(t.line)) > t.room {
		t.err = t.full()
	}
}

// full is the refusal at the text limit.
func (t *textWriter) full() error {
	return cutOff(fmt.Sprintf("rest not extracted: text limit %d bytes", t.max), "more than %d bytes of text", t.max)
}

// newline ends the current line.
func (t *textWriter) newline() {
	if t.err != nil {
		return
	}
	line := bytes.TrimRight(t.line, " \t")
	if len(bytes.TrimLeft(line, " \t")) == 0 {
		t.line = t.line[:0]
		t.blank = t.started
		return
	}
	need := int64(len(line)) + 1
	if t.blank {
		need++
	}
	if t.written+need > t.room {
		// All of a line or none of it. Text stays for truncate to cut; a
		// section marker is dropped: a heading for nothing.
		t.err = t.full()
		if t.marker {
			t.line = t.line[:0]
		}
		return
	}
	t.line = t.line[:0]
	if t.blank {
		t.emit([]byte{'\n'})
		t.blank = false
	}
	t.emit(line)
	t.emit([]byte{'\n'})
	t.started = true
	if !t.marker {
		t.content += int64(len(line))
	}
}

func (t *textWriter) emit(p []byte) {
	if t.err != nil {
		return
	}
	if t.written+int64(len(p)) > t.room {
		t.err = t.full()
		return
	}
	n, err := t.w.Write(p)
	t.written += int64(n)
	if err != nil {
		t.err, t.writeErr = err, true
	}
}

// Line writes s and ends the line.
func (t *textWriter) Line(s string) error {
	t.Text(s)
	t.EndLine()
	return t.err
}

// Linef is Line with formatting.
func (t *textWriter) Linef(format string, args ...any) error {
	return t.Line(fmt.Sprintf(format, args...))
}

// EndLine ends the current line if it holds anything.
func (t *textWriter) EndLine() {
	if len(t.line) > 0 {
		t.newline()
	}
}

// Blank asks for a blank line before whatever comes next.
func (t *textWriter) Blank() {
	t.EndLine()
	t.blank = t.started
}

// Marker starts a section: "--- page 3 ---" on a line of its own, with a
// blank line before it.
func (t *textWriter) Marker(kind string, n int, name string) error {
	t.Blank()
	t.marker = true
	defer func() { t.marker = false }()
	if name != "" {
		return t.Linef("--- %s %d: %s ---", kind, n, oneLine(name))
	}
	return t.Linef("--- %s %d ---", kind, n)
}

// Label writes a section label such as "--- header ---": a marker line
// like "--- slide 3 ---", not content, for a part of a document that has
// no number.
func (t *textWriter) Label(name string) error {
	t.Blank()
	t.marker = true
	defer func() { t.marker = false }()
	return t.Line("--- " + oneLine(name) + " ---")
}

// Heading writes a Markdown heading of level 1-6 between blank lines.
func (t *textWriter) Heading(level int, s string) error {
	s = oneLine(s)
	if s == "" {
		return t.err
	}
	level = max(1, min(level, 6))
	t.Blank()
	t.Line(string(bytes.Repeat([]byte{'#'}, level)) + " " + s)
	t.Blank()
	return t.err
}

// Close ends the last line.
func (t *textWriter) Close() error {
	t.EndLine()
	return t.err
}

// wrote reports whether any text but section markers came in: written,
// or in the line in progress.
func (t *textWriter) wrote() bool {
	return t.content > 0 || !t.marker && len(bytes.TrimSpace(t.line)) > 0
}

// truncate ends a text cut short at a work limit, the limit's refusal in
// Err: what fits of the line in progress is written, then a closing
// marker line "[… <left>]" after a blank one, in the room the text limit
// kept for it (the phrase is cut to fit). Its error is a failed write.
func (t *textWriter) truncate(left string) error {
	if t.writeErr {
		return t.err
	}
	t.err, t.prevCR, t.marker = nil, false, false
	if len(t.line) > 0 {
		fit := t.room - t.written - 1 // the line's newline
		if t.blank {
			fit--
		}
		t.line = cutUTF8(t.line, fit)
		t.newline()
	}
	t.room = t.max
	const open, close = "[… ", "]"
	phrase := oneLine(left)
	fit := t.max - t.written - 2 - int64(len(open)+len(close)) // a blank line before, a newline after
	if fit < int64(len("…")) {
		return nil // a limit too small for any marker: Meta.Truncated still says it
	}
	if int64(len(phrase)) > fit {
		phrase = string(cutUTF8([]byte(phrase), fit-int64(len("…")))) + "…"
	}
	t.Blank()
	t.marker = true
	t.Line(open + phrase + close)
	t.marker = false
	if t.writeErr {
		return t.err
	}
	return nil
}

// cutUTF8 is the longest prefix of p of at most n bytes that does not end
// inside a character.
func cutUTF8(p []byte, n int64) []byte {
	if n <= 0 {
		return p[:0]
	}
	if int64(len(p)) <= n {
		return p
	}
	i := int(n)
	for i > 0 && !utf8.RuneStart(p[i]) {
		i--
	}
	return p[:i]
}
