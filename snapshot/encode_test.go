package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"testing"
)

// jsonEntry is the reference: e as encoding/json writes it in files.json.
func jsonEntry(t testing.TB, e *Entry) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	if err := enc.Encode(e); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// trickyStrings are what JSON must escape, or must not.
var trickyStrings = []string{"", "plain", `a"b\c`, "tab\tnl\ncr\rbs\bff\f", "\x00\x01\x1f\x7f", "<a href='x'>&amp;</a>",
	"caf\xe9", "\xff\xfe", "line\u2028para\u2029", "日本語 ✓ 😀", "\xed\xa0\x80", "trail\xe2\x80"}

// TestAppendEntryMatchesJSON: appendEntry writes what encoding/json writes
// for an entry, for every field set (through reflection: a field added to
// Entry and not to appendEntry fails here), every field empty, and every
// tricky string in every string field.
func TestAppendEntryMatchesJSON(t *testing.T) {
	var entries []Entry
	full := Entry{}
	v := reflect.ValueOf(&full).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); f.Kind() {
		case reflect.String:
			f.SetString(fmt.Sprintf("v%d", i))
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(1000 + i))
		case reflect.Bool:
			f.SetBool(true)
		default:
			t.Fatalf("Entry.%s: a %s; appendEntry knows strings, ints and bools", v.Type().Field(i).Name, f.Kind())
		}
	}
	entries = append(entries, full, Entry{}, Entry{Size: -1, Lines: -2})
	for _, s := range trickyStrings {
		e := full
		ev := reflect.ValueOf(&e).Elem()
		for i := range ev.NumField() {
			if f := ev.Field(i); f.Kind() == reflect.String {
				f.SetString(s)
			}
		}
		entries = append(entries, e)
	}
	for _, e := range entries {
		if got, want := "    "+string(appendEntry(nil, &e)), "    "+jsonEntry(t, &e); got != want {
			t.Errorf("appendEntry(%+v):\n%s\nencoding/json:\n%s", e, got, want)
		}
	}
}

// BenchmarkWriteManifest: files.json for 10,000 entries, by the writer and
// by encoding/json over the same manifest (the baseline it replaced).
func BenchmarkWriteManifest(b *testing.B) {
	m := &Manifest{Schema: FilesSchema, Pruned: []Pruned{{Path: ".git", Reason: "excluded-dir"}}}
	for i := range 10000 {
		m.Files = append(m.Files, Entry{
			Path: fmt.Sprintf("pkg/sub%d/file_%d.go", i%97, i), Size: int64(i * 37), Category: "source", Mime: "text/plain; charset=utf-8",
			Language: "Go", Encoding: "utf-8", Lines: i % 500, Tokens: i * 3, Staged: true, Hash: fmt.Sprintf("blake3:%064x", i),
		})
	}
	for _, c := range []struct {
		name  string
		write func(io.Writer, *Manifest) error
	}{
		{"writer", WriteManifest},
		{"encoding-json", func(w io.Writer, m *Manifest) error { return EncodeJSON(w, m) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			var out bytes.Buffer
			for b.Loop() {
				out.Reset()
				if err := c.write(&out, m); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(out.Len()))
		})
	}
}
