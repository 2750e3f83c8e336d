package textenc

import (
	"bytes"
	"reflect"
	"testing"
)

// TestLowerInto: the eight-byte lower-casing changes exactly the ASCII
// capitals, for every byte value at every place in a word and in the
// tail after the last whole word.
func TestLowerInto(t *testing.T) {
	for c := range 256 {
		for at := range 11 {
			src := []byte("aZ@[`{\x80\xc1\xdaQ\xff")
			src[at] = byte(c)
			want := bytes.Clone(src)
			for i, b := range want {
				if b >= 'A' && b <= 'Z' {
					want[i] = b + 'a' - 'A'
				}
			}
			if got := lowerInto(make([]byte, len(src)), src); !bytes.Equal(got, want) {
				t.Fatalf("lowerInto(%q) = %q, want %q", src, got, want)
			}
		}
	}
}

// declarationsBoth lists head's declarations with markerFrom skipping
// the markers declaredLabelAt refuses on sight, and with every marker
// searched (the reference).
func declarationsBoth(head []byte, name string) (skipping, every []declaration) {
	skipping = findDeclarations(head, name)
	searchEveryMarker = true
	defer func() { searchEveryMarker = false }()
	return skipping, findDeclarations(head, name)
}

// TestMarkersSkipped: skipping a "coding" past the coding lines and a
// "set" not in capitals finds what searching for every marker finds: on
// heads whose declarations sit after such markers, next to them, inside
// each other, and on GOROOT/src's heads.
func TestMarkersSkipped(t *testing.T) {
	heads := []string{
		"1\n2\n3\n4\n5\n# -*- coding: latin-1 -*-\n<meta charset=\"big5\">\n",
		"# coding=latin-1\n# vim: set fileencoding=cp1252\n",
		"offset reset settings\nSET ISO8859-2\n",
		"set\nSET KOI8-R\n charset=utf-8 \n",
		"scriptencoding cp936\ncodingcoding: x\n",
		"<?xml version=\"1.0\" encoding=\"ISO-8859-7\"?>\n<p>set</p>\n",
		"a\nb\nc\nd\ne coding: koi8-r\nf coding: cp1251\n",
		"LanguageCodePage=1257\n#pragma code_page(1252)\n@charset \"euc-kr\";\n",
		"SETSET ISO8859-1\nsetcoding:latin1\n",
	}
	if files, err := gorootFilesHead(); err == nil {
		for _, f := range files {
			heads = append(heads, string(f[:min(len(f), declHeadBytes)]))
		}
	}
	for i, h := range heads {
		got, want := declarationsBoth([]byte(h), "x.txt")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("head %d (%.60q): %+v, every marker searched gives %+v", i, h, got, want)
		}
	}
}

// FuzzMarkersSkipped: see TestMarkersSkipped.
func FuzzMarkersSkipped(f *testing.F) {
	for _, s := range []string{"# coding: latin-1\n", "1\n2\n3\n4\n5\n6 coding=cp1252\n", "SET ISO8859-1\n", "set\nSET KOI8-R\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, head string) {
		if len(head) > 2*declHeadBytes {
			return // findDeclarations reads declHeadBytes
		}
		got, want := declarationsBoth([]byte(head), "x.txt")
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%+v, every marker searched gives %+v", got, want)
		}
	})
}
