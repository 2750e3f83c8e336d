package snapshot

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/repoprep/repoprep/internal/dirfd"
)

// ErrLocked means another run holds the lock on the same OUT.
var ErrLocked = errors.New("another run is publishing to this output")

// Lock is an flock(2) (on Windows, LockFileEx) held on a file beside
// OUT, ".OUT.lock". The kernel drops it when the process dies, so a run
// killed with SIGKILL never blocks the next one.
//
// The lock file also holds the run's journal: the first line names the
// holder (for the message a second run prints), the others the
// directories this run made beside OUT, each with its identity, so the
// next run can tell what a killed run left and restore or remove exactly
// that: never a directory that merely has a matching name (a repository
// may hold ".staging.tmp-42/"), never one that is not ours.
type Lock struct {
	f      *os.File
	path   string
	dir    string // OUT's parent, where the lock and temporary dirs live
	out    string
	id     dirfd.ID
	holder string
	log    *slog.Logger
	// journal is what this run has made and not yet removed, and what
	// killed runs left that could not be removed (carried forward).
	journal []journalEntry
}

// journalEntry is one directory beside OUT that a run made.
type journalEntry struct {
	kind string // "tmp": a snapshot being built; "old": a previous snapshot moved aside
	name string // its name in OUT's parent
	id   dirfd.ID
}

// lockPath, tmpPrefix: the run's files live beside OUT (same filesystem, so
// the final rename is atomic) under names derived from OUT's.
func lockPath(out string) string  { return siblingPrefix(out) + "lock" }
func tmpPrefix(out string) string { return siblingPrefix(out) + "tmp-" }
func siblingPrefix(out string) string {
	return filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".")
}

// maxLockAttempts bounds the retries when the lock file is unlinked or
// replaced between its open and its flock.
const maxLockAttempts = 10

// acquireLock takes the lock for out. The lock file is opened without
// following a symlink (a repository that commits ".staging.lock ->
// ../victim" must not get victim truncated or created), must be a regular
// file with one link owned by this user, and after flock must still be
// the file at the lock's name: a lock file unlinked or replaced by the
// holder's peers would otherwise let two runs in at once.
func acquireLock(out string, log *slog.Logger) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, err
	}
	path := lockPath(out)
	for range maxLockAttempts {
		l, retry, err := tryLock(path)
		if errors.Is(err, ErrLocked) {
			return nil, fmt.Errorf("%s: %w", out, err) // OUT as the user gave it, not the lock's name
		}
		if err != nil {
			return nil, err
		}
		if retry {
			continue
		}
		l.dir, l.out, l.log = filepath.Dir(out), out, log
		return l, nil
	}
	return nil, fmt.Errorf("lock %s: it kept being replaced while it was taken", path)
}

// check errs when the lock's name no longer holds the locked file: someone
// removed or replaced it during the run, so another run may have taken a
// lock of its own and be publishing; this one must stand down rather than
// publish beside it.
func (l *Lock) check() error {
	if st, err := dirfd.Lstat(l.path); err != nil || st.ID != l.id {
		return fmt.Errorf("lock %s was removed or replaced during the run; another run may be publishing to %s, so this one does not", l.path, l.out)
	}
	return nil
}

// readHolder returns the first line of the lock file: who holds it.
func readHolder(f *os.File) (string, error) {
	b := make([]byte, 512)
	n, err := f.ReadAt(b, 0)
	if n == 0 {
		return "an unknown process", err
	}
	line, _, _ := strings.Cut(string(b[:n]), "\n")
	if line = strings.TrimSpace(line); line == "" {
		return "an unknown process", nil
	}
	return line, nil
}

// readJournal parses what the last holder recorded. Lines that do not name
// one of this OUT's temporary names exactly are ignored: the file may be
// anyone's.
func (l *Lock) readJournal() []journalEntry {
	data := make([]byte, 64<<10)
	n, _ := l.f.ReadAt(data, 0)
	prefix := filepath.Base(tmpPrefix(l.out))
	var out []journalEntry
	sc := bufio.NewScanner(strings.NewReader(string(data[:n])))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 || f[0] != "tmp" && f[0] != "old" {
			continue
		}
		rest, ok := strings.CutPrefix(f[1], prefix)
		if !ok || !isTempSuffix(rest) {
			continue
		}
		dev, err1 := strconv.ParseUint(f[2], 10, 64)
		ino, err2 := strconv.ParseUint(f[3], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, journalEntry{kind: f[0], name: f[1], id: dirfd.ID{Dev: dev, Ino: ino}})
	}
	return out
}

