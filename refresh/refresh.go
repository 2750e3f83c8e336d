// Package refresh is one room: a run whose OUT holds a snapshot made by the same
// build under the same rules and options takes, for each file whose
// identity (device, inode, size, mtime, ctime from the scan's lstat) has
// not changed, the previous entry and a copy of its staged text instead of
// reading, decoding, counting and scanning it again; everything that
// depends on other files (dedup, the cross-file secret pass, REPO_MAP,
// the audit, the indexes) is recomputed from all the entries. What a
// refresh publishes is byte for byte what a full run publishes
// (the pipeline's refresh tests): anything in doubt is read again.
//
// The identities live in a state file inside OUT (snapshot.StateFile), beside
// the snapshot it describes: files.json must stay the same on every
// machine, so it cannot hold them. Inside OUT, the state is published and
// removed with its snapshot by the same rename, so it can never describe
// another one; it is not part of the contract (readers ignore it). It
// holds no path a snapshot does not already show and no secret value: the
// values the cross-file pass looked for are kept as keyed digests, and the
// whole file is authenticated with a key derived from the fingerprint
// key, which never lands in OUT, so a state written by anyone else (or
// edited) is not used. See docs/refresh.md.
package refresh

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/dedup"
	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/stages"
)

// RacyWindow: a file whose mtime or ctime lies this close before the
// previous run began (or after) is read again. That run may have read it
// and then seen it rewritten within the same timestamp tick, leaving an
// identical identity over other bytes (git's "racily clean" entries).
// The tick is the file system's: a file whose timestamps carry
// nanoseconds lives on one that keeps them (ext4, XFS, btrfs, tmpfs), and
// its window is FineRacyWindow; one with whole seconds may be on FAT (two
// seconds) or ext3 or HFS+ (one), and gets RacyWindow. Variables so tests
// of reuse need not wait; FineRacyWindow never exceeds RacyWindow.
var RacyWindow = 2 * time.Second

// FineRacyWindow is the window of a file with sub-second timestamps: the
// kernel stamps files from its coarse clock, which lags the clock the run
// reads by up to one tick (10 ms at the coarsest common HZ, 100), so two
// ticks cover it.
var FineRacyWindow = 20 * time.Millisecond

// racy reports a file whose timestamps lie within its window of the
// previous run's start (started) or after it.
func racy(mtimeNs, ctimeNs, started int64) bool {
	return max(mtimeNs, ctimeNs) >= started-racyWindow(mtimeNs, ctimeNs)
}

// racyWindow is the window of one file, from its own timestamps.
func racyWindow(mtimeNs, ctimeNs int64) int64 {
	if mtimeNs%int64(time.Second) != 0 || ctimeNs%int64(time.Second) != 0 {
		return int64(min(FineRacyWindow, RacyWindow))
	}
	return int64(RacyWindow)
}

// Keys are the secrets a refresh derives from the fingerprint key, which
// never lands in OUT.
type Keys struct {
	mac    []byte // authenticates the state file
	values []byte // keys the value digests
	id     []byte // names the fingerprint key in the refresh key without revealing it
	text   []byte // keys the digests of texts read again (stateEntry.Text)
	sketch []byte // keys the value sketches (secrets.Values.Sketch)
}

// NewKeys derives a refresh's keys from the run's fingerprint key.
func NewKeys(fingerprintKey []byte) Keys {
	k := Keys{mac: make([]byte, 32), values: make([]byte, 32), id: make([]byte, 16), text: make([]byte, 32), sketch: make([]byte, 32)}
	blake3.DeriveKey("repoprep refresh state mac v1", fingerprintKey, k.mac)
	blake3.DeriveKey("repoprep refresh value digests v1", fingerprintKey, k.values)
	blake3.DeriveKey("repoprep refresh key identity v1", fingerprintKey, k.id)
	blake3.DeriveKey("repoprep refresh text digests v1", fingerprintKey, k.text)
	blake3.DeriveKey("repoprep refresh value sketches v1", fingerprintKey, k.sketch)
	return k
}

// WarmBuild starts taking the build's digest in the background, for a
// caller that will need a Key after other work (loading the rules).
func WarmBuild() { go buildDigest() }

// Inputs is what decides a snapshot besides the files: the build's
// version, a digest of the rules merged over the defaults, every option
// that changes the output, and the source root.
type Inputs struct {
	Version      string
	Rules        string // digest of the rule files merged over the embedded defaults
	Secrets, PII string // the secret modes
	MaxTextBytes int64
	PreviewLines int
	NoIgnore     bool
	Root         string
	Baseline     map[string]bool // the baseline's fingerprints
}

