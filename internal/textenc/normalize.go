// Package textenc owns encoding normalization: it decides which charset a
// text file was written in, decodes it to UTF-8 with LF line endings as a
// stream, and refuses a file rather than stage it garbled.
//
// The decision is made once, on a bounded sample (sampleBytes), and the rest
// of the file is decoded as a stream under the same checks, so memory stays
// bounded whatever the file size. Everything here is deterministic: the same
// bytes always give the same Result, the same output and the same error.
package textenc

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"
)

// Result describes one normalized file.
type Result struct {
	Encoding string // detected source charset, lower-case IANA name ("utf-8", "gbk", "big5", ...)
	BOM      bool   // the source started with a byte-order mark (stripped)
	CRLF     bool   // the source had CRLF or lone CR line endings (now LF)
	Lines    int    // lines in the normalized text (a final line without \n counts; empty file = 0)
	Tokens   int    // o200k_base tokens of the normalized text
	Bytes    int64  // bytes written to dst
	// Mojibake: valid UTF-8 whose text looks double-encoded (UTF-8 once
	// read as a legacy charset and saved again). It is staged as written,
	// never refused: the bytes are the author's, and a test file of
	// garbled strings or two odd words in a translation are real content.
	Mojibake bool
	// Replaced counts the U+FFFD written in place of broken double-byte
	// pairs: a GBK or Big5 file whose few characters cut by a line end or
	// an ANSI colour code no decoder reads (brokenpairs.go). 0 for every
	// other file.
	Replaced int
	// Declared is the charset the file names for itself, as written and
	// lower-cased ("latin1", "iso-8859-1", "cp936"): in its head (an HTML
	// meta, an XML prolog, an Emacs or vim coding line, vim's
	// scriptencoding, a po header) or else in its name (the Options.Name
	// "menu_de_de.latin1.vim"). Set only for a file with non-ASCII bytes.
	// A declaration the bytes agree with decides the charset.
	Declared string
	// DeclaredIgnored: the bytes contradict Declared (they do not decode
	// in it, or its text is not plausible, or the file is valid UTF-8 and
	// declares another charset), so detection decided Encoding. A warning
	// for the reader: the file says one thing and is another.
	DeclaredIgnored bool
	// DeclaredInName: Declared decided Encoding, and only the file's name
	// says it (menu_de_de.latin1.vim): evidence about this file, not
	// about the repository's other files.
	DeclaredInName bool
	// Weak: the file's own evidence for its charset is weak (a short or
	// symbols-only text, a runner-up reading about as plausible, or a
	// refusal while some charset reads the bytes cleanly), so a
	// repository prior (Options.Prior) may decide it: another prior may
	// give another result. Never set for valid UTF-8 or a declaration the
	// bytes agree with; set on a refusal too (with the error), and when
	// the locale in the file's name decided it (ByLocale).
	Weak bool
	// ByPrior: Options.Prior decided Encoding in place of the weak choice
	// (or refusal) the file's own evidence gave, or (with Weak false) of a
	// single-byte choice whose reading the prior's, of the same script,
	// nearly equals (Contests).
	ByPrior bool
	// ByLocale: the locale in the file's name (ku_TR.diff, pl_PL.dic)
	// decided Encoding in place of the choice the file's own evidence
	// gave, as a prior would (locale.go): where no repository prior
	// does, or in the prior when it is of the locale's charsets. Weak is
	// then set too: the name is weak evidence, a repository prior
	// decides the file again, and it counts toward none.
	ByLocale bool
}

// Options is what a caller knows about a file beside its bytes.
type Options struct {
	// Name is the file's base name. A charset in it (vim's
	// menu_de_de.latin1.vim, greek_cp1253.vim, ja.sjis.po) is evidence,
	// weighed after a declaration in the file's head; a locale in it
	// (ku_TR.diff, pl_PL.dic, tr.po) is weak evidence (Result.ByLocale).
	Name string
	// NoTokens leaves Result.Tokens at 0, for a caller that will know the
	// count otherwise.
	NoTokens bool
	// Batches, if not nil, counts the text's token batches in place of
	// tokens.CountBytes, so a caller takes more from the count's scan
	// (lineindex.LineCounter: every line's count). Unused with NoTokens.
	Batches BatchCounter
	// Prior is the charset the repository's other files were decided in
	// on strong evidence ("big5"; "" for none): it decides a file whose
	// own evidence is weak (Result.Weak) when the bytes decode cleanly in
	// it and its reading is about as plausible (prior.go). A declaration
	// the bytes agree with still wins; valid UTF-8 is never read as it.
	Prior string
}

// BatchCounter counts a text's token batches in order, for a caller that
// takes more from the scan than the count (lineindex.LineCounter's
// per-line counts). CountBatch must return tokens.CountBytes(b); last
// says no text follows b. A batch ends after a newline (tokens.Cut)
// except in a text with no cut for a MiB, or where the text ends.
type BatchCounter interface {
	CountBatch(b []byte, last bool) int
}

