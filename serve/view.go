package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/trigram"
	"github.com/repoprep/repoprep/snapshot"
)

// view is one loaded publication: its manifest, its derived indexes and an
// os.Root opened on its tree/ directory. The Root pins that directory, so a
// view keeps serving the files it was loaded with after OUT is swapped.
// Read-only after load, so requests share it without locks.
type view struct {
	stamp    snapshot.Stamp
	manifest *snapshot.Manifest
	byPath   map[string]*snapshot.Entry
	byBase   map[string][]string // base name -> readable paths, for "did you mean"
	readable []*snapshot.Entry   // staged files and duplicates, sorted by path
	paths    []string            // every manifest path, sorted, for directory checks
	repoMap  string
	tree     *os.Root

	instr    instrSet                   // instructions.json, or why it cannot be used
	listHash string                     // sha256 of files.json, hex, as sha256sum prints it
	trigrams *trigram.Index             // nil: search reads every file
	lines    map[string]*lineindex.File // oversize files' line marks, by path
	tokens   *snapshot.TokenIndex       // every staged line's token count; nil: reads count
	warnings []string                   // index files that could not be used, for the log
	grams    pathGrams                  // for not-found suggestions, built on the first miss
	glob     exampleGlob                // for search's narrowing hint, found on the first use

	refs    int  // requests using it; guarded by Server.mu
	retired bool // replaced or closed; guarded by Server.mu
}

// load opens OUT once (snapshot.Open) and reads everything through that
// one handle, so a swap in the middle of loading cannot give a manifest
// from one publication and a tree from another.
func load(out string) (*view, error) {
	snap, err := snapshot.Open(out)
	if err != nil {
		return nil, err
	}
	defer snap.Close() // the tree Root below holds its own handle
	stamp, err := snap.Stamp()
	if err != nil {
		return nil, fmt.Errorf("open snapshot: %w", err)
	}
	m, data, err := snap.Manifest()
	if err != nil {
		return nil, fmt.Errorf("open snapshot %s: %w", out, err)
	}
	repoMap, err := snap.ReadFile(snapshot.RepoMapMD)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("open snapshot: %w", err)
	}
	tree, err := snap.Tree()
	if err != nil {
		return nil, fmt.Errorf("open snapshot: %w", err)
	}
	sn := &view{
		stamp:    stamp,
		manifest: m,
		byPath:   make(map[string]*snapshot.Entry, len(m.Files)),
		byBase:   make(map[string][]string),
		repoMap:  string(repoMap),
		tree:     tree,

		instr: loadInstructions(snap),
	}
	for i := range m.Files {
		e := &m.Files[i]
		sn.byPath[e.Path] = e
		sn.paths = append(sn.paths, e.Path)
	}
	slices.Sort(sn.paths)
	for _, p := range sn.paths {
		e := sn.byPath[p]
		if sn.canonical(e) == "" {
			continue
		}
		sn.readable = append(sn.readable, e)
		base := path.Base(p)
		sn.byBase[base] = append(sn.byBase[base], p)
	}
	sum := sha256.Sum256(data)
	sn.listHash = hex.EncodeToString(sum[:])
	sn.loadIndexes(snap)
	return sn, nil
}

// loadIndexes loads the search and line indexes when they are present and
// agree with files.json. They only make answers cheaper, so any trouble
// leaves them out (with a warning to log) and the answers stay the same.
func (sn *view) loadIndexes(snap *snapshot.Snapshot) {
	if data, err := snap.ReadFile(snapshot.SearchIndex); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			sn.warnings = append(sn.warnings, fmt.Sprintf("%s unreadable (%v); search reads every file", snapshot.SearchIndex, err))
		}
	} else if ix, err := trigram.Parse(data); err != nil {
		sn.warnings = append(sn.warnings, fmt.Sprintf("%s: %v; search reads every file", snapshot.SearchIndex, err))
	} else if !slices.Equal(ix.Paths(), sn.stagedPaths()) {
		sn.warnings = append(sn.warnings, fmt.Sprintf("%s does not list the staged files of %s; search reads every file", snapshot.SearchIndex, snapshot.FilesJSON))
	} else {
		sn.trigrams = ix
	}
	// The token index stays open: a read takes one file's counts from it.
	if ix, err := snap.LineTokens(sn.manifest); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			sn.warnings = append(sn.warnings, fmt.Sprintf("%v; reads count tokens", err))
		}
	} else {
		sn.tokens = ix
	}
	if data, err := snap.ReadFile(snapshot.LinesJSON); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			sn.warnings = append(sn.warnings, fmt.Sprintf("%s unreadable (%v); oversize reads scan", snapshot.LinesJSON, err))
		}
	} else if ix, err := lineindex.Parse(data); err != nil {
		sn.warnings = append(sn.warnings, fmt.Sprintf("%v; oversize reads scan", err))
	} else {
		sn.lines = make(map[string]*lineindex.File, len(ix.Files))
		for i := range ix.Files {
			f := &ix.Files[i]
			if e := sn.byPath[f.Path]; e != nil && e.Staged && e.Lines == f.Lines {
				sn.lines[f.Path] = f
			}
		}
	}
}

