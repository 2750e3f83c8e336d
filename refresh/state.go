package refresh

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
	"slices"
	"strings"
	"time"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/stages"
)

// stateSchema v5: the schema first, then the files in chunks
// (stateChunkLen) as NewState makes them, then the manifest's entries in
// chunks, then the State itself: neither the files nor the body are ever
// held whole (v4 put the State first, so the files were held until the
// end of the run).
const stateSchema = "repoprep.refresh-state/v6"

// State is the refresh state of a snapshot being built: the file's body,
// after its MAC line, in gob: the schema, the Files in chunks of at most
// stateChunkLen, the Manifest's entries in chunks, then the State without
// either. A refresh decodes it in a twelfth of the time JSON takes (7
// against 94 ms for Go's src/), and only ever decodes one this build
// wrote (the MAC says so first).
type State struct {
	Schema    string
	Key       string
	FilesJSON string // BLAKE3 of the files.json it describes
	RepoMap   string // BLAKE3 of the REPO_MAP.md beside it
	// Indexes is the BLAKE3 (hex) of search.index and lines.json as
	// published, by name: their own sums are unkeyed (anyone who can write
	// OUT can recompute them), so a refresh carries an index forward only
	// when it is the one this MAC'd state describes.
	Indexes   map[string]string
	StartedNs int64    // when that run began, for RacyWindow
	Values    []string // keyed digests of the values the cross-file pass looked for
	// Sketch is those values' sketches (secrets.Values.Sketch): with the
	// digests they tell whether an edited text holds one (Split).
	Sketch []uint64
	Files  []stateEntry // the regular files the scan left for the per-file stages
	// Manifest is what that files.json holds (it hashes to FilesJSON):
	// a refresh takes its entries from here instead of parsing the JSON,
	// and copies files.json when its own manifest comes out the same.
	Manifest *snapshot.Manifest
	// Findings is what secrets.json lists (masked matches and
	// fingerprints, never a value): a refresh that finds every file as it
	// was, those with findings included, publishes them again
	// (prior.split's replay).
	Findings []secrets.PathFinding
	// Scan is the ScanDigest of what that run's scan found; Published and
	// Dirs the identities of the snapshot's top-level files and of tree/'s
	// directories (recordPublished). With them a refresh that finds
	// nothing changed keeps the snapshot instead of publishing it again
	// (Prior.Unchanged).
	Scan      string
	Published []published
	Dirs      []published
	// NumFiles and NumEntries are how many Files and Manifest entries
	// came before the State in chunks.
	NumFiles, NumEntries int

	stream *stateStream // the state file being written, from NewState to Write
}

// fileChunk and entryChunk are one gob value of the state's files and of
// its manifest's entries; Last ends the list.
type (
	fileChunk struct {
		Items []stateEntry
		Last  bool
	}
	entryChunk struct {
		Items []snapshot.Entry
		Last  bool
	}
)

// stateStream is a state file being written: its MAC line's place is
// kept and filled once the body is written, and the body goes through
// the MAC as it is encoded.
type stateStream struct {
	f     *os.File
	w     *bufio.Writer
	mac   *blake3.Hasher
	enc   *gob.Encoder
	files []stateEntry // the chunk being filled
	n     int          // files written
	// entries is how many manifest entries were written (Entries), -1
	// before they are.
	entries int
}

// macLine is the state file's first line with its MAC's place kept.
var macLine = []byte("mac " + strings.Repeat("0", 2*32) + "\n")