// Refusal reasons, usable with errors.Is; the normalize stage writes the
// reason string ("binary", "undecodable", "invalid-utf8", "mojibake") into
// files.json.
var (
	// ErrBinary means the input is not text at all: NUL bytes, or too many
	// control characters.
	ErrBinary = errors.New("binary")
	// ErrUndecodable means no candidate charset decodes the input cleanly,
	// or the chosen one failed later in the stream.
	ErrUndecodable = errors.New("undecodable")
	// ErrInvalidUTF8 means the input is UTF-8 with a few bytes that are not:
	// a stray Latin-1 byte, a character cut in two. Reading it as a
	// single-byte charset would garble all of its other text.
	ErrInvalidUTF8 = errors.New("invalid-utf8")
	// ErrMojibake means the text decodes but is already garbled, such as
	// UTF-8 that was once read as Latin-1 ("Ã©") or GBK's "锟斤拷".
	ErrMojibake = errors.New("mojibake")
)

const (
	// sampleBytes bounds the look-ahead the decision is made on: large enough
	// for the scorer to see hundreds of characters of any script, small
	// enough that a pool of workers holds little memory.
	sampleBytes = 64 << 10
	// chunkBytes is the read size while streaming after the decision.
	chunkBytes = 32 << 10
	// contextBytes is how much ASCII a deferred sample keeps before its
	// first non-ASCII byte.
	contextBytes = 256
)

// Normalize streams src to dst as clean UTF-8 with LF line endings.
// On a refusal dst may hold partial output; the caller discards it.
// It is safe to call from many goroutines at once on different inputs.
func Normalize(src io.Reader, dst io.Writer) (Result, error) {
	return normalizeWith(src, dst, Options{})
}

// NormalizeUncounted is Normalize without the token count (Result.Tokens
// stays 0): for a caller that will know the count otherwise (a refresh
// whose text turns out to be the one it counted before).
func NormalizeUncounted(src io.Reader, dst io.Writer) (Result, error) {
	return normalizeWith(src, dst, Options{NoTokens: true})
}

// normalizeCounting is Normalize with the token count optional, so the
// benchmarks can show the decoder's own cost beside the tokenizer's.
func normalizeCounting(src io.Reader, dst io.Writer, countTokens bool) (Result, error) {
	return normalizeWith(src, dst, Options{NoTokens: !countTokens})
}

// normalizeWith is Normalize with opts.
func normalizeWith(src io.Reader, dst io.Writer, opts Options) (Result, error) {
	res := Result{Encoding: "utf-8"}
	out := newSink(dst, &res)
	out.skipTokens, out.batches = opts.NoTokens, opts.Batches
	err := normalize(bufio.NewReaderSize(src, sampleBytes), out, &res, opts)
	if err == nil {
		err = out.close()
	}
	return res, err
}

// normalize runs the decision order docs/encoding.md describes on br and
// streams into out; opts.Name is the file's base name, for the charset it
// may declare, and opts.Prior the repository's charset, for a weak choice.
func normalize(br *bufio.Reader, out *sink, res *Result, opts Options) error {
	name := opts.Name
	head, atEOF, err := peek(br)
	if err != nil || len(head) == 0 {
		return err
	}

	// 1. A byte-order mark is the strongest evidence there is.
	if enc, name, n := sniffBOM(head); n > 0 {
		res.Encoding, res.BOM = name, true
		if _, err := br.Discard(n); err != nil {
			return err
		}
		if enc == nil {
			res.Mojibake = isMisreadUTF8Bytes(head)
			out.keepFFFD = true // valid UTF-8 may carry U+FFFD of its own
			return copyUTF8(br, out)
		}
		return decodeStream(br, enc, out)
	}

	// 2. NUL bytes: UTF-16/32 without a BOM, or not text at all.
	if bytes.IndexByte(head, 0) >= 0 {
		c, ok := decideWide(head, atEOF)
		if !ok {
			return ErrBinary
		}
		res.Encoding = c.name
		return decodeStream(br, c.enc, out)
	}

	// 3. A sample that is pure ASCII says nothing about the charset: pass it
	// through and decide where the first non-ASCII byte appears, so a large
	// file whose first 64 KiB are ASCII is still judged on its non-ASCII
	// text. The sample then keeps a little ASCII before that byte, so the
	// scorer sees the word it sits in.
	atStart := true
	var decls []declaration // what the file's head and name declare, read before the head is passed on
	for firstNonASCII(head) < 0 {
		if atEOF {
			return out.write(head, true) // ASCII, reported as utf-8
		}
		if atStart {
			decls = findDeclarations(head, name)
		}
		atStart = false
		// A full sample: write all but its last contextBytes.
		n := len(head) - contextBytes
		if err := out.write(head[:n], false); err != nil {
			return err
		}
		if _, err := br.Discard(n); err != nil {
			return err
		}
		if head, atEOF, err = peek(br); err != nil {
			return err
		}
		if i := firstNonASCII(head); i > contextBytes {
			if err := out.write(head[:i-contextBytes], false); err != nil {
				return err
			}
			if _, err := br.Discard(i - contextBytes); err != nil {
				return err
			}
			if head, atEOF, err = peek(br); err != nil {
				return err
			}
		}
	}

	// 4. Valid UTF-8, or a legacy charset: declared and consistent with the
	// bytes, or chosen by detection and scoring.
	if atStart {
		decls = findDeclarations(head, name)
	}
	d := decideDeclared(head, atEOF, atStart, decls)
	d, res.Weak, res.ByPrior = weighPrior(d, head, atEOF, opts.Prior, declaredInName(d, decls, name))
	if !res.ByPrior {
		if ld, ok := weighLocale(d, head, atEOF, name, opts.Prior); ok {
			// Weak evidence: a repository prior decides the file again.
			d, res.Weak, res.ByLocale = ld, true, true
		}
	}
	res.Declared, res.DeclaredIgnored = d.declared, d.declaredIgnored
	res.DeclaredInName = declaredInName(d, decls, name)
	if d.err != nil {
		return d.err
	}
	res.Encoding = d.name
	if d.broken {
		fourByte, err := decodeBroken(br, d.charset, cmp.Or(d.brokenRatio, brokenPairRatio), out)
		res.Replaced = int(out.replaced)
		if fourByte {
			res.Encoding = "gb18030"
		}
		return err
	}
	if d.enc == nil {
		res.Mojibake = d.mojibake
		out.keepFFFD = true
		return copyUTF8(br, out)
	}
	if d.name == "gbk" {
		// GB18030 decodes GBK too; call it gb18030 only if the stream
		// holds one of its four-byte sequences.
		var gb gbScanner
		err := decodeStream(io.TeeReader(br, &gb), d.enc, out)
		if gb.fourByte {
			res.Encoding = "gb18030"
		}
		return err
	}
	return decodeStream(br, d.enc, out)
}

