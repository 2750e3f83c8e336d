// Package manifest owns the files.json model and the JSON conventions of
// every output file: the types both the pipeline (which writes them) and the
// read server (which only reads them) share, so serve never imports pipeline.
package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Schema names written into each output file; readers refuse any other.
const (
	FilesSchema    = "repoprep.files/v1"
	SecretsSchema  = "repoprep.secrets/v1"
	OversizeSchema = "repoprep.oversize/v1"
	ReportSchema   = "repoprep.report/v1"
)

// Manifest is files.json: one Entry per scanned file and one Pruned per
// directory that was not walked. It holds no times and no absolute paths, so
// the same input always gives the same bytes.
type Manifest struct {
	Schema string   `json:"schema"`
	Files  []Entry  `json:"files"`
	Pruned []Pruned `json:"pruned"`
}

// Entry is one scanned file as SPEC.md's files.json shows it.
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
	LinkTarget  string `json:"link_target,omitempty"`
	Error       string `json:"error,omitempty"` // "stage: cause" for unreadable files

	// A document whose text was extracted and staged under its path: the
	// source format, and the extractor and its version (a SPEC.md
	// addition, docs/extract.md).
	ExtractedFrom    string `json:"extracted_from,omitempty"`
	Extractor        string `json:"extractor,omitempty"`
	ExtractorVersion string `json:"extractor_version,omitempty"`
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

// ReadManifest loads and checks OUT/files.json.
func ReadManifest(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseManifest(data)
}

// ParseManifest decodes files.json, refusing unknown schemas and fields.
func ParseManifest(data []byte) (*Manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("parse files.json: %w", err)
	}
	if m.Schema != FilesSchema {
		return nil, fmt.Errorf("parse files.json: schema %q, want %q", m.Schema, FilesSchema)
	}
	return &m, nil
}
