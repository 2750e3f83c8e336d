package pipeline

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/zeebo/blake3"
	"golang.org/x/sync/errgroup"

	"github.com/repoprep/repoprep/internal/manifest"
)

// Drift is one way a published snapshot differs from what its index says.
// Path is relative to OUT: an index file ("files.json") or a staged file
// ("tree/src/main.go").
type Drift struct {
	Path    string `json:"path"`
	Problem string `json:"problem"`
}

func (d Drift) String() string { return d.Path + ": " + d.Problem }

// Verify checks a published snapshot in outDir and returns every drift it
// finds, sorted by path: each staged entry must exist under tree/ as a
// regular file with its recorded hash and line count, tree/ must hold
// nothing else, and files.json, oversize.json, secrets.json and
// report.json must parse, carry their schema and agree with each other.
// It errs only when outDir cannot be checked at all or ctx is done. Files
// are hashed by GOMAXPROCS workers, each streaming through a small buffer.
func Verify(ctx context.Context, outDir string) ([]Drift, error) {
	root, err := os.OpenRoot(outDir)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	defer root.Close()
	v := &verifier{root: root}

	m := v.manifest()
	v.oversize(m)
	v.secrets(m)
	v.report()
	if _, err := root.Stat("REPO_MAP.md"); err != nil {
		v.add("REPO_MAP.md", "missing")
	}
	if m != nil {
		if err := v.tree(ctx, m); err != nil {
			return nil, err
		}
	}
	sort.Slice(v.drifts, func(i, j int) bool {
		if v.drifts[i].Path != v.drifts[j].Path {
			return v.drifts[i].Path < v.drifts[j].Path
		}
		return v.drifts[i].Problem < v.drifts[j].Problem
	})
	return v.drifts, nil
}

// verifier collects drifts; add is safe for concurrent use.
type verifier struct {
	root   *os.Root
	mu     sync.Mutex
	drifts []Drift
}

func (v *verifier) add(path, format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.drifts = append(v.drifts, Drift{Path: path, Problem: fmt.Sprintf(format, args...)})
}

// readIndex reads one index file, recording a drift when it is missing.
func (v *verifier) readIndex(name string) []byte {
	data, err := v.root.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		v.add(name, "missing")
		return nil
	}
	if err != nil {
		v.add(name, "unreadable: %v", err)
		return nil
	}
	return data
}

// manifest parses files.json and checks that it is sorted, has no repeated
// path, a hash on every staged entry and a staged canonical copy behind
// every duplicate. It returns nil when files.json cannot be used at all.
func (v *verifier) manifest() *manifest.Manifest {
	data := v.readIndex("files.json")
	if data == nil {
		return nil
	}
	m, err := manifest.ParseManifest(data)
	if err != nil {
		v.add("files.json", "%v", err)
		return nil
	}
	staged := make(map[string]bool, len(m.Files))
	for i, e := range m.Files {
		if i > 0 && m.Files[i-1].Path >= e.Path {
			if m.Files[i-1].Path == e.Path {
				v.add("files.json", "path %q is listed twice", e.Path)
			} else {
				v.add("files.json", "not sorted by path at %q", e.Path)
			}
		}
		staged[e.Path] = e.Staged
	}
	for _, e := range m.Files {
		switch {
		case e.Staged && e.DuplicateOf != "":
			v.add("files.json", "%q is staged and also a duplicate of %q", e.Path, e.DuplicateOf)
		case e.DuplicateOf != "" && !staged[e.DuplicateOf]:
			v.add("files.json", "%q is a duplicate of %q, which is not staged", e.Path, e.DuplicateOf)
		case e.Staged && e.Hash == "":
			v.add("files.json", "%q is staged without a hash", e.Path)
		}
	}
	return m
}

