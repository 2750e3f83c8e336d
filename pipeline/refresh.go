package pipeline

import (
	"bufio"
	"bytes"
	"crypto/subtle"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/dedup"
	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/stages"
)

// A refresh: a run whose OUT holds a snapshot made by the same
// build under the same rules and options takes, for each file whose
// identity (device, inode, size, mtime, ctime from the scan's lstat) has
// not changed, the previous entry and a copy of its staged text instead of
// reading, decoding, counting and scanning it again; everything that
// depends on other files (dedup, the cross-file secret pass, REPO_MAP,
// the audit, the indexes) is recomputed from all the entries. What a
// refresh publishes is byte for byte what a full run publishes
// (refresh_test.go): anything in doubt is read again.
//
// The identities live in a state file inside OUT, .refresh-state, beside
// the snapshot it describes: files.json must stay the same on every
// machine, so it cannot hold them. Inside OUT, the state is published and
// removed with its snapshot by the same rename, so it can never describe
// another one; it is not part of the contract (readers ignore it). It
// holds no path a snapshot does not already show and no secret value: the
// values the cross-file pass looked for are kept as keyed digests, and the
// whole file is authenticated with a key derived from the fingerprint
// key, which never lands in OUT, so a state written by anyone else (or
// edited) is not used. See docs/refresh.md.

// stateName is the refresh state's name inside OUT.
const stateName = ".refresh-state"

const stateSchema = "repoprep.refresh-state/v2"

// racyWindow: a file whose mtime or ctime lies this close before the
// previous run began (or after) is read again. That run may have read it
// and then seen it rewritten within the same timestamp tick, leaving an
// identical identity over other bytes (git's "racily clean" entries).
// Two seconds covers the coarsest timestamps of common filesystems (FAT's
// two seconds, ext3's and HFS+'s one) on the same clock; a variable so
// tests of reuse need not wait.
var racyWindow = 2 * time.Second

// Why a file was not taken from the previous snapshot (report.json's
// refresh.not_reused), and why no file was (refresh.previous).
const (
	whyScan       = "decided-by-scan"   // symlink, special file, ignored, unsafe name: the scan decides it every run
	whyNew        = "new"               // no previous entry at that path
	whyChanged    = "changed"           // device, inode, size, mtime or ctime differ
	whyRacy       = "touched-recently"  // changed within racyWindow of the previous run
	whyContext    = "directory-context" // the directory's triage facts changed (vendored, tests, generated)
	whyFindings   = "had-findings"      // the previous text held secrets: their values are never kept, so it is read again
	whyError      = "had-error"         // the previous entry recorded a per-file failure
	whyCopy       = "previous-copy-differs"
	whyPathLength = "path-too-long" // its copy does not fit under this run's temporary name

)

// refreshState is the state file's body, after its MAC line, in gob: a
// refresh decodes it in a twelfth of the time JSON takes (7 against 94 ms
// for Go's src/), and only ever decodes one this build wrote (the MAC
// says so first).
type refreshState struct {
	Schema    string
	Key       string
	FilesJSON string       // BLAKE3 of the files.json it describes
	RepoMap   string       // BLAKE3 of the REPO_MAP.md beside it
	StartedNs int64        // when that run began, for racyWindow
	Values    []string     // keyed digests of the values the cross-file pass looked for
	Files     []stateEntry // the regular files the scan left for the per-file stages
	// Manifest is what that files.json holds (it hashes to FilesJSON):
	// a refresh takes its entries from here instead of parsing the JSON,
	// and copies files.json when its own manifest comes out the same.
	Manifest *snapshot.Manifest
	// Findings is what secrets.json lists (masked matches and
	// fingerprints, never a value): a refresh that finds every file as it
	// was, those with findings included, publishes them again
	// (prior.split's replay).
	Findings []secrets.PathFinding
}

// stateEntry is one regular file the scan left for the per-file stages.
type stateEntry struct {
	Path               string
	Dev, Ino           uint64
	Size, Mtime, Ctime int64
	Dir                string // stages.Env.DirContext
	Redo               string // why the next run must read it again ("" : it may reuse it)
	Rules              bool   // the secret rules ran on its text at this path and found nothing
	// For a file to be read again for its findings: a keyed digest of its
	// normalized text before redaction, and its token count
	// (stages.Expectation).
	Text   string
	Tokens int
	// Copy is the identity of its staged copy in tree/ when the state was
	// made (staged files only, and only if older than copyTrustWindow
	// then): a refresh copies a previous copy that still has it without
	// hashing it again.
	Copy *copyID
}

