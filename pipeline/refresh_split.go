package pipeline

import (
	"bufio"
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/zeebo/blake3"
	"golang.org/x/sync/errgroup"

	"github.com/repoprep/repoprep/internal/dedup"
	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/internal/tokens"
	"github.com/repoprep/repoprep/internal/trigram"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/stages"
)

// split is the seam between the scan and the per-file stages. It returns
// the records those stages must read now (todo) and a function, wait,
// that the caller must call once those stages are done (or failed:
// abandon). Meanwhile every other record's staged text (its own, or its
// canonical copy's for a duplicate) is copied from the previous tree into
// the new one, in the background so the copies overlap the per-file work,
// and checked against the hash files.json recorded. wait returns when the
// copies are done, having filled each record placed from its previous
// entry (stages.Env.Reuse), and returns the records whose copy was not
// what files.json said: the per-file stages must read those too. Records
// without staged text (refused, binary, data...) are filled at once. why
// counts, by reason, the records not taken. It works with either shape of
// the per-file loop (the one-read loop, the stage-by-stage order): it only
// decides which records enter it.
//
// When nothing changed (every file the state lists is there with its
// identity, no file is new, and no path or link target holds a secret:
// namesClean), the files with findings are not read either. Their values
// are the ones the previous run caught, so every copy it redacted and
// every finding it reported stand: their previous copies are placed like
// any other, and p.replayed tells the caller to take the previous findings
// instead of running the secret stage. If one of those copies is not what
// files.json says, they are all read after all.
func (p *prior) split(ctx context.Context, env *stages.Env, recs []*stages.Record, workers int, why map[string]int, namesClean func() bool) (todo []*stages.Record, wait func(abandon bool) ([]*stages.Record, error)) {
	reasons := make([]string, len(recs))
	var jobs []job
	priors := make([]stages.Prior, len(recs))
	type finding struct {
		i  int
		en *snapshot.Entry
	}
	var findings []finding // read again for their findings, unless replayed
	seen := 0
	for i, rec := range recs {
		if p.files[rec.Path] != nil {
			rec.PathClean() // recorded, so its path held no finding under these rules
		}
		r, en, se := p.check(env, rec)
		if r == "" || r == whyFindings {
			seen++
		}
		if r == whyFindings && en != nil {
			findings = append(findings, finding{i, en})
		}
		if r == whyFindings && se.Text != "" {
			// Read again for its values; if its text is what it was, its
			// token count is last time's (exact, and not counted again).
			if d, err := hex.DecodeString(se.Text); err == nil && len(d) == 32 {
				rec.Expect(stages.Expectation{Key: p.textKey, Digest: [32]byte(d), Tokens: se.Tokens, Final: en.Hash, FinalTokens: en.Tokens})
			}
		}
		if r != "" {
			reasons[i] = r
			continue
		}
		priors[i] = stages.Prior{Entry: *en, RulesClean: se.Rules, ValuesClean: true, Clean: true}
		switch j, ok := p.placeJob(i, en); {
		case !ok:
			reasons[i] = whyCopy
		case j.from == "":
			env.Reuse(rec, priors[i]) // nothing to place
		default:
			jobs = append(jobs, j)
		}
	}
	// The replay: every other file as it was, and every finding from text.
	replay := len(findings) > 0 && seen == len(p.files) &&
		!slices.ContainsFunc(p.findings, func(f secrets.PathFinding) bool { return f.Line == 0 }) &&
		!slices.ContainsFunc(reasons, func(r string) bool { return r != "" && r != whyFindings && r != whyScan }) &&
		namesClean()
	var replayed []job // placed like the others, filled only if all of them are
	if replay {
		for _, f := range findings {
			prior := stages.Prior{Entry: *f.en}
			if _, staged := stages.StagedBytes(f.en); staged {
				// Grouped by its text before redaction, as when read.
				d, err := hex.DecodeString(p.files[recs[f.i].Path].Text)
				if err != nil || len(d) != 32 {
					replay = false
					break
				}
				prior.Replayed = (*[32]byte)(d)
			}
			j, ok := p.placeJob(f.i, f.en)
			if !ok {
				replay = false
				break
			}
			priors[f.i] = prior
			replayed = append(replayed, j)
		}
	}
	if replay {
		for _, j := range replayed {
			reasons[j.i] = ""
			if j.from != "" {
				jobs = append(jobs, j)
			}
		}
	}
	for i, r := range reasons {
		if r != "" {
			why[r]++
			todo = append(todo, recs[i])
		}
	}

	pctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		// A few long-lived workers, not a goroutine per file: each would
		// grow its stack again for the copy.
		g, gctx := errgroup.WithContext(pctx)
		var next atomic.Int64
		for range max(workers, 1) {
			g.Go(func() error {
				for {
					k := int(next.Add(1) - 1)
					if k >= len(jobs) || gctx.Err() != nil {
						return nil
					}
					j := jobs[k]
					rec := recs[j.i]
					n, r, err := p.place(gctx, j.from, filepath.Join(env.TreeDir, filepath.FromSlash(rec.Path)), j.want, j.trust)
					if err != nil {
						return fmt.Errorf("refresh %s: %w", rec.Path, err)
					}
					reasons[j.i] = r
					priors[j.i].Sum, priors[j.i].Bytes = j.want, n
				}
			})
		}
		done <- g.Wait()
	}()
	wait = func(abandon bool) ([]*stages.Record, error) {
		if abandon {
			cancel()
		}
		err := <-done
		cancel()
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return nil, err
		}
		isReplayed := make(map[int]bool, len(replayed))
		for _, j := range replayed {
			isReplayed[j.i] = true
		}
		p.replayed = replay && !slices.ContainsFunc(jobs, func(j job) bool { return isReplayed[j.i] && reasons[j.i] != "" })
		var late []*stages.Record
		for _, j := range jobs {
			rec := recs[j.i]
			if r := reasons[j.i]; r != "" {
				why[r]++
				late = append(late, rec)
				continue
			}
			if isReplayed[j.i] && !p.replayed {
				continue // read below, its copy removed
			}
			env.Reuse(rec, priors[j.i])
		}
		for _, j := range replayed {
			rec := recs[j.i]
			switch {
			case p.replayed:
				if j.from == "" {
					env.Reuse(rec, priors[j.i]) // nothing was placed
				}
			case reasons[j.i] == "":
				// A replay given up: read for its findings after all.
				if j.from != "" {
					if err := os.Remove(filepath.Join(env.TreeDir, filepath.FromSlash(rec.Path))); err != nil {
						return nil, fmt.Errorf("refresh %s: %w", rec.Path, err)
					}
				}
				why[whyFindings]++
				late = append(late, rec)
			}
		}
		return late, nil
	}
	return todo, wait
}

