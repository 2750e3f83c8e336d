package snapshot

import (
	"path"

	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/trigram"
)

// indexes checks the server's indexes against files.json without reading
// the staged files: search.index must load (its checksum and layout) and
// list exactly the staged paths, in order, with their current sizes;
// lines.json must list exactly the staged oversize files with their line
// counts and sizes. A stale index would make search miss matches.
func (v *verifier) indexes(m *Manifest) {
	data := v.readIndex(SearchIndex)
	var ix *trigram.Index
	if data != nil {
		var err error
		if ix, err = trigram.Parse(data); err != nil {
			v.add(SearchIndex, "%v", err)
		}
	}
	data = v.readIndex(LinesJSON)
	var lx *lineindex.Index
	if data != nil {
		var err error
		if lx, err = lineindex.Parse(data); err != nil {
			v.add(LinesJSON, "%v", err)
		}
	}
	if m == nil {
		return
	}
	var staged []string
	oversize := map[string]*Entry{}
	for i := range m.Files {
		if e := &m.Files[i]; e.Staged {
			staged = append(staged, e.Path)
			if e.Oversize {
				oversize[e.Path] = e
			}
		}
	}
	size := func(p string) int64 {
		fi, err := v.snap.Lstat(path.Join(TreeDir, p))
		if err != nil || !fi.Mode().IsRegular() {
			return -1 // tree() reports the file itself
		}
		return fi.Size()
	}
	if ix != nil {
		paths := ix.Paths()
		if len(paths) != len(staged) {
			v.add(SearchIndex, "lists %d files, files.json stages %d", len(paths), len(staged))
		}
		for i := 0; i < min(len(paths), len(staged)); i++ {
			if paths[i] != staged[i] {
				v.add(SearchIndex, "file %d is %q, files.json stages %q there", i, paths[i], staged[i])
				break
			}
			if got := size(staged[i]); got >= 0 && got != ix.Size(i) {
				v.add(SearchIndex, "%q indexed at %d bytes, the staged file has %d", staged[i], ix.Size(i), got)
			}
		}
	}
	if lx != nil {
		listed := map[string]bool{}
		for _, f := range lx.Files {
			listed[f.Path] = true
			switch e := oversize[f.Path]; {
			case e == nil:
				v.add(LinesJSON, "lists %q, which files.json does not mark as staged and oversize", f.Path)
			case f.Lines != e.Lines:
				v.add(LinesJSON, "%q has %d lines, files.json records %d", f.Path, f.Lines, e.Lines)
			case size(f.Path) >= 0 && size(f.Path) != f.Size:
				v.add(LinesJSON, "%q indexed at %d bytes, the staged file has %d", f.Path, f.Size, size(f.Path))
			}
		}
		for p := range oversize {
			if !listed[p] {
				v.add(LinesJSON, "does not list oversize file %q", p)
			}
		}
	}
}