// copyID is a staged copy's identity: any write to it, a chmod, or its
// replacement moves its ctime or its inode.
type copyID struct {
	Dev, Ino    uint64
	Size, Ctime int64
}

// copyTrustWindow: a staged copy whose ctime lies this close to the
// moment its identity was taken is left without one (and is hashed when
// the next refresh copies it): a write within the same timestamp tick
// (the kernel's coarse clock: 1 to 10 ms) would leave its ctime as it was.
var copyTrustWindow = 100 * time.Millisecond

func (e *stateEntry) identity() stages.Identity {
	return stages.Identity{Dev: e.Dev, Ino: e.Ino, Size: e.Size, MtimeNs: e.Mtime, CtimeNs: e.Ctime}
}

// refreshKeys are the secrets a refresh derives from the fingerprint key.
type refreshKeys struct {
	mac    []byte // authenticates the state file
	values []byte // keys the value digests
	id     []byte // names the fingerprint key in the refresh key without revealing it
	text   []byte // keys the digests of texts read again (stateEntry.Text)
}

func newRefreshKeys(fingerprintKey []byte) refreshKeys {
	k := refreshKeys{mac: make([]byte, 32), values: make([]byte, 32), id: make([]byte, 16), text: make([]byte, 32)}
	blake3.DeriveKey("repoprep refresh state mac v1", fingerprintKey, k.mac)
	blake3.DeriveKey("repoprep refresh value digests v1", fingerprintKey, k.values)
	blake3.DeriveKey("repoprep refresh key identity v1", fingerprintKey, k.id)
	blake3.DeriveKey("repoprep refresh text digests v1", fingerprintKey, k.text)
	return k
}

