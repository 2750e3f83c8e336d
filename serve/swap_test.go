package serve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// genSnap is generation g of a snapshot: every line of every file names g,
// and a.txt has g+10 lines, so an answer mixing two publications shows.
func genSnap(g int) snap {
	line := func(f string, n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "gen %d %s line %d\n", g, f, i)
		}
		return b.String()
	}
	return snap{files: map[string]string{
		"gen/a.txt":                   line("a", g+10),
		"gen/b.txt":                   line("b", 20),
		fmt.Sprintf("only-%d.txt", g): line("only", 1),
	}}
}

var genRE = regexp.MustCompile(`gen (\d+) `)

// A snapshot is republished (renameat2 RENAME_EXCHANGE, as repoprep run
// does, then the old directory is deleted) while 20 goroutines read: no
// read fails and none mixes two publications, and the readers saw the
// publications come and go (more than one generation answered).
//
// The whole pass runs 20 readers across 40 publications. Under -short
// (make test's race pass) 8 readers run across 10 publications: still
// hundreds of concurrent reads per publication, the same checks. Each
// reader yields after a read (runtime.Gosched): without it the readers
// kept both cores and the publisher waited a scheduler slice (10 ms) for
// one after each system call, most of a second per publication (50 s for
// the whole pass's 40), and reads overlapped the publications no more.
func TestRepublishWhileReading(t *testing.T) {
	if err := exchangeDirs(t.TempDir(), t.TempDir()); errors.Is(err, errors.ErrUnsupported) {
		t.Skip("no atomic exchange of two directories on this platform")
	}
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	publish(t, out, genSnap(0))
	srv, err := New(out, Options{MaxInFlight: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	readers, publications := 20, 40
	if testing.Short() {
		readers, publications = 8, 10
	}
	var stop atomic.Bool
	var reads atomic.Int64
	answered := make([]atomic.Bool, publications+1) // by generation
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	for range readers {
		wg.Go(func() {
			for !stop.Load() {
				text, res, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: "gen/a.txt"}, {Path: "gen/b.txt"}}})
				if err != nil {
					errs <- err
					return
				}
				gens := map[string]bool{}
				for _, m := range genRE.FindAllStringSubmatch(text, -1) {
					gens[m[1]] = true
				}
				if len(gens) != 1 {
					errs <- fmt.Errorf("answer mixes generations %v", gens)
					return
				}
				for g := range gens {
					n, _ := strconv.Atoi(g)
					if res.Files[0].TotalLines != n+10 {
						errs <- fmt.Errorf("generation %d content with %d total lines", n, res.Files[0].TotalLines)
						return
					}
					if n >= 0 && n <= publications && !answered[n].Load() {
						answered[n].Store(true)
					}
				}
				reads.Add(1)
				runtime.Gosched()
			}
		})
	}
	for g := 1; g <= publications; g++ {
		next := filepath.Join(parent, fmt.Sprintf("staging-%d", g))
		publish(t, next, genSnap(g))
		if err := exchangeDirs(next, out); err != nil {
			t.Fatalf("exchange: %v", err)
		}
		mustDo(t, os.RemoveAll(next)) // next now holds the previous snapshot
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	text, _, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: "gen/b.txt", Ranges: [][]int{{1, 1}}}}})
	if err != nil || !strings.Contains(text, fmt.Sprintf("gen %d b", publications)) {
		t.Errorf("after the last publication: %v\n%s", err, text)
	}
	gens := 0
	for i := range answered {
		if answered[i].Load() {
			gens++
		}
	}
	// Reading while publishing is the point: an answer from only one
	// generation would mean no read overlapped a publication.
	if gens < 2 {
		t.Errorf("the readers saw %d generation(s) across %d publications; no read overlapped a publication", gens, publications)
	}
	t.Logf("%d reads by %d readers across %d publications; %d generations answered", reads.Load(), readers, publications, gens)
}

// A plain rename publication leaves OUT missing for an instant; requests in
// that instant are served from the snapshot already loaded.
func TestRepublishByRename(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	publish(t, out, genSnap(1))
	srv, err := New(out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	mustDo(t, os.Rename(out, out+".old"))
	if _, _, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: "gen/a.txt"}}}); err != nil {
		t.Fatalf("read with OUT missing: %v", err)
	}
	publish(t, out, genSnap(2))
	text, _, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: "only-2.txt"}}})
	if err != nil || !strings.Contains(text, "gen 2") {
		t.Fatalf("new snapshot not seen: %v", err)
	}
	if _, _, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: "only-1.txt"}}}); err == nil {
		t.Fatal("old snapshot's file still served")
	}
	// A broken publication keeps the last good snapshot.
	mustDo(t, os.WriteFile(filepath.Join(out, "files.json"), []byte("{"), 0o644))
	if _, _, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: "only-2.txt"}}}); err != nil {
		t.Fatalf("broken files.json failed a request: %v", err)
	}
}
