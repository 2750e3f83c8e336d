package jsonstr

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/repoprep/repoprep/internal/testkit"
)

// encodingJSON is what encoding/json writes for s, HTML escaping on or
// off: the reference both modes must equal.
func encodingJSON(t *testing.T, s string, html bool) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

var tricky = []string{
	"", "plain", "<a & b>", "\"\\\b\f\n\r\t\x00\x1f\x7f", "\u2028\u2029", "\xff\xfe",
	"中文\xe4\xb8", "é\u0085", "a\u2028b<script>", "\xed\xa0\x80", "\xf4\x90\x80\x80",
}

func TestAppend(t *testing.T) {
	for _, s := range tricky {
		for _, html := range []bool{false, true} {
			if got, want := string(Append(nil, s, html)), encodingJSON(t, s, html); got != want {
				t.Errorf("Append(%q, html=%v) = %s, encoding/json: %s", s, html, got, want)
			}
		}
	}
	// Appending keeps what b held.
	if got := string(Append([]byte("x:"), "<", false)); got != `x:"<"` {
		t.Errorf("Append onto a prefix = %s", got)
	}
}

// FuzzAppend: any string, in either mode, cut anywhere at character
// boundaries, is escaped as encoding/json escapes it, and the cut offsets
// are where the escapes of its prefixes end.
func FuzzAppend(f *testing.F) {
	for _, s := range tricky {
		f.Add(s, uint(3), false)
		f.Add(s, uint(1), true)
	}
	f.Fuzz(func(t *testing.T, s string, step uint, html bool) {
		var cuts []int
		for i := 0; step > 0 && i < len(s); i += int(step%64) + 1 {
			for i < len(s) && !utf8.RuneStart(s[i]) {
				i++
			}
			cuts = append(cuts, i)
		}
		got, at := AppendCuts(nil, s, html, cuts, nil)
		if want := encodingJSON(t, s, html); string(got) != want {
			t.Fatalf("%q html=%v: got %s, want %s", s, html, got, want)
		}
		if len(at) != len(cuts) {
			t.Fatalf("%d cuts, %d offsets", len(cuts), len(at))
		}
		for k, c := range cuts {
			prefix := encodingJSON(t, s[:c], html)
			if utf8.ValidString(s[:c]) && utf8.ValidString(s[c:]) && at[k] != len(prefix)-1 {
				t.Fatalf("%q cut at %d: escape ends at %d, want %d", s, c, at[k], len(prefix)-1)
			}
		}
	})
}

// BenchmarkAppend: a 64 KiB source text, mostly plain, escaped with HTML
// escaping on (the read server's mode), beside encoding/json; and Go's
// net/http/server.go as it is (GOROOT's, when there).
func BenchmarkAppend(b *testing.B) {
	line := "\tif x < 10 && y > 2 { fmt.Println(\"héllo\\n\") }\n"
	s := string(bytes.Repeat([]byte(line), 65536/len(line)))
	if root, err := testkit.GoRoot(); err == nil {
		if real, err := os.ReadFile(filepath.Join(root, "src", "net", "http", "server.go")); err == nil {
			b.Run("server.go", func(b *testing.B) {
				b.SetBytes(int64(len(real)))
				buf := make([]byte, 0, 2*len(real))
				for b.Loop() {
					buf = Append(buf[:0], string(real), true)
				}
			})
		}
	}
	b.Run("jsonstr", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		buf := make([]byte, 0, 2*len(s))
		for b.Loop() {
			buf = Append(buf[:0], s, true)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			if _, err := json.Marshal(s); err != nil {
				b.Fatal(err)
			}
		}
	})
}