// buildDigest names the running program by its bytes: a source build's
// version ("(devel)", or a tag with -dirty) does not tell two builds
// apart, and a snapshot made by other code must not be reused.
var buildDigest = sync.OnceValues(func() (string, error) {
	f, err := os.Open("/proc/self/exe") // the running image, even if the file was replaced since
	if err != nil {
		exe, xerr := os.Executable()
		if xerr != nil {
			return "", fmt.Errorf("cannot read the running program: %w", errors.Join(err, xerr))
		}
		if f, err = os.Open(exe); err != nil {
			return "", fmt.Errorf("cannot read the running program: %w", err)
		}
	}
	defer f.Close()
	h := blake3.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("cannot read the running program: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
})

// refreshKey digests what decides a snapshot besides the files: the
// build, the rules merged over the defaults, every option that changes
// the output (the secret modes, the limits, --no-ignore, the baseline's
// fingerprints, which fingerprint key) and the source root.
func refreshKey(o Options, rulesDigest string, sec stages.SecretOptions, keys refreshKeys) (string, error) {
	build, err := buildDigest()
	if err != nil {
		return "", err
	}
	h := blake3.New()
	fmt.Fprintf(h, "repoprep refresh v1\nversion %q\nbuild %s\nrules %s\n", o.Version, build, rulesDigest)
	fmt.Fprintf(h, "secrets %q\npii %q\nmax-text-bytes %d\npreview-lines %d\nno-ignore %t\n", o.Secrets, o.PII, o.MaxTextBytes, o.PreviewLines, o.NoIgnore)
	fmt.Fprintf(h, "root %q\nfingerprint key %x\n", snapshot.RealPath(o.Root), keys.id)
	baseline := make([]string, 0, len(sec.Baseline))
	for fp := range sec.Baseline {
		baseline = append(baseline, fp)
	}
	slices.Sort(baseline)
	fmt.Fprintf(h, "baseline %d\n%s\n", len(baseline), strings.Join(baseline, "\n"))
	return "blake3:" + hex.EncodeToString(h.Sum(nil)), nil
}

// prior is the previous snapshot a refresh reads from.
type prior struct {
	out     string
	tree    *dirfd.Tree // OUT/tree, read without following symlinks
	treeDir *os.File    // the same directory, for openBeneath
	made    sync.Map    // directories of the new tree already made, by OS path
	noClone atomic.Bool // a reflink failed as unsupported: the filesystem has none
	// noCopyRange: copy_file_range failed as unsupported (refresh_linux.go).
	noCopyRange atomic.Bool
	// treeFd is treeDir's descriptor for placeFast's openat2; noOpenat2
	// says the kernel refused it.
	treeFd    int
	noOpenat2 atomic.Bool
	started   int64
	values    map[string]bool
	textKey   []byte // stateEntry.Text's key
	// filesJSON and repoMap are the BLAKE3 (hex) of the previous files.json
	// and REPO_MAP.md, as the state recorded them.
	filesJSON, repoMap string
	manifest           *snapshot.Manifest    // what files.json holds
	valueList          []string              // the state's Values, in its order
	findings           []secrets.PathFinding // what secrets.json lists
	// replayed: nothing changed, the files with findings included, and
	// their previous entries, copies and findings were taken (split).
	replayed bool
	files    map[string]*stateEntry
	entries  map[string]*snapshot.Entry
}

func (p *prior) close() {
	if p == nil {
		return
	}
	if p.tree != nil {
		p.tree.Close()
	}
	if p.treeDir != nil {
		p.treeDir.Close()
	}
}

// loadPrior opens the previous snapshot at out for a refresh under key,
// or says why it cannot be used (nil, a previous* code and a detail). It
// is called with the lock held: no run can replace out meanwhile.
func loadPrior(out, key string, keys refreshKeys) (*prior, string, string) {
	if _, err := os.Lstat(filepath.Join(out, "files.json")); errors.Is(err, fs.ErrNotExist) {
		return nil, report.PreviousNone, ""
	}
	// files.json is read and hashed beside the state, which must name it.
	filesSum := make(chan string, 1)
	go func() {
		data, err := readOwn(filepath.Join(out, "files.json"))
		if err != nil {
			filesSum <- ""
			return
		}
		sum := blake3.Sum256(data)
		filesSum <- hex.EncodeToString(sum[:])
	}()
	st, err := readState(out, keys.mac)
	sum := <-filesSum
	if err != nil {
		return nil, report.PreviousNoState, err.Error()
	}
	if st.Key != key {
		return nil, report.PreviousOther, ""
	}
	if sum != st.FilesJSON || st.Manifest == nil {
		return nil, report.PreviousNoState, "files.json is not the one the state describes"
	}
	m := st.Manifest
	tree, err := dirfd.Open(filepath.Join(out, "tree"), dirfd.Options{MaxOpenDirs: 16}) // beside the source tree's 64
	if err != nil {
		return nil, report.PreviousNoState, err.Error()
	}
	treeDir, _ := os.Open(filepath.Join(out, "tree")) // nil: every open walks with dirfd
	p := &prior{
		out: out, tree: tree, treeDir: treeDir, started: st.StartedNs, values: make(map[string]bool, len(st.Values)), textKey: keys.text,
		filesJSON: st.FilesJSON, repoMap: st.RepoMap, manifest: m, valueList: st.Values, findings: st.Findings,
		files: make(map[string]*stateEntry, len(st.Files)), entries: make(map[string]*snapshot.Entry, len(m.Files)),
	}
	if treeDir != nil {
		p.treeFd = int(treeDir.Fd())
	}
	for _, v := range st.Values {
		p.values[v] = true
	}
	for i := range st.Files {
		p.files[st.Files[i].Path] = &st.Files[i]
	}
	for i := range m.Files {
		p.entries[m.Files[i].Path] = &m.Files[i]
	}
	return p, report.PreviousUsed, ""
}

// readOwn reads a file of the previous snapshot whole (openOwn: no
// symlink followed, no access time moved), refusing anything but a
// regular file: a FIFO planted in OUT would block the read.
func readOwn(name string) ([]byte, error) {
	f, err := openOwn(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	// Sized once from fstat (io.ReadAll would grow and copy a 15 MB
	// search.index a dozen times); a file grown since is still read whole.
	var b bytes.Buffer
	b.Grow(int(min(info.Size(), 1<<30)) + bytes.MinRead)
	_, err = b.ReadFrom(f)
	return b.Bytes(), err
}

// copyOwn copies the previous snapshot's file name into to, if it hashes
// to sum (hex BLAKE3); ok is false, and nothing is left at to, when it
// does not or cannot be read. err is for the new file's failures.
func (p *prior) copyOwn(name, to, sum string) (ok bool, err error) {
	f, err := openOwn(filepath.Join(p.out, name))
	if err != nil {
		return false, nil
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return false, nil
	}
	h := blake3.New()
	var read error
	err = writeFile(to, func(w *bufio.Writer) error {
		_, read = io.Copy(io.MultiWriter(w, h), struct{ io.Reader }{f})
		return nil
	})
	if err == nil && read == nil && hex.EncodeToString(h.Sum(nil)) == sum {
		return true, nil
	}
	os.Remove(to)
	return false, err
}

// readState reads and authenticates OUT's state file: "mac <hex>\n" and
// the JSON it authenticates.
func readState(out string, macKey []byte) (*refreshState, error) {
	data, err := readOwn(filepath.Join(out, stateName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New("no refresh state in the previous snapshot")
	}
	if err != nil {
		return nil, err
	}
	line, body, ok := bytes.Cut(data, []byte("\n"))
	tag, ok2 := bytes.CutPrefix(line, []byte("mac "))
	if !ok || !ok2 {
		return nil, errors.New("refresh state: no mac line")
	}
	if subtle.ConstantTimeCompare(tag, stateMAC(macKey, body)) != 1 {
		return nil, errors.New("refresh state: not written with this fingerprint key, or changed since")
	}
	var st refreshState
	dec := gob.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("refresh state: %w", err)
	}
	if err := dec.Decode(new(refreshState)); err != io.EOF {
		return nil, errors.New("refresh state: trailing data")
	}
	if st.Schema != stateSchema {
		return nil, fmt.Errorf("refresh state: schema %q, want %q", st.Schema, stateSchema)
	}
	return &st, nil
}

func stateMAC(key, body []byte) []byte {
	h, _ := blake3.NewKeyed(key) // 32 bytes: never fails
	h.Write(body)
	return []byte(hex.EncodeToString(h.Sum(nil)))
}

// writeState writes the state file of the snapshot being built in dir.
func writeState(dir string, st *refreshState, macKey []byte) error {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(st); err != nil {
		return err
	}
	body := b.Bytes()
	f, err := os.OpenFile(filepath.Join(dir, stateName), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(append([]byte("mac "), stateMAC(macKey, body)...), '\n'))
	if err == nil {
		_, err = f.Write(body)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", stateName, err)
	}
	return nil
}

// check says why rec cannot be taken from the previous snapshot, or ""
// with what to take (the entry, the state).
func (p *prior) check(env *stages.Env, rec *stages.Record) (string, *snapshot.Entry, *stateEntry) {
	if rec.Kind != stages.KindFile || rec.Category != "" || rec.Err != "" {
		return whyScan, nil, nil
	}
	se, en := p.files[rec.Path], p.entries[rec.Path]
	switch {
	case se == nil || en == nil:
		return whyNew, nil, nil
	case rec.Identity() != se.identity():
		return whyChanged, nil, nil
	case max(se.Mtime, se.Ctime) >= p.started-int64(racyWindow):
		return whyRacy, nil, nil
	case env.DirContext(rec) != se.Dir:
		return whyContext, nil, nil
	case se.Redo != "":
		return se.Redo, en, se // read again; se and en say what its text was
	}
	return "", en, se
}

// sameRepoMap returns the previous REPO_MAP.md when this run's files.json
// (BLAKE3 filesSum) is the previous one byte for byte: the map is a
// function of files.json and the staged texts it lists by hash, under the
// same build and source name (both in the refresh key), so it is the same,
// and rendering it again would cost the tokenizer's tables to measure it.
// The previous file must hash as the state recorded; else nil.
func (p *prior) sameRepoMap(filesSum string) []byte {
	if p == nil || p.repoMap == "" || filesSum != p.filesJSON {
		return nil
	}
	data, err := readOwn(filepath.Join(p.out, "REPO_MAP.md"))
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
