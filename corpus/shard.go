package corpus

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one of N slices of LIST: the repositories whose position in
// LIST (from 0) is K modulo N. K counts from 0, as Kubernetes' Indexed
// Jobs number their pods (JOB_COMPLETION_INDEX). The zero Shard is the
// whole LIST in one process.
type Shard struct {
	K, N int
}

// maxShards bounds N: more shards than that is a typing mistake, and
// merge reads one part per shard.
const maxShards = 100_000

// ParseShard reads "K/N".
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want K/N, such as 0/4", s)
	}
	var sh Shard
	var err1, err2 error
	sh.K, err1 = strconv.Atoi(k)
	sh.N, err2 = strconv.Atoi(n)
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want K/N, such as 0/4", s)
	}
	return sh, sh.check()
}

func (s Shard) check() error {
	switch {
	case s.N < 1 || s.N > maxShards:
		return fmt.Errorf("shard %d/%d: N must be 1 to %d", s.K, s.N, maxShards)
	case s.K < 0 || s.K >= s.N:
		return fmt.Errorf("shard %d/%d: K counts from 0 and must be below N", s.K, s.N)
	}
	return nil
}

// Whole reports whether s is the whole LIST in one process, the run that
// writes the table itself.
func (s Shard) Whole() bool { return s.N == 0 }

// owns reports whether the repository at position i of LIST is s's.
func (s Shard) owns(i int) bool { return s.Whole() || i%s.N == s.K }

// String is "K/N", or "" for the whole LIST.
func (s Shard) String() string {
	if s.Whole() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

// dirName is the shard's directory under DIR/parts/: "K-of-N".
func (s Shard) dirName() string { return fmt.Sprintf("%d-of-%d", s.K, s.N) }