// Key digests in, the build itself and which fingerprint key: a snapshot
// made under another key is never reused. It errs when the running
// program cannot be read (then no snapshot can be trusted to be this
// build's).
func (keys Keys) Key(in Inputs) (string, error) {
	build, err := buildDigest()
	if err != nil {
		return "", err
	}
	h := blake3.New()
	fmt.Fprintf(h, "repoprep refresh v1\nversion %q\nbuild %s\nrules %s\n", in.Version, build, in.Rules)
	fmt.Fprintf(h, "secrets %q\npii %q\nmax-text-bytes %d\npreview-lines %d\nno-ignore %t\n", in.Secrets, in.PII, in.MaxTextBytes, in.PreviewLines, in.NoIgnore)
	fmt.Fprintf(h, "root %q\nfingerprint key %x\n", snapshot.RealPath(in.Root), keys.id)
	baseline := make([]string, 0, len(in.Baseline))
	for fp := range in.Baseline {
		baseline = append(baseline, fp)
	}
	slices.Sort(baseline)
	fmt.Fprintf(h, "baseline %d\n%s\n", len(baseline), strings.Join(baseline, "\n"))
	return "blake3:" + hex.EncodeToString(h.Sum(nil)), nil
}

// Prior is the previous snapshot a refresh reads from: opened with the
// lock held, so no run replaces it meanwhile.
type Prior struct {
	snap    *snapshot.Snapshot
	copies  *snapshot.Copies // its staged copies
	noClone atomic.Bool      // a reflink failed as unsupported: the filesystem has none
	// noCopyRange: copy_file_range failed as unsupported (place_linux.go).
	noCopyRange atomic.Bool
	started     int64
	values      map[string]bool
	textKey     []byte // stateEntry.Text's key
	valuesKey   []byte // keys the value digests
	sketchKey   []byte // keys the value sketches
	// filesJSON and repoMap are the BLAKE3 (hex) of the previous files.json
	// and REPO_MAP.md, as the state recorded them.
	filesJSON, repoMap string
	indexes            map[string]string  // the state's Indexes
	manifest           *snapshot.Manifest // what files.json holds
	valueList          []string           // the state's Values, in its order
	sketch             []uint64           // the state's Sketch
	// finderOnce makes sketchFinder (or finderErr) from sketch (finder).
	finderOnce   sync.Once
	sketchFinder *secrets.SketchFinder
	finderErr    error
	findings     []secrets.PathFinding // what secrets.json lists
	// replayed: nothing changed but texts that held nothing and still
	// hold nothing, the files with findings included, and their previous
	// entries, copies and findings were taken (Split).
	replayed bool
	// scan, published and dirs are the state's Scan, Published and Dirs
	// (Unchanged).
	scan            string
	published, dirs []published
	// checked is checkPublished's verdict, taken once (Load starts it, so
	// it runs while the scan does).
	checked func() error
	// abandon stops that check once the scan has shown a change.
	abandon atomic.Bool
	files   map[string]*stateEntry
	// decided are the files the scan decides that held nothing
	// (stateEntry.Decided), apart from files, which lists those the
	// per-file stages read.
	decided map[string]*stateEntry
	entries map[string]*snapshot.Entry
}

// Close releases the previous snapshot.
func (p *Prior) Close() {
	if p == nil {
		return
	}
	if p.checked != nil {
		p.checked() // it reads the snapshot: let it finish first
	}
	p.copies.Close()
	p.snap.Close()
}

// Load opens the previous snapshot at out for a refresh under key, or
// says why it cannot be used (nil, a report.Previous* code and a detail).
// Call it with the lock held: no run can replace out meanwhile.
func Load(out, key string, keys Keys) (*Prior, string, string) {
	if !snapshot.Exists(out) {
		return nil, report.PreviousNone, ""
	}
	snap, err := snapshot.Open(out)
	if err != nil {
		return nil, report.PreviousNoState, err.Error()
	}
	p, why, detail := load(snap, key, keys)
	if p == nil {
		snap.Close()
		return nil, why, detail
	}
	if p.scan != "" {
		// Whether the published snapshot is still the one the state
		// describes, checked while the scan runs (Unchanged).
		p.checked = sync.OnceValue(p.checkPublished)
		go p.checked()
	}
	return p, why, detail
}

