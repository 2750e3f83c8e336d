package refresh

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/stages"
)

// An unchanged refresh does not republish: when the scan saw exactly what
// the previous run's scan saw (every name, kind, decision, device, inode,
// size, mtime and ctime: ScanDigest), no regular file lies in the racy
// window, the refresh key is the same (build, rules, options) and the
// published snapshot is still the one the state describes (checked by
// identity: checkPublished), then a run from that snapshot's inputs
// publishes that snapshot again, byte for byte but report.json. The run
// keeps it instead: nothing in OUT is written (docs/refresh.md).

// ScanDigest digests what the scan found, right after it and before any
// stage changes a record: every record's kind, lstat identity and
// files.json fields, and every pruned directory with its file count. recs
// and pruned are sorted by path (stages.Scan). Two runs whose scans give
// the same digest were given the same tree, but for the contents of
// regular files, which their identity and the racy window vouch for.
func ScanDigest(recs []*stages.Record, pruned []stages.Pruned) string {
	h := blake3.New()
	var buf []byte
	for _, rec := range recs {
		buf = buf[:0]
		buf = append(buf, 'r', byte(rec.Kind))
		id := rec.Identity()
		buf = binary.AppendUvarint(buf, id.Dev)
		buf = binary.AppendUvarint(buf, id.Ino)
		buf = binary.AppendVarint(buf, id.Size)
		buf = binary.AppendVarint(buf, id.MtimeNs)
		buf = binary.AppendVarint(buf, id.CtimeNs)
		buf = appendEntry(buf, &rec.Entry)
		h.Write(buf)
	}
	for _, p := range pruned {
		buf = append(buf[:0], 'p')
		buf = appendString(buf, p.Path)
		buf = appendString(buf, p.Reason)
		buf = binary.AppendVarint(buf, int64(p.Files))
		buf = appendBool(buf, p.Capped)
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// entryFields is how many fields appendEntry writes: a field added to
// snapshot.Entry must be added there too (TestScanDigestCoversEntry).
const entryFields = 27

// appendEntry appends every field of e, strings length-prefixed.
func appendEntry(b []byte, e *snapshot.Entry) []byte {
	for _, s := range [...]string{e.Path, e.Category, e.Reason, e.Mime, e.Language, e.Encoding, e.DuplicateOf, e.Hash,
		e.LinkTarget, e.Err, e.ExtractedFrom, e.Extractor, e.ExtractorVersion, e.Truncated} {
		b = appendString(b, s)
	}
	for _, n := range [...]int64{e.Size, int64(e.Lines), int64(e.Tokens), int64(e.Secrets), int64(e.Masked), int64(e.Replaced)} {
		b = binary.AppendVarint(b, n)
	}
	for _, f := range [...]bool{e.BOM, e.CRLF, e.Test, e.ExtMismatch, e.Staged, e.Oversize, e.Mojibake} {
		b = appendBool(b, f)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendBool(b []byte, f bool) []byte {
	if f {
		return append(b, 1)
	}
	return append(b, 0)
}

// Unchanged reports whether the previous snapshot is the answer for this
// run, whose scan found recs (scanSum: their ScanDigest): the scan saw what
// the previous one saw, no file must be read again (none lies in the racy
// window, none had an error, no path or link target held a finding, every
// directory's triage context is the same), and the published snapshot is
// the one the state describes (checkPublished). why says what differs
// when it is not ("" when it is); every doubt is a no.
func (p *Prior) Unchanged(env *stages.Env, recs []*stages.Record, scanSum string) (ok bool, why string) {
	if p == nil {
		return false, "no previous snapshot"
	}
	defer func() {
		if !ok {
			p.abandon.Store(true) // the check of the published files is of no use
		}
	}()
	switch {
	case p.scan == "" || p.scan != scanSum:
		return false, "the scan found other files or identities"
	case slices.ContainsFunc(p.findings, func(f secrets.PathFinding) bool { return f.Line == 0 }):
		return false, "a path or link target holds a finding"
	}
	listed := 0
	for _, rec := range recs {
		if rec.Kind != stages.KindFile || rec.Category != "" || rec.Err != "" {
			continue // decided by the scan, and the scan is the same
		}
		se := p.files[rec.Path]
		switch {
		case se == nil || p.entries[rec.Path] == nil:
			return false, report.NotReusedNew + ": " + rec.Path
		case rec.Identity() != se.identity():
			return false, report.NotReusedChanged + ": " + rec.Path
		case racy(se.Mtime, se.Ctime, p.started):
			return false, report.NotReusedRacy + ": " + rec.Path
		case se.Redo != "" && se.Redo != report.NotReusedFindings:
			return false, se.Redo + ": " + rec.Path
		case env.DirContext(rec) != se.Dir:
			return false, report.NotReusedContext + ": " + rec.Path
		}
		listed++
	}
	if listed != len(p.files) {
		return false, "the state lists other files"
	}
	if p.checked == nil {
		return false, "the state records no published identities"
	}
	if err := p.checked(); err != nil {
		return false, err.Error()
	}
	return true, ""
}

// Result is what the kept snapshot says: its manifest and findings.
func (p *Prior) Result() (*snapshot.Manifest, []secrets.PathFinding) {
	return p.manifest, p.Findings()
}

// published is the identity of one file or directory of the snapshot
// when its state was made, and for a file of OUT's top level its BLAKE3
// (hex), for when its identity is too recent to vouch for its bytes.
type published struct {
	Name               string // below OUT (a top-level file) or below tree/ (a directory; "" for tree/ itself)
	Dev, Ino           uint64
	Size, Mtime, Ctime int64
	Sum                string // top-level files only
	Trusted            bool   // its ctime lay more than CopyTrustWindow before the identity was taken
	// Perm, when not Trusted: its permission bits, which a chmod in the
	// same timestamp tick would change without moving its ctime.
	Perm fs.FileMode
}

func publishedOf(name, full string, st dirfd.Stat, trusted int64) (published, error) {
	pf := published{Name: name, Dev: st.ID.Dev, Ino: st.ID.Ino, Size: st.Size, Mtime: st.MtimeNs, Ctime: st.CtimeNs, Trusted: st.CtimeNs < trusted}
	if !pf.Trusted {
		fi, err := os.Lstat(full)
		if err != nil {
			return pf, err
		}
		pf.Perm = fi.Mode().Perm()
	}
	return pf, nil
}

// samePerm reports whether full still has pf's permission bits (only
// asked of an identity too recent to vouch for them).
func (pf *published) samePerm(full string) bool {
	fi, err := os.Lstat(full)
	return err == nil && fi.Mode().Perm() == pf.Perm
}

func (pf *published) same(st dirfd.Stat) bool {
	return pf.Dev == st.ID.Dev && pf.Ino == st.ID.Ino && pf.Size == st.Size && pf.Mtime == st.MtimeNs && pf.Ctime == st.CtimeNs
}

// recordPublished takes the identities of the snapshot being built at
// dir, once every file but the state is written: each top-level file
// (with its BLAKE3; known gives those already hashed, by name) and each
// directory of tree/ that holds a staged file.
func recordPublished(dir string, m *snapshot.Manifest, known map[string]string) (files, dirs []published, err error) {
	trusted := time.Now().Add(-CopyTrustWindow).UnixNano()
	names, err := readDirNames(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, name := range names {
		if name == snapshot.StateFile || name == snapshot.TreeDir {
			continue
		}
		full := filepath.Join(dir, name)
		st, err := dirfd.Lstat(full)
		if err != nil {
			return nil, nil, err
		}
		if !st.IsRegular() {
			return nil, nil, fmt.Errorf("%s: not a regular file", full)
		}
		pf, err := publishedOf(name, full, st, trusted)
		if err != nil {
			return nil, nil, err
		}
		if pf.Sum = known[name]; pf.Sum == "" {
			if pf.Sum, err = fileSum(full); err != nil {
				return nil, nil, err
			}
		}
		files = append(files, pf)
	}
	treeDir := filepath.Join(dir, snapshot.TreeDir)
	for _, rel := range treeDirs(m) {
		full := filepath.Join(treeDir, filepath.FromSlash(rel))
		st, err := dirfd.Lstat(full)
		if errors.Is(err, fs.ErrNotExist) {
			return files, nil, nil // no tree/ (a test's state): a refresh republishes
		}
		if err != nil {
			return nil, nil, err
		}
		if !st.IsDir() {
			return nil, nil, fmt.Errorf("%s: not a directory", full)
		}
		pf, err := publishedOf(rel, full, st, trusted)
		if err != nil {
			return nil, nil, err
		}
		dirs = append(dirs, pf)
	}
	return files, dirs, nil
}

// treeDirs lists the directories of tree/ that hold m's staged files, and
// tree/ itself (""), each once, parents first.
func treeDirs(m *snapshot.Manifest) []string {
	seen := map[string]bool{"": true}
	out := []string{""}
	var add func(string)
	add = func(d string) {
		if d == "." || seen[d] {
			return
		}
		add(path.Dir(d))
		seen[d] = true
		out = append(out, d)
	}
	for i := range m.Files {
		if m.Files[i].Staged {
			add(path.Dir(m.Files[i].Path))
		}
	}
	return out
}

func readDirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// errAbandoned: the check was stopped, the scan having shown a change.
var errAbandoned = errors.New("not checked: the scan found a change")

// errMoved: something in the published snapshot is not as the state
// recorded it.
var errMoved = errors.New("the published snapshot changed since its state was written")

// checkPublished checks, without reading the staged texts, that the
// published snapshot is the one its state describes: OUT holds exactly
// the files the state lists (the state and files.json were checked as the
// state was loaded), each with its recorded identity (a write, a chmod, a
// hard link or a replacement moves its ctime or its inode) and, where
// that identity was too recent to vouch for the bytes, its recorded
// BLAKE3; every directory of tree/ has its recorded identity (an entry
// added, removed or renamed moves its mtime), and every staged copy the
// identity the state recorded (else it is hashed against files.json).
func (p *Prior) checkPublished() error {
	if p.dirs == nil || p.published == nil {
		return errors.New("the state records no published identities")
	}
	dir := p.snap.Dir()
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o755 {
		return fmt.Errorf("%w: %s is not the directory it published", errMoved, dir)
	}
	names, err := readDirNames(dir)
	if err != nil {
		return err
	}
	if len(names) != len(p.published)+2 {
		return fmt.Errorf("%w: it holds %d names, the state lists %d", errMoved, len(names), len(p.published)+2)
	}
	byName := make(map[string]*published, len(p.published))
	for i := range p.published {
		byName[p.published[i].Name] = &p.published[i]
	}
	for _, name := range names {
		if name == snapshot.StateFile || name == snapshot.TreeDir {
			continue
		}
		pf := byName[name]
		if pf == nil {
			return fmt.Errorf("%w: %s is not one of its files", errMoved, name)
		}
		full := filepath.Join(dir, name)
		st, err := dirfd.Lstat(full)
		if err != nil || !st.IsRegular() || !pf.same(st) {
			return fmt.Errorf("%w: %s", errMoved, name)
		}
		if !pf.Trusted && (!pf.samePerm(full) || !p.hashes(name, pf.Sum)) {
			return fmt.Errorf("%w: %s", errMoved, name)
		}
	}
	return p.checkTree()
}

// hashes reports whether the top-level file name hashes to sum.
func (p *Prior) hashes(name, sum string) bool {
	if name == snapshot.FilesJSON {
		return sum == p.filesJSON // hashed as the state was loaded, and named by it
	}
	f, err := p.snap.OpenFile(name)
	if err != nil {
		return false
	}
	defer f.Close()
	h := blake3.New()
	if _, err := io.Copy(h, f); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == sum
}

// checkTree checks tree/'s directories and staged copies by identity.
func (p *Prior) checkTree() error {
	tree, err := dirfd.Open(filepath.Join(p.snap.Dir(), snapshot.TreeDir), dirfd.Options{MaxOpenDirs: 64})
	if err != nil {
		return err
	}
	defer tree.Close()
	byDir := make(map[string]*published, len(p.dirs))
	for i := range p.dirs {
		byDir[p.dirs[i].Name] = &p.dirs[i]
	}
	treeDir := filepath.Join(p.snap.Dir(), snapshot.TreeDir)
	var children map[string]map[string]bool // what each directory holds, if one must be read
	// checkDir checks what a directory whose identity was too recent to
	// vouch for holds, and its permissions.
	checkDir := func(d *dirfd.Dir, want *published) error {
		if want.Trusted {
			return nil
		}
		if children == nil {
			children = treeChildren(p.manifest)
		}
		full := filepath.Join(treeDir, filepath.FromSlash(want.Name))
		names, err := d.ReadDir()
		if err != nil || !want.samePerm(full) || len(names) != len(children[want.Name]) {
			return fmt.Errorf("%w: tree/%s", errMoved, want.Name)
		}
		for _, name := range names {
			if !children[want.Name][name] {
				return fmt.Errorf("%w: tree/%s", errMoved, path.Join(want.Name, name))
			}
		}
		return nil
	}
	root := byDir[""]
	if root == nil {
		return fmt.Errorf("%w: no identity of tree/", errMoved)
	}
	if st, err := dirfd.Lstat(treeDir); err != nil || !st.IsDir() || !root.same(st) || st.ID != tree.Root().ID() && !tree.Root().ID().IsZero() {
		return fmt.Errorf("%w: tree/", errMoved)
	}
	if err := checkDir(tree.Root(), root); err != nil {
		return err
	}
	open := map[string]*dirfd.Dir{"": tree.Root()}
	var at func(string) (*dirfd.Dir, error)
	at = func(rel string) (*dirfd.Dir, error) {
		if d := open[rel]; d != nil {
			return d, nil
		}
		want := byDir[rel]
		if want == nil {
			return nil, fmt.Errorf("%w: no identity of tree/%s", errMoved, rel)
		}
		parent, err := at(parentOf(rel))
		if err != nil {
			return nil, err
		}
		st, err := parent.Lstat(path.Base(rel))
		if err != nil || !st.IsDir() || !want.same(st) {
			return nil, fmt.Errorf("%w: tree/%s", errMoved, rel)
		}
		d := parent.Child(path.Base(rel), st.ID)
		if err := checkDir(d, want); err != nil {
			return nil, err
		}
		open[rel] = d
		return d, nil
	}
	for i := range p.manifest.Files {
		en := &p.manifest.Files[i]
		if !en.Staged {
			continue
		}
		if i%256 == 0 && p.abandon.Load() {
			return errAbandoned
		}
		d, err := at(parentOf(en.Path))
		if err != nil {
			return err
		}
		st, err := d.Lstat(path.Base(en.Path))
		if err != nil || !st.IsRegular() {
			return fmt.Errorf("%w: tree/%s", errMoved, en.Path)
		}
		se := p.files[en.Path]
		if se != nil && se.Copy != nil && *se.Copy == (copyID{Dev: st.ID.Dev, Ino: st.ID.Ino, Size: st.Size, Ctime: st.CtimeNs}) {
			continue
		}
		// No identity to vouch for it: its bytes must be what files.json says.
		want, err := hexSum(en.Hash)
		if err != nil || !p.copyHashes(en.Path, want) {
			return fmt.Errorf("%w: tree/%s", errMoved, en.Path)
		}
	}
	return nil
}

// copyHashes reports whether the previous tree's copy rel hashes to want.
func (p *Prior) copyHashes(rel string, want [32]byte) bool {
	f, err := p.copies.Open(rel)
	if err != nil {
		return false
	}
	defer f.Close()
	h := blake3.New()
	if _, err := io.Copy(h, f); err != nil {
		return false
	}
	return [32]byte(h.Sum(nil)) == want
}

// treeChildren is what each directory of tree/ holds (names of staged
// files and of directories), by its path ("" for tree/).
func treeChildren(m *snapshot.Manifest) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	add := func(dir, name string) bool {
		if out[dir] == nil {
			out[dir] = map[string]bool{}
		}
		had := out[dir][name]
		out[dir][name] = true
		return had
	}
	for i := range m.Files {
		if !m.Files[i].Staged {
			continue
		}
		for p := m.Files[i].Path; p != "" && p != "."; p = parentOf(p) {
			if add(parentOf(p), path.Base(p)) {
				break // its parents are listed already
			}
		}
	}
	return out
}

func parentOf(rel string) string {
	if d := path.Dir(rel); d != "." {
		return d
	}
	return ""
}