// job is one staged text to place: recs[i]'s, from the previous tree.
type job struct {
	i     int
	from  string // the previous tree's copy to place; "": nothing to place
	want  [32]byte
	trust *copyID // its identity when the state was made
}

// placeJob is the copy that gives recs[i] its previous staged text, from
// its previous entry en: from is "" when the entry has no staged text
// (refused, binary, excluded...), ok false when files.json's hash for it
// is malformed.
func (p *prior) placeJob(i int, en *snapshot.Entry) (j job, ok bool) {
	from, staged := stages.StagedBytes(en)
	if !staged {
		return job{i: i}, true
	}
	want, err := hex.DecodeString(strings.TrimPrefix(en.Hash, dedup.HashPrefix))
	if err != nil || len(want) != 32 || !strings.HasPrefix(en.Hash, dedup.HashPrefix) {
		return job{}, false
	}
	j = job{i: i, from: from, want: [32]byte(want)}
	if se := p.files[from]; se != nil {
		j.trust = se.Copy
	}
	return j, true
}

// cloneFiles lets a benchmark measure the copy where reflinks work.
var cloneFiles = true

// copyBufs holds place's buffers; it runs on many goroutines at once.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// place puts a copy of the previous tree's from at to (a path in the new
// tree), a reflink where the filesystem has them (FICLONE: no bytes
// copied, and later writes to either never show in the other), else a
// copy; either way the bytes are hashed and must hash to want. A hard
// link is never used: it would share one inode between two snapshots, so
// a change to one would change a published snapshot, and verify and serve
// refuse hard-linked files. why is "" when placed, else why the record
// must be read from its source instead (nothing is left at to). err is
// for failures of the machine: a full disk must stop the run.
func (p *prior) place(ctx context.Context, from, to string, want [32]byte, trust *copyID) (n int64, why string, err error) {
	if n, why, err, ok := p.placeFast(ctx, from, to, want, trust); ok {
		return n, why, err
	}
	src, err := p.open(from)
	if err != nil {
		if dirfd.IsResource(err) {
			return 0, "", err
		}
		return 0, whyCopy, nil // gone, replaced by a symlink or a FIFO: not what files.json says
	}
	defer src.Close()
	if dir := filepath.Dir(to); !p.madeDir(dir) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return placeFailed(err)
		}
		p.made.Store(dir, true)
	}
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return placeFailed(err)
	}
	ok := false
	defer func() {
		if !ok {
			dst.Close()
			os.Remove(to)
		}
	}()
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	h := blake3.New()
	cloned := false
	if cloneFiles && !p.noClone.Load() {
		err := cloneFile(dst, src)
		cloned = err == nil
		if cloneUnsupported(err) {
			p.noClone.Store(true) // the filesystem has none: copy the rest without asking
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return 0, "", err
		}
		m, rerr := src.Read(buf)
		h.Write(buf[:m])
		if !cloned && m > 0 {
			if _, err := dst.Write(buf[:m]); err != nil {
				return placeFailed(err)
			}
		}
		n += int64(m)
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			if dirfd.IsResource(rerr) {
				return 0, "", rerr
			}
			return 0, whyCopy, nil
		}
	}
	if [32]byte(h.Sum(nil)) != want {
		return 0, whyCopy, nil // edited in OUT since it was published
	}
	if err := dst.Close(); err != nil {
		return placeFailed(err)
	}
	ok = true
	return n, "", nil
}

