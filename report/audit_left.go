package report

import (
	"fmt"
	"slices"
	"sort"

	"github.com/repoprep/repoprep/internal/numfmt"
	"github.com/repoprep/repoprep/snapshot"
)

// What a run left out, named: the pruned directories with their reason and
// file count, and the largest files that were scanned but not staged. A
// user who finds first-party code missing looks here first.

// AuditPruned is one directory the scan did not walk.
type AuditPruned struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	Files  int    `json:"files"`                  // files below it, counted from directory entries
	Capped bool   `json:"files_capped,omitempty"` // Files stopped at the count's bound: there are more
}

// AddPruned sets the pruned directories, ranked by files, then path.
func (a *Audit) AddPruned(pruned []AuditPruned) {
	a.Pruned, a.PrunedFiles = len(pruned), 0
	a.PrunedDirs = make([]AuditPruned, 0, min(len(pruned), auditMaxListed))
	all := slices.Clone(pruned)
	for _, p := range pruned {
		a.PrunedFiles += p.Files
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Files != all[j].Files {
			return all[i].Files > all[j].Files
		}
		return all[i].Path < all[j].Path
	})
	a.PrunedDirs = append(a.PrunedDirs, all[:min(len(all), auditMaxListed)]...)
}

// leftOut keeps the auditMaxListed largest files not staged, duplicates
// aside (their content is staged under another path), without holding a
// row per file: a tree of build products has millions.
type leftOut struct {
	top   []AuditFile // largest first
	count int
	bytes int64
}

func (l *leftOut) add(e *snapshot.Entry) {
	if e.Staged || e.DuplicateOf != "" {
		return
	}
	l.count++
	l.bytes += e.Size
	if len(l.top) == auditMaxListed && !leftOutBefore(e.Size, e.Path, l.top[len(l.top)-1]) {
		return
	}
	f := AuditFile{Path: e.Path, Size: e.Size, Category: e.Category, Reason: e.Reason, Test: e.Test}
	i := sort.Search(len(l.top), func(i int) bool { return leftOutBefore(f.Size, f.Path, l.top[i]) })
	if len(l.top) < auditMaxListed {
		l.top = append(l.top, AuditFile{})
	}
	copy(l.top[i+1:], l.top[i:])
	l.top[i] = f
}

// leftOutBefore orders by size, largest first, then by path.
func leftOutBefore(size int64, p string, f AuditFile) bool {
	if size != f.Size {
		return size > f.Size
	}
	return p < f.Path
}

// renderLeftOut writes the pruned directories and the largest files left out.
func (r *auditWriter) renderLeftOut(a Audit) {
	if len(a.PrunedDirs) > 0 {
		r.title(fmt.Sprintf("Directories not walked: %s (%s %s)", numfmt.Int(a.Pruned), numfmt.Int(a.PrunedFiles), numfmt.Plural(a.PrunedFiles, "file", "files")))
		shown := a.PrunedDirs[:min(len(a.PrunedDirs), auditMaxRows)]
		for _, p := range shown {
			files := numfmt.Int(p.Files) + " " + numfmt.Plural(p.Files, "file", "files")
			if p.Capped {
				files = numfmt.Int(p.Files) + "+ files"
			}
			r.row(p.Path+"/", files, p.Reason)
		}
		if a.Pruned > len(shown) {
			r.more(a.Pruned - len(shown))
		}
	}
	if a.LeftOutCount > 0 {
		r.title(fmt.Sprintf("Largest files left out: %s of %s (%s)", numfmt.Int(len(a.LeftOut)), numfmt.Int(a.LeftOutCount), numfmt.Bytes(a.LeftOutBytes)))
		shown := a.LeftOut[:min(len(a.LeftOut), auditMaxRows)]
		for _, f := range shown {
			why := f.Category
			if f.Reason != "" {
				why += "/" + f.Reason
			}
			r.row(f.Path, numfmt.Bytes(f.Size), why)
		}
		if a.LeftOutCount > len(shown) {
			r.more(a.LeftOutCount - len(shown))
		}
	}
}