// stagedPaths lists the staged paths in order: the ids of the search index.
func (sn *view) stagedPaths() []string {
	var out []string
	for _, e := range sn.readable {
		if e.Staged {
			out = append(out, e.Path)
		}
	}
	return out
}

// canonical returns the staged path that serves e, or "" when e is not
// readable (snapshot.ServedBy).
func (sn *view) canonical(e *snapshot.Entry) string { return snapshot.ServedBy(e, sn.byPath) }

func (sn *view) close() {
	sn.tree.Close()
	if sn.tokens != nil {
		sn.tokens.Close()
	}
}

// refresh swaps in a new snapshot when OUT changed since the last load. It
// costs two stats per request. Any trouble (OUT missing for an instant during
// a non-atomic publish, a half-written manifest) keeps the current snapshot:
// a swap must never fail a request.
func (s *Server) refresh() {
	if id, err := snapshot.StampAt(s.out); err != nil || s.isCurrent(id) {
		return // the common case: two stats, no reload lock
	}
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	// A publication may replace OUT again while we load it (and delete the
	// directory we were reading); a few tries follow it to the newest one.
	for try := 0; try < 5; try++ {
		id, err := snapshot.StampAt(s.out)
		if err != nil || s.isCurrent(id) {
			return
		}
		sn, err := load(s.out)
		if err != nil {
			if now, serr := snapshot.StampAt(s.out); serr == nil && now != id {
				continue // replaced while loading: load the newer one
			}
			s.log.Warn("snapshot reload failed; still serving the previous one", "out", s.out, "err", err)
			s.mu.Lock()
			s.badID = id
			s.mu.Unlock()
			return
		}
		s.install(sn)
		return
	}
}

// install makes sn current and retires the snapshot it replaces.
func (s *Server) install(sn *view) {
	s.mu.Lock()
	if s.cur == nil { // closed meanwhile
		s.mu.Unlock()
		sn.close()
		return
	}
	old := s.cur
	s.cur = sn
	closeOld := s.retireLocked(old)
	s.mu.Unlock()
	if closeOld {
		old.close()
	}
	s.log.Info("snapshot reloaded", "out", s.out, "files", len(sn.manifest.Files), "readable", len(sn.readable))
	s.logWarnings(sn)
}

// logWarnings logs what loading sn left out.
func (s *Server) logWarnings(sn *view) {
	for _, w := range sn.warnings {
		s.log.Warn("snapshot index not used", "out", s.out, "why", w)
	}
}

func (s *Server) isCurrent(id snapshot.Stamp) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur == nil || s.cur.stamp == id || s.badID == id
}

// retireLocked marks sn replaced and reports whether the caller must close it
// now (no request holds it). s.mu must be held.
func (s *Server) retireLocked(sn *view) bool {
	sn.retired = true
	return sn.refs == 0
}

// acquire pins the current snapshot for one request.
func (s *Server) acquire() (*view, error) {
	s.refresh()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil {
		return nil, errors.New("server closed")
	}
	s.cur.refs++
	return s.cur, nil
}

// release unpins sn, closing it when it was retired and this was its last user.
func (s *Server) release(sn *view) {
	s.mu.Lock()
	sn.refs--
	closeNow := sn.retired && sn.refs == 0
	s.mu.Unlock()
	if closeNow {
		sn.close()
	}
}

// maxSwapRetries bounds reruns of one call across publications. Each rerun
// needs a newer snapshot than the last, so the bound only matters when
// publications come faster than reads; the request timeout bounds it too.
const maxSwapRetries = 100

// withSnapshot runs fn on a pinned snapshot. If fn fails on an I/O error and
// a newer snapshot has appeared meanwhile (the publisher may delete the old
// directory right after the swap), the whole call is rerun on the new one, so
// an answer always comes from exactly one snapshot and never fails because of
// a swap.
func (s *Server) withSnapshot(ctx context.Context, fn func(context.Context, *view) (answer, error)) (answer, error) {
	for attempt := 0; ; attempt++ {
		sn, err := s.acquire()
		if err != nil {
			return answer{}, err
		}
		ans, err := s.runPinned(ctx, sn, fn)
		if err == nil || isClientError(err) || ctx.Err() != nil || attempt == maxSwapRetries {
			return ans, err
		}
		s.refresh()
		s.mu.Lock()
		stale := s.cur != sn
		s.mu.Unlock()
		if !stale {
			return ans, err
		}
	}
}

// stale reports whether a newer snapshot than sn is being served now.
func (s *Server) stale(sn *view) bool {
	s.refresh()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur != sn
}

// runPinned runs fn on sn and unpins sn however fn ends, a panic included.
func (s *Server) runPinned(ctx context.Context, sn *view, fn func(context.Context, *view) (answer, error)) (answer, error) {
	defer s.release(sn)
	return fn(ctx, sn)
}

// isDir reports whether name is a directory in the snapshot: some listed
// path lies under it.
func (sn *view) isDir(name string) bool {
	prefix := name + "/"
	i, _ := slices.BinarySearch(sn.paths, prefix)
	return i < len(sn.paths) && strings.HasPrefix(sn.paths[i], prefix)
}