func (p *prior) madeDir(dir string) bool {
	_, ok := p.made.Load(dir)
	return ok
}

// open opens the previous tree's regular file at rel without following a
// symlink anywhere on the way: in one openat2 where the kernel has it,
// else one component at a time (dirfd).
func (p *prior) open(rel string) (*os.File, error) {
	f, ok, err := openBeneath(p.treeDir, rel)
	if !ok {
		return p.tree.OpenPath(rel)
	}
	return f, err
}

// placeFailed sorts a failed write to the new tree: a path that no longer
// fits (this run's temporary name is longer) is the file's business, and
// normalize will record it; anything else stops the run.
func placeFailed(err error) (int64, string, error) {
	if errors.Is(err, syscall.ENAMETOOLONG) {
		return 0, whyPathLength, nil
	}
	return 0, "", err
}

// stateOf makes the state file of the snapshot being built: each regular
// file the scan left for the per-file stages, with its identity, its
// directory's triage facts, and whether the next run may reuse it. Call it
// after the secret stage (it says which texts held findings) and before
// buildManifest consumes recs. decided marks the records the scan decided
// itself (never reused: it decides them again for nothing).
func (r *run) stateOf(env *stages.Env, recs []*stages.Record, decided []bool) (*refreshState, error) {
	st := &refreshState{Schema: stateSchema, Key: r.refresh.Key, StartedNs: r.start.UnixNano()}
	var err error
	if r.replayed() {
		st.Values = r.prior.valueList // the values caught are the previous run's
	} else if st.Values, err = r.secrets.Values.Digests(r.keys.values); err != nil {
		return nil, err
	}
	copies := stagedCopies(env.TreeDir, recs)
	for i, rec := range recs {
		id := rec.Identity()
		if decided[i] || rec.Kind != stages.KindFile || id == (stages.Identity{}) || rec.Reason == "secret-in-name" {
			continue // the last: its path is masked, and unmasked it must not be written down
		}
		e := stateEntry{Path: rec.Path, Dev: id.Dev, Ino: id.Ino, Size: id.Size, Mtime: id.MtimeNs, Ctime: id.CtimeNs, Dir: env.DirContext(rec)}
		rulesHere, clean := rec.SecretState()
		hasText := rec.Staged || rec.DuplicateOf != ""
		switch {
		case rec.Err != "":
			e.Redo = whyError
		case rec.Reason == "secret", rec.Secrets > 0, hasText && !clean:
			e.Redo = whyFindings
		}
		e.Rules = e.Redo == "" && hasText && rulesHere
		if e.Redo == whyFindings {
			if d, tokens, ok := rec.TextDigest(r.keys.text); ok {
				e.Text, e.Tokens = hex.EncodeToString(d[:]), tokens
			} else if r.replayed() && r.prior.files[rec.Path] != nil {
				prev := r.prior.files[rec.Path] // not read: its text is the one it had
				e.Text, e.Tokens = prev.Text, prev.Tokens
			}
		}
		if e.Redo == "" && rec.Staged && copies != nil {
			e.Copy = copies[i]
		}
		st.Files = append(st.Files, e)
	}
	return st, nil
}

