package corpus

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/pipeline"
	"github.com/repoprep/repoprep/snapshot"
)

// ManifestSchema names DIR/corpus/manifest.json's format; its JSON Schema
// is schema/repoprep.corpus/v1.json.
const ManifestSchema = "repoprep.corpus/v1"

// ManifestFile is the manifest's name in DIR/corpus/.
const ManifestFile = "manifest.json"

// Manifest is DIR/corpus/manifest.json: what the table holds, per
// repository and in total, the options the snapshots were built with, and
// the repositories that failed. Like the table it holds no times and no
// absolute paths: one process and any number of merged shards write the
// same bytes.
type Manifest struct {
	Schema         string        `json:"schema"`
	Format         string        `json:"format"`
	Options        RunOptions    `json:"options"`
	NearDuplicates NearDupParams `json:"near_duplicates"`
	Totals         Counts        `json:"totals"`
	Repos          []RepoSummary `json:"repos"`
	Failures       []Failure     `json:"failures"`
	Parts          []PartFile    `json:"parts"`
}

// RunOptions are the options of `repoprep run` that shape the snapshots,
// and so the table: the rules and baseline files by their BLAKE3, never by
// path. The fingerprint key is a secret and is not recorded.
type RunOptions struct {
	Version      string `json:"version"`
	Secrets      string `json:"secrets"`
	PII          string `json:"pii"`
	InlineAllow  bool   `json:"inline_allow"`
	NoIgnore     bool   `json:"no_ignore"`
	MaxTextBytes int64  `json:"max_text_bytes"`
	PreviewLines int    `json:"preview_lines"`
	Rules        string `json:"rules"`    // BLAKE3 hex of --rules FILE; "" for none
	Baseline     string `json:"baseline"` // BLAKE3 hex of --baseline FILE; "" for none
}

// NearDupParams say how near duplicates are found (docs/corpus.md).
type NearDupParams struct {
	Threshold     float64 `json:"threshold"`
	ShingleTokens int     `json:"shingle_tokens"`
	Permutations  int     `json:"permutations"`
	Bands         int     `json:"bands"`
	RowsPerBand   int     `json:"rows_per_band"`
	MinShingles   int     `json:"min_shingles"`
}

// Counts are a repository's rows, or the corpus's.
type Counts struct {
	Repos          int   `json:"repos"`
	Files          int   `json:"files"`
	Bytes          int64 `json:"bytes"`
	Tokens         int64 `json:"tokens"`
	Duplicates     int   `json:"duplicates"`
	NearDuplicates int   `json:"near_duplicates"`
}

// RepoSummary is one repository's rows.
type RepoSummary struct {
	Name           string  `json:"name"`
	Files          int     `json:"files"`
	Bytes          int64   `json:"bytes"`
	Tokens         int64   `json:"tokens"`
	Duplicates     int     `json:"duplicates"`
	NearDuplicates int     `json:"near_duplicates"`
	License        *string `json:"license"`
}

// Failure is a repository of LIST with no rows: its run failed.
type Failure struct {
	Name  string `json:"name"`
	Error string `json:"error"`
}

// PartFile is one file of the table.
type PartFile struct {
	Name  string `json:"name"`
	Rows  int    `json:"rows"`
	Bytes int64  `json:"bytes"`
	Hash  string `json:"hash"` // "blake3:" and the file's BLAKE3 in hex
}

// params are the near-duplicate settings the manifest records.
func params() NearDupParams {
	return NearDupParams{
		Threshold: nearThreshold, ShingleTokens: shingleTokens, Permutations: permutations,
		Bands: bands, RowsPerBand: rowsPerBand, MinShingles: minShingles,
	}
}

// fingerprint is RunOptions for opts, with pipeline's defaults filled in
// where a zero means one, so an options struct and the flags that make it
// record the same.
func fingerprint(o pipeline.Options) (RunOptions, error) {
	ro := RunOptions{
		Version: o.Version, Secrets: o.Secrets, PII: o.PII, InlineAllow: o.InlineAllow, NoIgnore: o.NoIgnore,
		MaxTextBytes: o.MaxTextBytes, PreviewLines: o.PreviewLines,
	}
	if ro.Secrets == "" {
		ro.Secrets = pipeline.SecretsRedact
	}
	if ro.PII == "" {
		ro.PII = pipeline.SecretsReport
	}
	if ro.MaxTextBytes <= 0 {
		ro.MaxTextBytes = 2 << 20
	}
	if ro.PreviewLines <= 0 {
		ro.PreviewLines = 100
	}
	var err error
	if ro.Rules, err = fileDigest(o.RulesFile); err != nil {
		return ro, err
	}
	if ro.Baseline, err = fileDigest(o.Baseline); err != nil {
		return ro, err
	}
	return ro, nil
}

// maxOptionFile bounds what fingerprint reads of a rules or baseline file:
// far above any real one.
const maxOptionFile = 64 << 20

// fileDigest is the BLAKE3 hex of the file at name, "" for no file.
func fileDigest(name string) (string, error) {
	if name == "" {
		return "", nil
	}
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := blake3.New()
	n, err := io.Copy(h, io.LimitReader(f, maxOptionFile+1))
	if err != nil {
		return "", err
	}
	if n > maxOptionFile {
		return "", fmt.Errorf("%s: larger than %d bytes", name, maxOptionFile)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ReadManifest reads DIR/corpus/manifest.json, refusing unknown fields
// and schemas.
func ReadManifest(dir string) (*Manifest, error) {
	data, err := os.ReadFile(manifestPath(dir))
	if err != nil {
		return nil, err
	}
	return parseManifest(data)
}

func manifestPath(dir string) string {
	return dir + string(os.PathSeparator) + CorpusDir + string(os.PathSeparator) + ManifestFile
}

func parseManifest(data []byte) (*Manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("parse %s: %w", ManifestFile, err)
	}
	if err := snapshot.CheckEnd(dec); err != nil {
		return nil, fmt.Errorf("parse %s: %w", ManifestFile, err)
	}
	if m.Schema != ManifestSchema {
		return nil, fmt.Errorf("parse %s: schema %q, want %q", ManifestFile, m.Schema, ManifestSchema)
	}
	return &m, nil
}