// decodeIndex decodes an index file's JSON and checks its schema; strict
// refuses unknown fields, for the formats this package owns.
func (v *verifier) decodeIndex(name, schema string, into any, strict bool) bool {
	data := v.readIndex(name)
	if data == nil {
		return false
	}
	var head struct{ Schema string }
	if err := json.Unmarshal(data, &head); err != nil {
		v.add(name, "parse: %v", err)
		return false
	}
	if head.Schema != schema {
		v.add(name, "schema %q, want %q", head.Schema, schema)
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(into); err != nil {
		v.add(name, "parse: %v", err)
		return false
	}
	return true
}

// oversize checks oversize.json lists exactly the staged oversize entries,
// with their line counts.
func (v *verifier) oversize(m *manifest.Manifest) {
	var idx OversizeIndex
	if !v.decodeIndex("oversize.json", manifest.OversizeSchema, &idx, true) || m == nil {
		return
	}
	byPath := make(map[string]*manifest.Entry, len(m.Files))
	for i := range m.Files {
		byPath[m.Files[i].Path] = &m.Files[i]
	}
	listed := make(map[string]bool, len(idx.Files))
	for _, f := range idx.Files {
		listed[f.Path] = true
		switch e := byPath[f.Path]; {
		case e == nil:
			v.add("oversize.json", "lists %q, which files.json does not", f.Path)
		case !e.Oversize || !e.Staged:
			v.add("oversize.json", "lists %q, which files.json does not mark as staged and oversize", f.Path)
		case f.Lines != e.Lines:
			v.add("oversize.json", "%q has %d lines, files.json records %d", f.Path, f.Lines, e.Lines)
		}
	}
	for _, e := range m.Files {
		if e.Oversize && e.Staged && !listed[e.Path] {
			v.add("oversize.json", "does not list oversize file %q", e.Path)
		}
	}
}

// verifySecrets is the part of secrets.json that Verify checks; fields it
// does not know are allowed, since the secret scan owns the format.
type verifySecrets struct {
	Findings []struct {
		Path string `json:"path"`
		Line int    `json:"line"`
		Rule string `json:"rule"`
	} `json:"findings"`
}

// secrets checks every finding names a listed path, a line and a rule, and
// that each entry's secrets count matches its findings.
func (v *verifier) secrets(m *manifest.Manifest) {
	var s verifySecrets
	if !v.decodeIndex("secrets.json", manifest.SecretsSchema, &s, false) || m == nil {
		return
	}
	byPath := map[string]int{}
	for _, f := range s.Findings {
		byPath[f.Path]++
		if f.Line < 0 || f.Rule == "" { // line 0: the secret is in the path or link target
			v.add("secrets.json", "finding in %q lacks a line or a rule", f.Path)
		}
	}
	for _, e := range m.Files {
		if n := byPath[e.Path]; n != e.Secrets {
			v.add("secrets.json", "%d findings for %q, files.json records %d", n, e.Path, e.Secrets)
		}
		delete(byPath, e.Path)
	}
	for _, p := range slices.Sorted(maps.Keys(byPath)) {
		v.add("secrets.json", "findings for %q, which files.json does not list", p)
	}
}

// report checks report.json parses and carries its schema; its content
// differs between runs by design.
func (v *verifier) report() {
	var rep map[string]any
	v.decodeIndex("report.json", manifest.ReportSchema, &rep, false)
}

// tree compares tree/ with the staged entries: walked first, so a missing
// file, an extra file and a non-regular file are each told apart, then
// every staged file hashed and its lines counted.
func (v *verifier) tree(ctx context.Context, m *manifest.Manifest) error {
	tree, err := v.root.OpenRoot("tree")
	if err != nil {
		v.add("tree", "unreadable: %v", err)
		return nil
	}
	defer tree.Close()
	regular := map[string]bool{}
	err = fs.WalkDir(tree.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			v.add("tree/"+p, "unreadable: %v", err)
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		switch {
		case d.IsDir():
		case d.Type().IsRegular():
			regular[p] = true
		default:
			v.add("tree/"+p, "not a regular file (%v)", d.Type())
			regular[p] = false
		}
		return nil
	})
	if err != nil {
		return err
	}

	byPath := make(map[string]*manifest.Entry, len(m.Files))
	var jobs []*manifest.Entry
	for i := range m.Files {
		e := &m.Files[i]
		byPath[e.Path] = e
		if !e.Staged {
			continue
		}
		isRegular, found := regular[e.Path]
		switch {
		case !found:
			v.add("tree/"+e.Path, "missing (files.json lists it as staged)")
		case isRegular:
			jobs = append(jobs, e)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(regular)) {
		switch e := byPath[p]; {
		case e == nil:
			v.add("tree/"+p, "not listed in files.json")
		case !e.Staged:
			v.add("tree/"+p, "present, but files.json says it is not staged")
		}
	}

	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, e := range jobs {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			hash, lines, err := hashStaged(tree, e.Path)
			switch {
			case err != nil:
				v.add("tree/"+e.Path, "unreadable: %v", err)
			case hash != e.Hash && e.Hash != "":
				v.add("tree/"+e.Path, "content changed: hash %s, files.json records %s", hash, e.Hash)
			case lines != e.Lines:
				v.add("tree/"+e.Path, "%d lines, files.json records %d", lines, e.Lines)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

var hashBufs = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// hashStaged streams one staged file through BLAKE3, counting lines as
// the staged files count them: newlines, plus one for a last line without
// one. Safe for concurrent use.
func hashStaged(tree *os.Root, name string) (hash string, lines int, err error) {
	f, err := tree.Open(filepath.FromSlash(name))
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	bufp := hashBufs.Get().(*[]byte)
	defer hashBufs.Put(bufp)
	buf := *bufp
	h := blake3.New()
	var last byte
	var size int64
	for {
		n, rerr := f.Read(buf)
		if n > 0 {
			h.Write(buf[:n])
			lines += bytes.Count(buf[:n], []byte{'\n'})
			last = buf[n-1]
			size += int64(n)
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return "", 0, rerr
		}
	}
	if size > 0 && last != '\n' {
		lines++
	}
	return "blake3:" + hex.EncodeToString(h.Sum(nil)), lines, nil
}
