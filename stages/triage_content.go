package stages

import (
	"path"

	"github.com/gabriel-vasile/mimetype"
)

// Triage's decisions by content where a name misleads: empty files that
// carry meaning, .key files that are keys, text that is media.

// reasonMediaText is the reason of text that is media (extensions.toml's
// class for SVG), which triage also gives to a text that is essentially
// one long line of encoded data.
const reasonMediaText = "media-text"

// meaningfulEmpty reports an empty file staged for its name
// (meaningful_empty.txt: __init__.py, py.typed, .gitkeep).
func (e *Env) meaningfulEmpty(rec *Record) bool {
	return rec.Size == 0 && e.Rules.IsMeaningfulEmpty(path.Base(rec.Path))
}

// isZipMime reports a sniffed type that is a zip (or a JAR: a zip whose
// first entry is META-INF/).
func isZipMime(mime string) bool {
	mt := mimetype.Lookup(mime)
	return mt != nil && isZipFamily(mt)
}

// isMediaMime reports a text whose sniffed type a junk class of
// extensions.toml names: an SVG image (image/svg+xml), whatever the file
// is called.
func (e *Env) isMediaMime(mime string) bool {
	c, ok := e.Rules.ByMime(mime)
	return ok && c.Category == "junk" && c.Content == "text"
}

// isDER reports a head that is one ASN.1 DER SEQUENCE spanning exactly the
// file, opening with what keys and certificates open with: a DER private
// key (30 82 len len 02 ...: version INTEGER) or certificate (30 82 len len
// 30 ...). The length must equal the file's size, so a binary that merely
// starts with 0x30 does not pass.
func isDER(head []byte, size int64) bool {
	if len(head) < 3 || head[0] != 0x30 {
		return false
	}
	var n, hdr int
	switch l := head[1]; {
	case l < 0x80:
		n, hdr = int(l), 2
	case l == 0x81 && len(head) >= 4:
		n, hdr = int(head[2]), 3
	case l == 0x82 && len(head) >= 5:
		n, hdr = int(head[2])<<8|int(head[3]), 4
	case l == 0x83 && len(head) >= 6:
		n, hdr = int(head[2])<<16|int(head[3])<<8|int(head[4]), 5
	default:
		return false
	}
	if int64(hdr+n) != size || len(head) <= hdr {
		return false
	}
	switch head[hdr] {
	case 0x02, 0x30, 0x06, 0xa0: // INTEGER, SEQUENCE, OBJECT IDENTIFIER, [0]
		return true
	}
	return false
}

// What makes a text encoded data rather than words: runs of the base64
// alphabet of at least blobRunBytes (a PEM body's 64-byte lines are not
// runs; a data: URI or a base64 blob on one line is) holding upper- and
// lower-case letters and digits (hex test vectors and digits of e hold
// only some), covering three quarters of a head of blobMinBytes or more.
const (
	blobMinBytes = 4 << 10
	blobRunBytes = 256
)

// isEncodedBlob reports a head that is essentially one long line of
// base64: an image or font as a data: URI, a base64 dump. Bounded by the
// head classify read (sniffBytes). It stops as soon as more than a
// quarter of the head is outside such runs: in source text, after a
// quarter of the head.
func isEncodedBlob(head []byte) bool {
	if len(head) < blobMinBytes {
		return false
	}
	lost, run := 0, 0 // lost: bytes outside the runs that count
	var upper, lower, digit bool
	for _, c := range head {
		switch {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9':
			digit = true
		case c == '+' || c == '/' || c == '-' || c == '_' || c == '=':
		default:
			if run < blobRunBytes || !upper || !lower || !digit {
				lost += run
			}
			lost++
			if lost*4 > len(head) {
				return false // runs can't cover three quarters any more
			}
			run, upper, lower, digit = 0, false, false, false
			continue
		}
		run++
	}
	if run < blobRunBytes || !upper || !lower || !digit {
		lost += run
	}
	return lost*4 <= len(head)
}
