package report

import "github.com/repoprep/repoprep/snapshot"

// Report is report.json: what one run did and how fast. Unlike files.json it
// holds times and absolute paths, so it differs between runs.
type Report struct {
	Schema      string            `json:"schema"`
	Version     string            `json:"version"`
	Source      string            `json:"source"`
	Out         string            `json:"out"`
	Started     string            `json:"started"`
	Seconds     float64           `json:"seconds"`
	Files       int               `json:"files"`
	Bytes       int64             `json:"bytes"`
	Staged      int               `json:"staged"`
	StagedBytes int64             `json:"staged_bytes"`
	Tokens      int64             `json:"tokens"` // o200k tokens of the staged files; audit.tokens_by_* break it down
	Pruned      int               `json:"pruned"`
	Categories  map[string]int    `json:"categories"`
	Reasons     map[string]int    `json:"reasons"`
	Secrets     int               `json:"secrets"`
	Stages      []StageTime       `json:"stages"`
	Tools       map[string]string `json:"tools"` // dependency versions that shape the output
	Audit       *Audit            `json:"audit,omitempty"`
	// ATimeNotKept counts source files and directories opened without
	// O_NOATIME, because the kernel refused it (they are not the runner's)
	// or the platform has none (macOS, Windows): their access times may
	// have moved.
	ATimeNotKept int64 `json:"atime_not_kept,omitempty"`
	// Refresh says how many entries were taken from the previous snapshot
	// and why the others were read (refresh.go).
	Refresh *Refresh `json:"refresh"`
}

// StageTime is one stage's wall time, CPU time and throughput.
type StageTime struct {
	Name        string  `json:"name"`
	Seconds     float64 `json:"seconds"`     // wall time
	CPUSeconds  float64 `json:"cpu_seconds"` // the process's CPU time meanwhile
	Files       int     `json:"files"`
	Bytes       int64   `json:"bytes"`
	FilesPerSec float64 `json:"files_per_sec"`
	MBPerSec    float64 `json:"mb_per_sec"`
}

// Count fills the report's tallies from the manifest: files and bytes
// scanned, by category and reason, and what was staged (source bytes and
// o200k tokens).
func (r *Report) Count(m *snapshot.Manifest) {
	r.Pruned = len(m.Pruned)
	r.Categories, r.Reasons = map[string]int{}, map[string]int{}
	for _, e := range m.Files {
		r.Files++
		r.Bytes += e.Size
		r.Categories[e.Category]++
		if e.Reason != "" {
			r.Reasons[e.Reason]++
		}
		if e.Staged {
			r.Staged++
			r.StagedBytes += e.Size // source bytes; the staged copies are in tree/
			r.Tokens += int64(e.Tokens)
		}
	}
}