// begin creates the state file in out and writes the schema.
func (st *State) begin(out *snapshot.Pending, keys Keys) error {
	f, err := os.OpenFile(out.Path(snapshot.StateFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	mac, _ := blake3.NewKeyed(keys.mac) // 32 bytes: never fails
	s := &stateStream{f: f, mac: mac, files: make([]stateEntry, 0, stateChunkLen), entries: -1}
	s.w = bufio.NewWriterSize(io.MultiWriter(f, mac), 64<<10)
	s.enc = gob.NewEncoder(s.w)
	if _, err = f.Write(macLine); err == nil {
		err = s.enc.Encode(stateSchema)
	}
	if err != nil {
		f.Close()
		return err
	}
	st.stream = s
	return nil
}

// add writes e in its chunk.
func (s *stateStream) add(e stateEntry) error {
	s.files = append(s.files, e)
	if len(s.files) < stateChunkLen {
		return nil
	}
	return s.flushFiles(false)
}

// flushFiles writes the files held, the last chunk if last.
func (s *stateStream) flushFiles(last bool) error {
	if len(s.files) == 0 && !last {
		return nil
	}
	err := s.enc.Encode(fileChunk{Items: s.files, Last: last})
	s.n += len(s.files)
	s.files = s.files[:0]
	return err
}

// Close closes the state file if Write has not (a run that failed before
// it): the pending snapshot it is in is removed with it.
func (st *State) Close() {
	if st != nil && st.stream != nil {
		st.stream.f.Close()
		st.stream = nil
	}
}

// stateChunkLen is how many files or entries one gob value of the state
// holds: the state is written as it is encoded, never held whole (it is
// about 280 bytes a file; encoded as one value, gob's buffer and the
// file's held it twice at the end of a run, at its peak of memory).
const stateChunkLen = 1024

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
	// Enc is what normalize learned of its charset for the repository
	// prior: a reused file counts toward it, and a reused weak one decided
	// under another prior is decided again (stages.EncodingMemo).
	Enc stages.EncodingMemo
	// Copy is the identity of its staged copy in tree/ when the state was
	// made (staged files only, and only if older than CopyTrustWindow
	// then): a refresh copies a previous copy that still has it without
	// hashing it again.
	Copy *copyID
	// Decided marks a file the scan decides (ignored, excluded by a rule)
	// that the secret stage scans every run and found nothing in: only
	// its identity is kept, so a replay can tell it is as it was.
	Decided bool
}

// copyID is a staged copy's identity: any write to it, a chmod, or its
// replacement moves its ctime or its inode.
type copyID struct {
	Dev, Ino    uint64
	Size, Ctime int64
}

// CopyTrustWindow: a staged copy whose ctime lies this close to the
// moment its identity was taken is left without one (and is hashed when
// the next refresh copies it): a write within the same timestamp tick
// (the kernel's coarse clock: 1 to 10 ms) would leave its ctime as it was.
var CopyTrustWindow = 100 * time.Millisecond // a variable so tests need not wait

func (e *stateEntry) identity() stages.Identity {
	return stages.Identity{Dev: e.Dev, Ino: e.Ino, Size: e.Size, MtimeNs: e.Mtime, CtimeNs: e.Ctime}
}

// stateBytesPerListed bounds the refresh state by what it describes: per
// byte of files.json, at most this many bytes of state. The state holds
// the manifest (files.json's entries in gob, which is never longer than
// their JSON: no field names, varints) and, per entry at most, one
// stateEntry: the path again, its directory's triage context (three
// quoted strings of at most the directory's path and a rule's
// description each), a 64-byte text digest and a dozen numbers, at most
// about six times the entry's JSON (itself its path and some 300 bytes of
// fields). Sixteen leaves room; the findings are bounded by secrets.json
// (stateBytesPerFinding), the gob's type descriptions and header by
// stateBytesFixed.
const (
	stateBytesPerListed  = 16
	stateBytesPerFinding = 2 // per byte of secrets.json, which lists the same findings in JSON
	stateBytesFixed      = 1 << 20
)

// maxStateBytes is the most the state of a snapshot whose files.json and
// secrets.json hold filesJSON and secretsJSON bytes may hold: a larger
// one (a sparse file of gigabytes planted in OUT) is refused from its
// size, before it is read or its MAC computed. A real state is about half
// of files.json (GOROOT/src: 3.2 MB beside 6.0 MB).
func maxStateBytes(filesJSON, secretsJSON int64) int64 {
	const most = 1 << 60 // past it, saturate: no sum overflows
	return min(stateBytesPerListed*min(filesJSON, most/64)+stateBytesPerFinding*min(secretsJSON, most/64)+stateBytesFixed, most)
}

// stateCapWhy says how maxStateBytes is made, for a refusal.
var stateCapWhy = fmt.Sprintf("%d times %s, %d times %s and 1 MiB", stateBytesPerListed, snapshot.FilesJSON, stateBytesPerFinding, snapshot.SecretsJSON)

// readState reads and authenticates a snapshot's state file: "mac <hex>\n"
// and the gob it authenticates. The file is read only up to what a state
// of this snapshot can hold (maxStateBytes), and authenticated before the
// gob is decoded.
func readState(snap *snapshot.Snapshot, macKey []byte) (*State, error) {
	size := func(name string) int64 {
		if fi, err := snap.Lstat(name); err == nil {
			return fi.Size()
		}
		return 0
	}
	limit := maxStateBytes(size(snapshot.FilesJSON), size(snapshot.SecretsJSON))
	data, err := snap.ReadFileMax(snapshot.StateFile, limit)
	var tooLarge *snapshot.TooLargeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, errors.New("no refresh state in the previous snapshot")
	case errors.As(err, &tooLarge):
		return nil, fmt.Errorf("refresh state not read: %w (%s)", err, stateCapWhy)
	case err != nil:
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
	dec := gob.NewDecoder(bytes.NewReader(body))
	var schema string
	if err := dec.Decode(&schema); err != nil {
		return nil, fmt.Errorf("refresh state: %w", err)
	}
	if schema != stateSchema {
		return nil, fmt.Errorf("refresh state: schema %q, want %q", schema, stateSchema)
	}
	// Each chunk's element takes at least a byte: the counts are bounded
	// by the body before anything is made of them.
	files, err := decodeChunks[fileChunk](dec, len(body), func(c fileChunk) ([]stateEntry, bool) { return c.Items, c.Last })
	if err != nil {
		return nil, fmt.Errorf("refresh state: files: %w", err)
	}
	entries, err := decodeChunks[entryChunk](dec, len(body), func(c entryChunk) ([]snapshot.Entry, bool) { return c.Items, c.Last })
	if err != nil {
		return nil, fmt.Errorf("refresh state: entries: %w", err)
	}
	var st State
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("refresh state: %w", err)
	}
	if st.Schema != stateSchema {
		return nil, fmt.Errorf("refresh state: schema %q, want %q", st.Schema, stateSchema)
	}
	if st.Files != nil || st.Manifest != nil && st.Manifest.Files != nil || st.NumFiles != len(files) ||
		st.NumEntries != len(entries) || len(entries) > 0 && st.Manifest == nil {
		return nil, errors.New("refresh state: malformed")
	}
	st.Files = files
	if st.Manifest != nil {
		st.Manifest.Files = entries
	}
	if dec.Decode(new(State)) != io.EOF {
		return nil, errors.New("refresh state: trailing data")
	}
	return &st, nil
}

