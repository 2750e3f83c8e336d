package refresh

import (
	"context"
	"os"

	"github.com/repoprep/repoprep/internal/dirfd"
)

// What the benchmarks of placement (place_bench_test.go) reach inside.

// PlaceJob is one staged copy of the previous snapshot to place.
type PlaceJob struct {
	From  string
	Size  int64
	want  [32]byte
	trust *copyID
}

// PlaceJobs lists the previous snapshot's staged copies.
func (p *Prior) PlaceJobs() []PlaceJob {
	var jobs []PlaceJob
	for _, en := range p.entries {
		if !en.Staged {
			continue
		}
		sum, _ := hexSum(en.Hash)
		j := PlaceJob{From: en.Path, Size: en.Size, want: sum}
		if se := p.files[en.Path]; se != nil {
			j.trust = se.Copy
		}
		jobs = append(jobs, j)
	}
	return jobs
}

// Place places j at its path in the new tree out as a refresh does;
// untrusted hashes the copy even where the state vouches for it.
func (p *Prior) Place(ctx context.Context, j PlaceJob, out *dirfd.Out, trusted bool) (string, error) {
	trust := j.trust
	if !trusted {
		trust = nil
	}
	_, why, err := p.place(ctx, j.From, out, j.From, j.want, trust)
	return why, err
}

// OpenCopy opens a staged copy of the previous snapshot as place does.
func (p *Prior) OpenCopy(rel string) (*os.File, error) { return p.copies.Open(rel) }

// SetCloneFiles turns reflinks on or off.
func SetCloneFiles(on bool) { cloneFiles = on }