// isTempSuffix accepts what follows the temporary prefix in names this
// program makes: MkdirTemp's digits, and those with ".old" from the
// two-rename publication.
func isTempSuffix(s string) bool {
	s = strings.TrimSuffix(s, ".old")
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// writeJournal rewrites the lock file: the holder line, then the journal.
func (l *Lock) writeJournal() error {
	var b strings.Builder
	b.WriteString(l.holder + "\n")
	for _, e := range l.journal {
		fmt.Fprintf(&b, "%s %s %d %d\n", e.kind, e.name, e.id.Dev, e.id.Ino)
	}
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("lock %s: %w", l.path, err)
	}
	if _, err := l.f.WriteAt([]byte(b.String()), 0); err != nil {
		return fmt.Errorf("lock %s: %w", l.path, err)
	}
	return nil
}

// record adds directories to the journal before they matter: a
// temporary snapshot right after it is made, a previous snapshot before
// it is moved aside.
func (l *Lock) record(es ...journalEntry) error {
	l.journal = append(l.journal, es...)
	return l.writeJournal()
}

// forget drops a directory from the journal once it is gone or published.
func (l *Lock) forget(name string) error {
	kept := l.journal[:0]
	for _, e := range l.journal {
		if e.name != name {
			kept = append(kept, e)
		}
	}
	l.journal = kept
	return l.writeJournal()
}

// recover deals with what a killed run left beside OUT, as its journal
// says: a previous snapshot moved aside while OUT is missing (killed
// between the two renames of a publication without RENAME_EXCHANGE) is
// moved back; other leftovers are removed. Only a directory at a recorded
// name, owned by this user, with the recorded identity, is touched. What
// cannot be removed (a read-only snapshot, say) is reported, kept in the
// journal for the next run and left alone: it must not stop this run.
// What is left stays in the journal, for Skip.
func (l *Lock) recover() error {
	entries := l.readJournal()
	// Previous snapshots first: one may have to become OUT again before
	// the temporary one beside it is removed.
	var ordered []journalEntry
	for _, kind := range []string{"old", "tmp"} {
		for _, e := range entries {
			if e.kind == kind {
				ordered = append(ordered, e)
			}
		}
	}
	for _, e := range ordered {
		p := filepath.Join(l.dir, e.name)
		if !l.ours(p, e.id) {
			continue
		}
		if e.kind == "old" {
			if _, err := os.Lstat(l.out); errors.Is(err, fs.ErrNotExist) {
				if err := os.Rename(p, l.out); err != nil {
					return fmt.Errorf("restore the previous snapshot %s to %s: %w", p, l.out, err)
				}
				l.log.Warn("restored the previous snapshot a killed run had moved aside", "from", p, "to", l.out)
				continue
			}
		}
		if err := removeOwnTree(p); err != nil {
			l.log.Warn("cannot remove what a killed run left; leaving it and going on", "path", p, "err", err)
			l.journal = append(l.journal, e)
		}
	}
	return l.writeJournal()
}

// release drops the lock. With nothing left to clean up the lock file is
// removed, so no ".OUT.lock" lingers beside OUT between runs; removing it
// while it is locked is safe, since a run that opened it before the
// unlink finds after its flock that the name no longer holds the file it
// locked, and takes a new one (tryLock). With something left (a previous
// snapshot that could not be removed) the file stays, holding no holder
// and only that journal, for the next run.
func (l *Lock) release() {
	if len(l.journal) == 0 {
		if l.check() == nil { // the name still holds our file, not someone else's
			os.Remove(l.path)
		}
	} else {
		l.holder = ""
		l.writeJournal()
	}
	l.f.Close() // closing drops the flock
}