// readFiles runs the per-file stages on the records they must read, with
// what the previous snapshot gives taken meanwhile (prior.split): the
// copies of reused files go on while the others are read, and a record
// whose copy turned out not to be what files.json said is read after.
// Without a previous snapshot every record is read.
func (r *run) readFiles(ctx context.Context, env *stages.Env, recs []*stages.Record) error {
	<-r.load.done
	r.prior = r.load.p
	if r.prior == nil {
		r.refresh.Previous = cmp.Or(r.load.previous, r.refresh.Previous, report.PreviousNone)
		r.refresh.Detail = cmp.Or(r.load.detail, r.refresh.Detail)
		if len(recs) > 0 {
			r.refresh.NotReused[r.refresh.Previous] = len(recs)
		}
		if !r.warmed {
			go tokens.Warm()
		}
		return r.perFile(ctx, env, recs, true)
	}
	r.refresh.Previous = report.PreviousUsed
	begin := time.Now()
	r.opts.Progress.Stage("reuse", -1)
	todo, wait := r.prior.split(ctx, env, recs, r.opts.Workers, r.refresh.NotReused, func() bool { return env.NamesClean(r.secrets, recs) })
	warmIfCounting(todo)
	spent := time.Since(begin)
	err := r.perFile(ctx, env, todo, true)
	begin = time.Now()
	late, werr := wait(err != nil)
	spent += time.Since(begin) // the copies' time that the reading did not hide
	if err = cmp.Or(err, werr); err != nil {
		return err
	}
	if len(late) > 0 {
		warmIfCounting(late)
		if err := r.perFile(ctx, env, late, false); err != nil {
			return err
		}
	}
	r.refresh.Reused = len(recs) - len(todo) - len(late)
	read := make(map[*stages.Record]bool, len(todo)+len(late))
	for _, rec := range append(todo, late...) {
		read[rec] = true
	}
	r.record("reuse", spent, recs, func(rec *stages.Record) bool { return !read[rec] })
	// The cross-file pass may skip a reused text when it looks for no value
	// the previous run did not (none of those occurred in it).
	r.secrets.ValuesKnown = func(v *secrets.Values) bool {
		ds, err := v.Digests(r.keys.values)
		if err != nil {
			return false
		}
		for _, d := range ds {
			if !r.prior.values[d] {
				return false
			}
		}
		return true
	}
	return nil
}

// replayed reports whether this refresh read no file and takes the
// previous findings (prior.split).
func (r *run) replayed() bool { return r.prior != nil && r.prior.replayed }

// warmIfCounting builds the tokenizer's tables in the background (a
// fraction of a second of one core) if some record the per-file stages
// read will have its tokens counted: one that is not decided by the scan
// and for which the refresh expects no text. An unchanged refresh whose
// only reads are files with findings then never builds them (REPO_MAP.md
// is reused too, writeRepoMap).
func warmIfCounting(recs []*stages.Record) {
	for _, rec := range recs {
		if rec.Kind == stages.KindFile && rec.Category == "" && rec.Err == "" && rec.Size > 0 && !rec.Expected() {
			go tokens.Warm()
			return
		}
	}
}

// priorLoad is the previous snapshot, loaded while the scan runs.
type priorLoad struct {
	done             chan struct{}
	p                *prior
	previous, detail string
}

