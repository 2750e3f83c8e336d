package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/repoprep/repoprep/internal/numfmt"
)

// What report.json's refresh.previous says of the previous snapshot.
const (
	PreviousUsed    = "used"
	PreviousFull    = "full"      // --full
	PreviousNone    = "none"      // no previous snapshot at OUT
	PreviousOther   = "other-key" // another build, other rules or options
	PreviousNoState = "no-state"  // no usable state: missing, damaged, not this user's, not this files.json
)

// Why a file was not taken from the previous snapshot: the keys of
// report.json's refresh.not_reused.
const (
	NotReusedScan       = "decided-by-scan"   // symlink, special file, ignored, unsafe name: the scan decides it every run
	NotReusedNew        = "new"               // no previous entry at that path
	NotReusedChanged    = "changed"           // device, inode, size, mtime or ctime differ
	NotReusedRacy       = "touched-recently"  // changed within refresh.RacyWindow of the previous run
	NotReusedContext    = "directory-context" // the directory's triage facts changed (vendored, tests, generated)
	NotReusedFindings   = "had-findings"      // the previous text held secrets: their values are never kept, so it is read again
	NotReusedError      = "had-error"         // the previous entry recorded a per-file failure
	NotReusedCopy       = "previous-copy-differs"
	NotReusedPathLength = "path-too-long"  // its copy does not fit under this run's temporary name
	NotReusedPrior      = "encoding-prior" // its charset was decided on weak evidence (or contested) under another repository prior: decided again
)

// Refresh is report.json's refresh: what a run took from the previous
// snapshot and why it took no more.
type Refresh struct {
	// Key is a digest of the build, the effective rules and every option
	// that changes what a run publishes: a snapshot made under another
	// key is never reused.
	Key      string `json:"key"`
	Previous string `json:"previous"`         // used, full, none, other-key or no-state
	Detail   string `json:"detail,omitempty"` // what was wrong with the previous state
	// Reused counts the entries taken from the previous snapshot;
	// NotReused the others, by why (decided-by-scan, new, changed, ...).
	Reused    int            `json:"reused"`
	NotReused map[string]int `json:"not_reused"`
	// Unchanged: nothing changed since the previous snapshot, which was
	// checked and kept as it is (nothing in OUT was written).
	Unchanged bool `json:"unchanged,omitempty"`
}

// Line is the audit's one line about reuse: "9,120 of 11,478 from the
// previous snapshot (changed 2, had-findings 96, ...)", or why none.
func (f *Refresh) Line(files int) string {
	switch f.Previous {
	case PreviousUsed:
	case PreviousFull:
		return "none: --full"
	case PreviousNone:
		return "none: no previous snapshot"
	case PreviousOther:
		return "none: the previous snapshot was made by another build or under other rules or options"
	default:
		return "none: " + cmp.Or(f.Detail, "no usable refresh state")
	}
	var why []string
	for k, n := range f.NotReused {
		why = append(why, fmt.Sprintf("%s %s", k, numfmt.Int(n)))
	}
	slices.Sort(why)
	s := fmt.Sprintf("%s of %s from the previous snapshot", numfmt.Int(f.Reused), numfmt.Int(files))
	if f.Unchanged {
		s = "unchanged: the previous snapshot was checked and kept, not published again"
	}
	if len(why) > 0 {
		s += "; read: " + strings.Join(why, ", ")
	}
	return s
}
