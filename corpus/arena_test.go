package corpus

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

// TestArenaRows: rows whose texts sit in the writer's arena (space, then
// content, as writeRepo does) give the same part files, byte for byte,
// as rows holding their own copies, across row groups and parts; a text
// read into the arena is not copied; one larger than the arena is, and
// so is one a reader put elsewhere.
func TestArenaRows(t *testing.T) {
	defer func(rows int, group, part, arena int64) {
		rowGroupRows, rowGroupBytes, partBytes, arenaBytes = rows, group, part, arena
	}(rowGroupRows, rowGroupBytes, partBytes, arenaBytes)
	rowGroupRows, rowGroupBytes, partBytes, arenaBytes = 7, 40<<10, 150<<10, 48<<10

	var texts []string
	for i := range 60 {
		size := 1 + i*i*7%9000
		if i == 33 {
			size = 50 << 10 // larger than the arena
		}
		texts = append(texts, strings.Repeat(fmt.Sprintf("row %d says %x\n", i, i*2654435761), size/20+1)[:size])
	}
	write := func(format string, arena bool) map[string][]byte {
		dir := t.TempDir()
		tw := newTableWriter(dir, format, "test")
		defer tw.abort()
		for i, text := range texts {
			var content string
			if arena {
				buf := tw.space(int64(len(text)))
				got := append(buf, text...) // what a read into buf does
				content = tw.content(got)
				inArena := len(buf) == 0 && cap(buf) > len(text)
				if shared := unsafe.StringData(content) == unsafe.SliceData(got); shared != inArena {
					t.Fatalf("text %d (%d bytes): shares the read's memory %v, want %v", i, len(text), shared, inArena)
				}
				if i == 33 && inArena {
					t.Fatalf("text %d of %d bytes went into an arena of %d", i, len(text), arenaBytes)
				}
			} else {
				content = strings.Clone(text)
			}
			row := Row{Repo: "r", Path: fmt.Sprintf("f%03d.txt", i), Language: "Text", Category: "docs", Bytes: int64(len(text)), Content: content}
			if err := tw.write(&row); err != nil {
				t.Fatal(err)
			}
		}
		parts, err := tw.close()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]byte{}
		for _, p := range parts {
			data, err := os.ReadFile(filepath.Join(dir, p.Name))
			if err != nil {
				t.Fatal(err)
			}
			out[p.Name] = data
		}
		return out
	}
	for _, format := range []string{FormatParquet, FormatJSONL} {
		t.Run(format, func(t *testing.T) {
			want, got := write(format, false), write(format, true)
			if len(want) < 2 {
				t.Fatalf("%d parts: the test wants several", len(want))
			}
			if len(got) != len(want) {
				t.Fatalf("%d parts from the arena, %d from copies", len(got), len(want))
			}
			for name, w := range want {
				if !bytes.Equal(got[name], w) {
					t.Errorf("%s differs between the arena's rows and copies", name)
				}
			}
		})
	}
}
