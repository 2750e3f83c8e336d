package snapshot

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"unicode/utf8"
)

// OversizeIndex is oversize.json: the staged text files too large to read
// whole, so an agent knows they exist and what they start with before it
// reads them by range.
type OversizeIndex struct {
	Schema string         `json:"schema"`
	Files  []OversizeFile `json:"files"`
}

// OversizeFile is one oversize staged file.
type OversizeFile struct {
	Path     string `json:"path"`
	Size     int64  `json:"size"`  // bytes in SRC
	Lines    int    `json:"lines"` // lines of the staged copy
	Encoding string `json:"encoding"`
	Preview  string `json:"preview"` // the first lines of the staged copy, each ending in "\n" when the file's does
}

// maxPreviewLineBytes cuts a preview line as read_file cuts a long line: a
// minified bundle's one line must not turn a preview into the whole file.
const maxPreviewLineBytes = 2000

// previewCutMarker ends a preview line that was cut.
const previewCutMarker = " …[line cut]"

// WriteOversize writes oversize.json for every staged entry flagged
// oversize, in manifest order, with a preview of its first previewLines
// lines read from tree, the staged copy (already normalized and redacted).
// Each preview is read as a bounded stream: at most previewLines lines of
// at most maxPreviewLineBytes each are kept, whatever the file holds.
func WriteOversize(w io.Writer, m *Manifest, tree fs.FS, previewLines int) error {
	idx := OversizeIndex{Schema: OversizeSchema, Files: []OversizeFile{}}
	for i := range m.Files {
		e := &m.Files[i]
		if !e.Oversize || !e.Staged {
			continue // a duplicate's canonical copy carries the preview
		}
		preview, err := readPreview(tree, e.Path, previewLines)
		if err != nil {
			return fmt.Errorf("oversize preview %s: %w", e.Path, err)
		}
		idx.Files = append(idx.Files, OversizeFile{
			Path: e.Path, Size: e.Size, Lines: e.Lines, Encoding: e.Encoding, Preview: preview,
		})
	}
	return EncodeJSON(w, idx)
}

func readPreview(tree fs.FS, name string, lines int) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, err := tree.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return previewHead(f, lines)
}

// previewHead returns the first lines of r, each cut to
// maxPreviewLineBytes (on a rune boundary, marked), reading no further
// than the last line it keeps.
func previewHead(r io.Reader, lines int) (string, error) {
	br := bufio.NewReaderSize(r, 16<<10)
	var out bytes.Buffer
	for n := 0; n < lines; n++ {
		var line []byte
		cut := false
		for {
			chunk, err := br.ReadSlice('\n')
			text := len(chunk) // the line's own bytes: its newline is not cut
			if text > 0 && chunk[text-1] == '\n' {
				text--
			}
			switch {
			case len(line)+text <= maxPreviewLineBytes:
				line = append(line, chunk...)
			case !cut:
				line = append(line, chunk[:maxPreviewLineBytes-len(line)]...)
				cut = true
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue // the rest of a long line; keep reading to its end
			}
			if err == io.EOF {
				if cut {
					out.Write(cutLine(line))
				} else {
					out.Write(line)
				}
				return out.String(), nil
			}
			if err != nil {
				return "", err
			}
			break
		}
		if cut {
			out.Write(cutLine(line))
			out.WriteByte('\n')
		} else {
			out.Write(line)
		}
	}
	return out.String(), nil
}

// cutLine trims a cut line back to a whole rune and marks it.
func cutLine(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	for i := 0; i < utf8.UTFMax && len(line) > 0; i++ {
		if r, size := utf8.DecodeLastRune(line); r != utf8.RuneError || size > 1 {
			break
		}
		line = line[:len(line)-1]
	}
	return append(line, previewCutMarker...)
}