// copyIndexes copies the previous snapshot's search.index and lines.json
// into dir when staged (sorted by path) are exactly the previous staged
// files: the same paths, each with the hash and oversize flag files.json
// recorded (hashes of the final, redacted text). Both indexes are a
// function of those files and their order alone. The previous files must
// parse (the trigram index checks its CRC) and list those paths with
// those sizes; otherwise ok is false and the caller builds them.
func (p *prior) copyIndexes(staged []*stages.Record, dir string) (ok bool, err error) {
	var prev []*snapshot.Entry
	for _, en := range p.entries {
		if en.Staged {
			prev = append(prev, en)
		}
	}
	if len(prev) != len(staged) {
		return false, nil
	}
	slices.SortFunc(prev, func(a, b *snapshot.Entry) int { return strings.Compare(a.Path, b.Path) })
	var oversize []*stages.Record
	for i, rec := range staged {
		if en := prev[i]; en.Path != rec.Path || en.Hash != rec.Hash || en.Oversize != rec.Oversize {
			return false, nil
		}
		if rec.Oversize {
			oversize = append(oversize, rec)
		}
	}
	tri, err := readOwn(filepath.Join(p.out, trigram.FileName))
	if err != nil {
		return false, nil
	}
	ix, err := trigram.ParseFiles(tri) // copied whole: its checksum covers the table
	if err != nil || len(ix.Paths()) != len(staged) {
		return false, nil
	}
	for i, rec := range staged {
		if ix.Paths()[i] != rec.Path || ix.Size(i) != rec.OutSize {
			return false, nil
		}
	}
	lines, err := readOwn(filepath.Join(p.out, lineindex.FileName))
	if err != nil {
		return false, nil
	}
	lx, err := lineindex.Parse(lines)
	if err != nil || len(lx.Files) != len(oversize) {
		return false, nil
	}
	for i, rec := range oversize {
		if f := lx.Files[i]; f.Path != rec.Path || f.Size != rec.OutSize || f.Lines != rec.Lines {
			return false, nil
		}
	}
	for name, data := range map[string][]byte{trigram.FileName: tri, lineindex.FileName: lines} {
		if err := writeFile(filepath.Join(dir, name), func(w *bufio.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return false, err
		}
	}
	return true, nil
}

// unchanged reports whether rec's final staged text is the previous
// snapshot's at the same path: its entry was staged with the same hash.
func (p *prior) unchanged(rec *stages.Record) bool {
	en := p.entries[rec.Path]
	return en != nil && en.Staged && en.Hash == rec.Hash
}

// updateIndex writes dst from the previous search.index, reading only the
// staged files whose text changed (trigram.Update); ok is false when the
// previous index cannot serve (missing, damaged, or most files changed)
// and the caller builds one. The result is the index a build writes.
func (p *prior) updateIndex(ctx context.Context, staged []*stages.Record, files []trigram.File, dst string) (ok bool, err error) {
	data, err := readOwn(filepath.Join(p.out, trigram.FileName))
	if err != nil {
		return false, nil
	}
	ix, err := trigram.Parse(data)
	if err != nil {
		return false, nil
	}
	ids := make(map[string]int, len(ix.Paths()))
	for id, path := range ix.Paths() {
		ids[path] = id
	}
	from := make([]int, len(staged))
	read := 0
	for i, rec := range staged {
		from[i] = -1
		if id, ok := ids[rec.Path]; ok && p.unchanged(rec) && ix.Size(id) == rec.OutSize {
			from[i] = id
		} else {
			read++
		}
	}
	if read > len(staged)/2 {
		return false, nil // a build reads as much and sorts faster
	}
	// What the previous index holds under a dropped id: the previous
	// tree's copy, which must hash as files.json says (else the update
	// stops and a build is made).
	old := func(id int) (trigram.File, bool) {
		path := ix.Paths()[id]
		en := p.entries[path]
		if en == nil || !en.Staged {
			return trigram.File{}, false
		}
		want, err := hexSum(en.Hash)
		if err != nil {
			return trigram.File{}, false
		}
		return trigram.File{Path: path, Open: func() (io.ReadCloser, error) {
			f, err := p.open(path)
			if err != nil {
				return nil, err
			}
			return &checkedReader{f: f, h: blake3.New(), want: want}, nil
		}}, true
	}
	err = trigram.UpdateWith(ctx, ix, files, from, old, dst)
	if errors.Is(err, trigram.ErrTooManyChanges) || errors.Is(err, trigram.ErrDamaged) || errors.Is(err, errPreviousCopy) {
		os.Remove(dst)
		return false, nil
	}
	return err == nil, err
}

// errPreviousCopy: a previous tree's copy does not hash as files.json says.
var errPreviousCopy = errors.New("the previous copy is not what files.json says")

// checkedReader reads a previous copy and, at its end, errs unless it
// hashed to want.
type checkedReader struct {
	f    *os.File
	h    *blake3.Hasher
	want [32]byte
}

func (c *checkedReader) Read(b []byte) (int, error) {
	n, err := c.f.Read(b)
	c.h.Write(b[:n])
	if err == io.EOF && [32]byte(c.h.Sum(nil)) != c.want {
		return n, errPreviousCopy
	}
	return n, err
}

func (c *checkedReader) Close() error { return c.f.Close() }

// lineMarks returns the previous lines.json's marks of the oversize staged
// files whose text is unchanged, by path.
func (p *prior) lineMarks(staged []*stages.Record) map[string]lineindex.File {
	data, err := readOwn(filepath.Join(p.out, lineindex.FileName))
	if err != nil {
		return nil
	}
	lx, err := lineindex.Parse(data)
	if err != nil {
		return nil
	}
	byPath := make(map[string]lineindex.File, len(lx.Files))
	for _, f := range lx.Files {
		byPath[f.Path] = f
	}
	out := map[string]lineindex.File{}
	for _, rec := range staged {
		if f, ok := byPath[rec.Path]; ok && rec.Oversize && p.unchanged(rec) && f.Size == rec.OutSize && f.Lines == rec.Lines {
			out[rec.Path] = f
		}
	}
	return out
}