// peek returns up to sampleBytes of look-ahead without consuming it.
func peek(br *bufio.Reader) (head []byte, atEOF bool, err error) {
	head, err = br.Peek(sampleBytes)
	switch {
	case err == io.EOF:
		return head, true, nil
	case err != nil:
		return nil, false, fmt.Errorf("read: %w", err)
	}
	return head, false, nil
}

// firstNonASCII returns the index of the first byte that the ASCII
// pass-through must not handle (a byte >= 0x80, or the escape that starts an
// ISO-2022-JP designation), or -1.
func firstNonASCII(b []byte) int {
	for i := 0; i < len(b); {
		if i+8 <= len(b) {
			// Eight bytes at once: none has its top bit set or is ESC
			// (a zero byte in x^ESC, found by the exact "has zero byte" test).
			x := binary.LittleEndian.Uint64(b[i:])
			esc := x ^ 0x1b1b1b1b1b1b1b1b
			if (x|(esc-0x0101010101010101)&^esc)&0x8080808080808080 == 0 {
				i += 8
				continue
			}
		}
		for end := min(i+8, len(b)); i < end; i++ {
			if c := b[i]; c >= 0x80 || c == 0x1b && isISO2022Escape(b[i:]) {
				return i
			}
		}
	}
	return -1
}

// copyUTF8 streams input that is meant to be UTF-8; out rejects invalid bytes.
func copyUTF8(r io.Reader, out *sink) error {
	return pump(r, out)
}

// decodeStream decodes r with enc as a stream; out rejects the U+FFFD the
// decoder puts in place of bytes it cannot map.
func decodeStream(r io.Reader, enc encoding.Encoding, out *sink) error {
	return pump(transform.NewReader(r, enc.NewDecoder()), out)
}

// pump copies r into out chunk by chunk.
func pump(r io.Reader, out *sink) error {
	buf := out.chunk
	if buf == nil {
		buf = make([]byte, chunkBytes)
	}
	for {
		n, err := r.Read(buf)
		atEOF := err == io.EOF
		if n > 0 || atEOF {
			if werr := out.write(buf[:n], atEOF); werr != nil {
				return werr
			}
		}
		if atEOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
	}
}

// gbScanner follows GB18030's byte structure to notice four-byte sequences,
// the only part of GB18030 that GBK lacks.
type gbScanner struct {
	state    int // 0: between characters; 1: after a lead byte; 2, 3: inside a four-byte sequence
	fourByte bool
}

func (g *gbScanner) Write(p []byte) (int, error) {
	for _, c := range p {
		switch g.state {
		case 0:
			if c > 0x80 && c < 0xff {
				g.state = 1
			}
		case 1:
			if c >= 0x30 && c <= 0x39 {
				g.state = 2
			} else {
				g.state = 0
			}
		case 2:
			g.state = 3
		case 3:
			g.fourByte = true
			g.state = 0
		}
	}
	return len(p), nil
}