func load(snap *snapshot.Snapshot, key string, keys Keys) (*Prior, string, string) {
	// files.json is hashed beside the state, which must name it: as a
	// stream (it is never held), and no further once the state is refused.
	filesSum := make(chan string, 1)
	stop := make(chan struct{})
	go func() { filesSum <- hashFile(snap, snapshot.FilesJSON, stop) }()
	st, err := readState(snap, keys.mac)
	if err != nil {
		close(stop)
		return nil, report.PreviousNoState, err.Error()
	}
	sum := <-filesSum
	if st.Key != key {
		return nil, report.PreviousOther, ""
	}
	if sum != st.FilesJSON || st.Manifest == nil {
		return nil, report.PreviousNoState, snapshot.FilesJSON + " is not the one the state describes"
	}
	m := st.Manifest
	copies, err := snap.Copies()
	if err != nil {
		return nil, report.PreviousNoState, err.Error()
	}
	p := &Prior{
		snap: snap, copies: copies, started: st.StartedNs, values: make(map[string]bool, len(st.Values)), textKey: keys.text, valuesKey: keys.values,
		sketchKey: keys.sketch, filesJSON: st.FilesJSON, repoMap: st.RepoMap, indexes: st.Indexes, manifest: m, valueList: st.Values, sketch: st.Sketch, findings: st.Findings,
		scan: st.Scan, published: st.Published, dirs: st.Dirs,
		files: make(map[string]*stateEntry, len(st.Files)), decided: map[string]*stateEntry{}, entries: make(map[string]*snapshot.Entry, len(m.Files)),
	}
	for _, v := range st.Values {
		p.values[v] = true
	}
	for i := range st.Files {
		if st.Files[i].Decided {
			p.decided[st.Files[i].Path] = &st.Files[i]
		} else {
			p.files[st.Files[i].Path] = &st.Files[i]
		}
	}
	for i := range m.Files {
		p.entries[m.Files[i].Path] = &m.Files[i]
	}
	return p, report.PreviousUsed, ""
}

// hashFile is the BLAKE3 (hex) of the file name inside the snapshot, read
// as a stream; "" when it cannot be read, or once stop is closed.
func hashFile(snap *snapshot.Snapshot, name string, stop <-chan struct{}) string {
	f, err := snap.OpenFile(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := blake3.New()
	buf := make([]byte, 256<<10)
	for {
		select {
		case <-stop:
			return ""
		default:
		}
		n, err := f.Read(buf)
		h.Write(buf[:n])
		if err == io.EOF {
			return hex.EncodeToString(h.Sum(nil))
		}
		if err != nil {
			return ""
		}
	}
}

// copyOwn copies the previous snapshot's file name into to, if it hashes
// to sum (hex BLAKE3); ok is false, and nothing is left at to, when it
// does not or cannot be read. err is for the new file's failures.
func (p *Prior) copyOwn(name, to, sum string) (ok bool, err error) {
	f, err := p.snap.OpenFile(name)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	h := blake3.New()
	var read error
	err = snapshot.WriteFile(to, func(w *bufio.Writer) error {
		_, read = io.Copy(io.MultiWriter(w, h), struct{ io.Reader }{f})
		return nil
	})
	if err == nil && read == nil && hex.EncodeToString(h.Sum(nil)) == sum {
		return true, nil
	}
	os.Remove(to)
	return false, err
}

// check says why rec cannot be taken from the previous snapshot, or ""
// with what to take (the entry, the state).
func (p *Prior) check(env *stages.Env, rec *stages.Record) (string, *snapshot.Entry, *stateEntry) {
	if rec.Kind != stages.KindFile || rec.Category != "" || rec.Err != "" {
		return report.NotReusedScan, nil, nil
	}
	se, en := p.files[rec.Path], p.entries[rec.Path]
	switch {
	case se == nil || en == nil:
		return report.NotReusedNew, nil, nil
	case rec.Identity() != se.identity():
		return report.NotReusedChanged, nil, nil
	case racy(se.Mtime, se.Ctime, p.started):
		return report.NotReusedRacy, nil, nil
	case env.DirContext(rec) != se.Dir:
		return report.NotReusedContext, nil, nil
	case se.Redo != "":
		return se.Redo, en, se // read again; se and en say what its text was
	}
	return "", en, se
}

// SameRepoMap returns the previous REPO_MAP.md when this run's files.json
// (BLAKE3 filesSum) is the previous one byte for byte: the map is a
// function of files.json and the staged texts it lists by hash, under the
// same build and source name (both in the refresh key), so it is the same,
// and rendering it again would cost the tokenizer's tables to measure it.
// The previous file must hash as the state recorded; else nil.
func (p *Prior) SameRepoMap(filesSum string) []byte {
	if p == nil || p.repoMap == "" || filesSum != p.filesJSON {
		return nil
	}
	data, err := p.snap.ReadFile(snapshot.RepoMapMD)
	if err != nil {
		return nil
	}
	if sum := blake3.Sum256(data); hex.EncodeToString(sum[:]) != p.repoMap {
		return nil
	}
	return data
}

// hexSum decodes files.json's "blake3:<hex>" hash.
func hexSum(h string) ([32]byte, error) {
	var sum [32]byte
	rest, ok := strings.CutPrefix(h, dedup.HashPrefix)
	if !ok || len(rest) != 64 {
		return sum, fmt.Errorf("not a BLAKE3 hash: %q", h)
	}
	_, err := hex.Decode(sum[:], []byte(rest))
	return sum, err
}
