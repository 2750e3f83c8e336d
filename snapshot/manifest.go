package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Manifest is files.json: one Entry per scanned file and one Pruned per
// directory that was not walked. It holds no times and no absolute paths, so
// the same input always gives the same bytes.
type Manifest struct {
	Schema string   `json:"schema"`
	Files  []Entry  `json:"files"`
	Pruned []Pruned `json:"pruned"`
}

// Entry is one scanned file as docs/output.md's files.json shows it.
type Entry struct {
	Path        string `json:"path"`
	Size        int64  `json:"size"`
	Category    string `json:"category"`
	Reason      string `json:"reason"`
	Mime        string `json:"mime"`
	Language    string `json:"language"`
	Encoding    string `json:"encoding"`
	BOM         bool   `json:"bom"`
	CRLF        bool   `json:"crlf"`
	Lines       int    `json:"lines"`
	Tokens      int    `json:"tokens"`
	Test        bool   `json:"test"`
	ExtMismatch bool   `json:"ext_mismatch"`
	Staged      bool   `json:"staged"`
	Oversize    bool   `json:"oversize"`
	DuplicateOf string `json:"duplicate_of"`
	Hash        string `json:"hash"`
	Secrets     int    `json:"secrets"`
	// Masked is how many spans of the staged copy read [REDACTED:<rule>]
	// instead of what the source has: the only change to a text beyond
	// decoding (docs/secrets.md).
	Masked     int    `json:"masked,omitempty"`
	LinkTarget string `json:"link_target,omitempty"`
	Err        string `json:"error,omitempty"` // "stage: cause" for unreadable files

	// A document whose text was extracted and staged under its path: the
	// source format, and the extractor and its version (docs/extract.md).
	ExtractedFrom    string `json:"extracted_from,omitempty"`
	Extractor        string `json:"extractor,omitempty"`
	ExtractorVersion string `json:"extractor_version,omitempty"`
	// Truncated: the text was cut short at a work limit, and says what was
	// left out, as the staged text's last line does ("pages 5001–6000 not
	// extracted: page limit 5000").
	Truncated string `json:"truncated,omitempty"`
	// Mojibake: valid UTF-8 whose text looks double-encoded, staged as
	// written (docs/encoding.md).
	Mojibake bool `json:"mojibake,omitempty"`
	// Replaced: how many U+FFFD the staged text holds in place of broken
	// double-byte pairs (a GBK or Big5 character cut by a line end or an
	// ANSI colour code, which no decoder reads); omitted when 0
	// (docs/encoding.md).
	Replaced int `json:"replaced,omitempty"`
}

// Pruned is a directory left unwalked, with why.
type Pruned struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// EncodeJSON writes v as indented JSON with a final newline and without HTML
// escaping, so paths with '<' or '&' stay readable.
func EncodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// CheckEnd errs when anything but white space follows the value dec just
// decoded: a second document, or garbage appended to the file, means the
// file is not what its writer wrote.
func CheckEnd(dec *json.Decoder) error {
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("trailing data after the JSON document (at byte %d)", dec.InputOffset())
	}
	return nil
}

// ReadManifest opens the snapshot at dir and reads its files.json.
func ReadManifest(dir string) (*Manifest, error) {
	s, err := Open(dir)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	m, _, err := s.Manifest()
	return m, err
}

// ParseManifest decodes files.json, refusing unknown schemas and fields.
func ParseManifest(data []byte) (*Manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("parse files.json: %w", err)
	}
	if err := CheckEnd(dec); err != nil {
		return nil, fmt.Errorf("parse files.json: %w", err)
	}
	if m.Schema != FilesSchema {
		return nil, fmt.Errorf("parse files.json: schema %q, want %q", m.Schema, FilesSchema)
	}
	return &m, nil
}

// WriteManifest writes m as files.json, byte for byte what EncodeJSON
// writes, one entry at a time: a 200,000-file manifest is never held as
// one encoded buffer (two, with the indentation pass).
func WriteManifest(w io.Writer, m *Manifest) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	schema, err := json.Marshal(m.Schema)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "{\n  \"schema\": %s,\n", schema); err != nil {
		return err
	}
	if err := writeEntries(w, "files", m.Files, ","); err != nil {
		return err
	}
	if err := writeArray(w, &buf, enc, "pruned", m.Pruned, ""); err != nil {
		return err
	}
	_, err = io.WriteString(w, "}\n")
	return err
}

// writeArray writes `  "name": [...]` with each element indented as
// EncodeJSON indents it, then after and a newline.
func writeArray[T any](w io.Writer, buf *bytes.Buffer, enc *json.Encoder, name string, elems []T, after string) error {
	if len(elems) == 0 {
		return writeEmptyArray(w, name, elems == nil, after)
	}
	if _, err := fmt.Fprintf(w, "  %q: [\n", name); err != nil {
		return err
	}
	for i := range elems {
		buf.Reset()
		buf.WriteString("    ")
		if err := enc.Encode(&elems[i]); err != nil {
			return err
		}
		b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if i < len(elems)-1 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "  ]%s\n", after)
	return err
}

// writeEmptyArray writes an array field with no elements: null for a nil
// slice, as encoding/json writes it.
func writeEmptyArray(w io.Writer, name string, null bool, after string) error {
	v := "[]"
	if null {
		v = "null"
	}
	_, err := fmt.Fprintf(w, "  %q: %s%s\n", name, v, after)
	return err
}

// ServedBy is the one rule for which staged copy serves an entry: its own
// when it is staged, its canonical copy's when it is a duplicate of a
// staged entry (byPath looks entries up), and none ("") otherwise: a
// refused, binary or excluded file has no text in tree/.
func ServedBy(e *Entry, byPath map[string]*Entry) string {
	if e.Staged {
		return e.Path
	}
	if e.DuplicateOf != "" {
		if c, ok := byPath[e.DuplicateOf]; ok && c.Staged {
			return c.Path
		}
	}
	return ""
}