// decodeChunks decodes the chunks (C) that follow in dec up to the one
// marked last, and returns their items (nil when there are none, as gob
// decodes an empty slice); limit bounds how many there may be.
func decodeChunks[C any, T any](dec *gob.Decoder, limit int, items func(C) ([]T, bool)) ([]T, error) {
	var out []T
	for {
		var c C
		if err := dec.Decode(&c); err != nil {
			return nil, err
		}
		got, last := items(c)
		if len(got) > limit-len(out) {
			return nil, fmt.Errorf("more values than a body of %d bytes can hold", limit)
		}
		if !last && len(got) == 0 {
			return nil, errors.New("an empty chunk that is not the last")
		}
		out = append(out, got...)
		if last {
			return out, nil
		}
	}
}

func stateMAC(key, body []byte) []byte {
	h, _ := blake3.NewKeyed(key) // 32 bytes: never fails
	h.Write(body)
	return []byte(hex.EncodeToString(h.Sum(nil)))
}

// Write writes st into the snapshot being built, to describe what it
// publishes: its files.json and REPO_MAP.md (their BLAKE3, hex), the
// manifest and the findings. Only this user may read it (0600).
//
// Call it last, once every other file of the snapshot is written: it
// records their identities (recordPublished).
func (st *State) Write(out *snapshot.Pending, filesSum, repoMapSum string, m *snapshot.Manifest, findings []secrets.PathFinding, keys Keys) error {
	st.FilesJSON, st.RepoMap, st.Manifest, st.Findings = filesSum, repoMapSum, m, findings
	st.Indexes = map[string]string{}
	for _, name := range []string{snapshot.SearchIndex, snapshot.LinesJSON, snapshot.LineTokens} {
		sum, err := fileSum(out.Path(name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // not written: nothing to carry forward
		}
		if err != nil {
			return err
		}
		st.Indexes[name] = sum
	}
	known := map[string]string{snapshot.FilesJSON: filesSum, snapshot.RepoMapMD: repoMapSum}
	for name, sum := range st.Indexes {
		known[name] = sum
	}
	var err error
	if st.Published, st.Dirs, err = recordPublished(out.Dir(), m, known); err != nil {
		return err
	}
	if st.stream == nil {
		// Made by hand (tests): its files are written now.
		if err := st.begin(out, keys); err != nil {
			return fmt.Errorf("write %s: %w", snapshot.StateFile, err)
		}
		for _, e := range st.Files {
			if err := st.stream.add(e); err != nil {
				st.Close()
				return fmt.Errorf("write %s: %w", snapshot.StateFile, err)
			}
		}
	}
	s := st.stream
	err = st.finish(s, m)
	if err == nil {
		err = s.w.Flush()
	}
	if err == nil {
		_, err = s.f.WriteAt([]byte(hex.EncodeToString(s.mac.Sum(nil))), int64(len("mac ")))
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	st.stream = nil
	if err != nil {
		return fmt.Errorf("write %s: %w", snapshot.StateFile, err)
	}
	return nil
}

// Entries writes the last chunk of the files and the manifest's entries
// (m's, final once files.json is written from it) in chunks. A run calls
// it beside the index build, so that Write, which must come last, has
// only the rest to write: encoding a tree's entries took 20 ms at the end
// of a refresh of Go's src/. Write calls it if no one has.
func (st *State) Entries(m *snapshot.Manifest) error {
	if st == nil || st.stream == nil {
		return nil // no state, or one made by hand (tests): Write writes it all
	}
	if err := st.stream.writeEntries(m); err != nil {
		return fmt.Errorf("write %s: %w", snapshot.StateFile, err)
	}
	return nil
}

func (s *stateStream) writeEntries(m *snapshot.Manifest) error {
	if s.entries >= 0 {
		return nil
	}
	if err := s.flushFiles(true); err != nil {
		return err
	}
	for chunk := range slices.Chunk(m.Files, stateChunkLen) {
		if err := s.enc.Encode(entryChunk{Items: chunk}); err != nil {
			return err
		}
	}
	s.entries = len(m.Files)
	return s.enc.Encode(entryChunk{Last: true})
}

// finish writes the rest of the body through s: the last chunk of the
// files and the manifest's entries (m's) in chunks unless Entries wrote
// them, then st without either.
func (st *State) finish(s *stateStream, m *snapshot.Manifest) error {
	if err := s.writeEntries(m); err != nil {
		return err
	}
	if s.entries != len(m.Files) {
		return fmt.Errorf("the manifest has %d entries, %d were written before", len(m.Files), s.entries)
	}
	head := *st
	head.stream = nil
	head.Files, head.NumFiles = nil, s.n
	head.Manifest, head.NumEntries = &snapshot.Manifest{Schema: m.Schema, Pruned: m.Pruned}, len(m.Files)
	return s.enc.Encode(&head)
}

// NewState makes the state of the snapshot being built under key, by a
// run that started at start: each regular file the scan left for the
// per-file stages, with its identity, its directory's triage facts, and
// whether the next run may reuse it. Call it after the secret stage (it
// says which texts held findings, and values holds what the cross-file
// pass looked for) and before the records become the manifest. decided
// marks the records the scan decided itself (never reused: it decides them
// again for nothing). p is the previous snapshot this run took from, or
// nil.
func NewState(out *snapshot.Pending, key string, start time.Time, keys Keys, p *Prior, values *secrets.Values, env *stages.Env, recs []*stages.Record, decided []bool) (*State, error) {
	st := &State{Schema: stateSchema, Key: key, StartedNs: start.UnixNano()}
	var err error
	if p.Replayed() {
		st.Values, st.Sketch = p.valueList, p.sketch // the values caught are the previous run's
	} else if st.Values, err = values.Digests(keys.values); err != nil {
		return nil, err
	} else if st.Sketch, err = values.Sketch(keys.sketch); err != nil {
		return nil, err
	}
	copies := stagedCopies(env, recs)
	// The entries go to the state file as they are made, a chunk at a
	// time: held until Write, a tree's entries (184 bytes each and a copy
	// identity) were a fifth of what was live at the run's peak.
	if err := st.begin(out, keys); err != nil {
		return nil, fmt.Errorf("write %s: %w", snapshot.StateFile, err)
	}
	for i, rec := range recs {
		id := rec.Identity()
		if rec.Kind != stages.KindFile || id == (stages.Identity{}) || rec.Reason == "secret-in-name" {
			continue // the last: its path is masked, and unmasked it must not be written down
		}
		if decided[i] {
			if rec.Err == "" && rec.Size > 0 && rec.Secrets == 0 {
				e := stateEntry{Path: rec.Path, Dev: id.Dev, Ino: id.Ino, Size: id.Size, Mtime: id.MtimeNs, Ctime: id.CtimeNs, Decided: true}
				if err := st.stream.add(e); err != nil {
					st.Close()
					return nil, fmt.Errorf("write %s: %w", snapshot.StateFile, err)
				}
			}
			continue
		}
		e := stateEntry{Path: rec.Path, Dev: id.Dev, Ino: id.Ino, Size: id.Size, Mtime: id.MtimeNs, Ctime: id.CtimeNs, Dir: env.DirContext(rec), Enc: rec.Memo.Enc}
		rulesHere, clean := rec.SecretState()
		hasText := rec.Staged || rec.DuplicateOf != ""
		switch {
		case rec.Err != "" && !rec.Memo.Lasting:
			// A document refused for good (a work limit, encrypted, no
			// text) is not: the same bytes meet the same refusal, so its
			// entry is kept like any other.
			e.Redo = report.NotReusedError
		case rec.Reason == "secret", rec.Secrets > 0, hasText && !clean:
			e.Redo = report.NotReusedFindings
		}
		e.Rules = e.Redo == "" && rulesHere // a text's, or a left-out file's (stages.SecretValues)
		if e.Redo == report.NotReusedFindings {
			if sum, tokens, ok := rec.TextSum(); ok {
				d := stages.TextDigest(keys.text, sum)
				e.Text, e.Tokens = hex.EncodeToString(d[:]), tokens
			} else if p.Replayed() && p.files[rec.Path] != nil {
				prev := p.files[rec.Path] // not read: its text is the one it had
				e.Text, e.Tokens = prev.Text, prev.Tokens
			}
		}
		if rec.Staged && copies != nil {
			// A copy with findings too: an unchanged refresh keeps it
			// (Prior.Unchanged), a replay places it.
			e.Copy = copies[i]
		}
		if err := st.stream.add(e); err != nil {
			st.Close()
			return nil, fmt.Errorf("write %s: %w", snapshot.StateFile, err)
		}
	}
	return st, nil
}

// fileSum is the BLAKE3 (hex) of the file name, read as a stream.
func fileSum(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := blake3.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
