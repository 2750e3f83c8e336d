package serve

import (
	"strconv"

	"github.com/repoprep/repoprep/internal/jsonstr"
)

// A read's answer is its text twice: as the text content and, cut per
// file, as files[].text in structuredContent. encoding/json escapes each
// string one byte at a time through reflection; here the text is escaped
// once, in runs of bytes that need no escape, and each file's part of the
// structured content is that escaped text's slice (escaping works
// character by character and the files' parts end at newlines, so the
// parts' escapes are slices of the whole's). The bytes are those
// json.Marshal writes (TestEncodeReadResult, FuzzAppendJSONString).

// appendJSONString appends s as json.Marshal writes a string (HTML
// escaping on).
func appendJSONString(b []byte, s string) []byte { return jsonstr.Append(b, s, true) }

// appendReadResult appends r as json.Marshal writes it. escaped is the
// answer's text as appendJSONStringCuts wrote it and ends where each
// file's part of it ends there: file i's text is escaped[ends[i-1]:ends[i]]
// (from 1, after the opening quote, for the first).
func appendReadResult(b []byte, r *ReadFileResult, escaped []byte, ends []int) []byte {
	b = append(b, `{"files":`...)
	if r.Files == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
	}
	pos := 1
	for i := range r.Files {
		f := &r.Files[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"path":`...)
		b = appendJSONString(b, f.Path)
		if f.DuplicateOf != "" {
			b = append(b, `,"duplicate_of":`...)
			b = appendJSONString(b, f.DuplicateOf)
		}
		b = append(b, `,"total_lines":`...)
		b = strconv.AppendInt(b, int64(f.TotalLines), 10)
		b = append(b, `,"shown":`...)
		b = appendRanges(b, f.Shown)
		if f.Next != 0 {
			b = append(b, `,"next":`...)
			b = strconv.AppendInt(b, int64(f.Next), 10)
		}
		if f.Cut != "" {
			b = append(b, `,"cut":`...)
			b = appendJSONString(b, f.Cut)
		}
		if f.NotRead {
			b = append(b, `,"not_read":true`...)
		}
		if f.Error != "" {
			b = append(b, `,"error":`...)
			b = appendJSONString(b, f.Error)
		}
		if f.Encoding != "" {
			b = append(b, `,"encoding":`...)
			b = appendJSONString(b, f.Encoding)
		}
		b = append(b, `,"text":"`...)
		b = append(b, escaped[pos:ends[i]]...)
		b = append(b, `"}`...)
		pos = ends[i]
	}
	if r.Files != nil {
		b = append(b, ']')
	}
	b = append(b, `,"budget_tokens":`...)
	b = strconv.AppendInt(b, int64(r.BudgetTokens), 10)
	b = append(b, `,"tokens":`...)
	b = strconv.AppendInt(b, int64(r.Tokens), 10)
	if r.Cut {
		b = append(b, `,"cut":true`...)
	} else {
		b = append(b, `,"cut":false`...)
	}
	if r.Failed != 0 {
		b = append(b, `,"failed":`...)
		b = strconv.AppendInt(b, int64(r.Failed), 10)
	}
	return append(b, '}')
}

// appendRanges appends [][]int as json.Marshal writes it.
func appendRanges(b []byte, rs [][]int) []byte {
	if rs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for j, rg := range rs {
		if j > 0 {
			b = append(b, ',')
		}
		if rg == nil {
			b = append(b, "null"...)
			continue
		}
		b = append(b, '[')
		for k, v := range rg {
			if k > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(v), 10)
		}
		b = append(b, ']')
	}
	return append(b, ']')
}

// readResultCuts returns where each file's text ends in text, when the
// files' texts are text's consecutive parts, as readFile makes them.
func readResultCuts(r *ReadFileResult, text string) ([]int, bool) {
	cuts := make([]int, 0, len(r.Files))
	at := 0
	for i := range r.Files {
		t := r.Files[i].Text
		if at+len(t) > len(text) || text[at:at+len(t)] != t {
			return nil, false
		}
		at += len(t)
		cuts = append(cuts, at)
	}
	return cuts, true
}
