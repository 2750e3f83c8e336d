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

// stateSchema v4: the files and the manifest's entries follow the State
// in chunks (stateChunkLen), so neither the writer nor gob's encoder
// holds the whole body.
const stateSchema = "repoprep.refresh-state/v4"

// State is the refresh state of a snapshot being built: the file's body,
// after its MAC line, in gob: the State without its Files and its
// Manifest's entries, then those in chunks of at most stateChunkLen. A
// refresh decodes it in a twelfth of the time JSON takes (7 against 94 ms
// for Go's src/), and only ever decodes one this build wrote (the MAC
// says so first).
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
	StartedNs int64        // when that run began, for RacyWindow
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
	// Scan is the ScanDigest of what that run's scan found; Published and
	// Dirs the identities of the snapshot's top-level files and of tree/'s
	// directories (recordPublished). With them a refresh that finds
	// nothing changed keeps the snapshot instead of publishing it again
	// (Prior.Unchanged).
	Scan      string
	Published []published
	Dirs      []published
	// NumFiles and NumEntries are how many Files and Manifest entries
	// follow the State in chunks.
	NumFiles, NumEntries int
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
	var st State
	dec := gob.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("refresh state: %w", err)
	}
	if st.Schema != stateSchema {
		return nil, fmt.Errorf("refresh state: schema %q, want %q", st.Schema, stateSchema)
	}
	if st.NumEntries > 0 && st.Manifest == nil || st.Files != nil || st.Manifest != nil && st.Manifest.Files != nil {
		return nil, errors.New("refresh state: malformed")
	}
	// Each chunk's element takes at least a byte: the counts are bounded
	// by the body before anything is made of them.
	var err2 error
	if st.Files, err2 = decodeChunks[stateEntry](dec, st.NumFiles, len(body)); err2 != nil {
		return nil, fmt.Errorf("refresh state: files: %w", err2)
	}
	if st.Manifest != nil {
		if st.Manifest.Files, err2 = decodeChunks[snapshot.Entry](dec, st.NumEntries, len(body)); err2 != nil {
			return nil, fmt.Errorf("refresh state: entries: %w", err2)
		}
	}
	if err := dec.Decode(new(State)); err != io.EOF {
		return nil, errors.New("refresh state: trailing data")
	}
	return &st, nil
}

// decodeChunks decodes the chunks of n values that follow in dec (nil
// when n is 0, as gob decodes an empty slice); limit bounds n.
func decodeChunks[T any](dec *gob.Decoder, n, limit int) ([]T, error) {
	if n < 0 || n > limit {
		return nil, fmt.Errorf("%d values in a body of %d bytes", n, limit)
	}
	if n == 0 {
		return nil, nil
	}
	out := make([]T, 0, n)
	for len(out) < n {
		var chunk []T
		if err := dec.Decode(&chunk); err != nil {
			return nil, err
		}
		if len(chunk) == 0 || len(chunk) > n-len(out) {
			return nil, fmt.Errorf("a chunk of %d values where %d remain", len(chunk), n-len(out))
		}
		out = append(out, chunk...)
	}
	return out, nil
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
	f, err := os.OpenFile(out.Path(snapshot.StateFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	// The MAC line comes first and covers the body, which is written as
	// it is encoded: the line's place is kept, and filled once the body
	// is written.
	mac, _ := blake3.NewKeyed(keys.mac) // 32 bytes: never fails
	line := []byte("mac " + strings.Repeat("0", 2*32) + "\n")
	_, err = f.Write(line)
	if err == nil {
		w := bufio.NewWriterSize(io.MultiWriter(f, mac), 64<<10)
		if err = st.encode(w, m); err == nil {
			err = w.Flush()
		}
	}
	if err == nil {
		_, err = f.WriteAt([]byte(hex.EncodeToString(mac.Sum(nil))), int64(len("mac ")))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", snapshot.StateFile, err)
	}
	return nil
}

// encode writes st's body to w: st without its files and its manifest's
// entries (m's), then those in chunks.
func (st *State) encode(w io.Writer, m *snapshot.Manifest) error {
	head := *st
	head.Files, head.NumFiles = nil, len(st.Files)
	head.Manifest, head.NumEntries = &snapshot.Manifest{Schema: m.Schema, Pruned: m.Pruned}, len(m.Files)
	enc := gob.NewEncoder(w)
	if err := enc.Encode(&head); err != nil {
		return err
	}
	for chunk := range slices.Chunk(st.Files, stateChunkLen) {
		if err := enc.Encode(chunk); err != nil {
			return err
		}
	}
	for chunk := range slices.Chunk(m.Files, stateChunkLen) {
		if err := enc.Encode(chunk); err != nil {
			return err
		}
	}
	return nil
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
func NewState(key string, start time.Time, keys Keys, p *Prior, values *secrets.Values, env *stages.Env, recs []*stages.Record, decided []bool) (*State, error) {
	st := &State{Schema: stateSchema, Key: key, StartedNs: start.UnixNano()}
	var err error
	if p.Replayed() {
		st.Values = p.valueList // the values caught are the previous run's
	} else if st.Values, err = values.Digests(keys.values); err != nil {
		return nil, err
	}
	copies := stagedCopies(env, recs)
	// Made to its largest size at once: grown by append, a tree's
	// entries (184 bytes each) took up to twice that at the end of a run,
	// its peak of memory.
	st.Files = make([]stateEntry, 0, len(recs))
	for i, rec := range recs {
		id := rec.Identity()
		if decided[i] || rec.Kind != stages.KindFile || id == (stages.Identity{}) || rec.Reason == "secret-in-name" {
			continue // the last: its path is masked, and unmasked it must not be written down
		}
		e := stateEntry{Path: rec.Path, Dev: id.Dev, Ino: id.Ino, Size: id.Size, Mtime: id.MtimeNs, Ctime: id.CtimeNs, Dir: env.DirContext(rec), Enc: rec.Memo.Enc}
		rulesHere, clean := rec.SecretState()
		hasText := rec.Staged || rec.DuplicateOf != ""
		switch {
		case rec.Err != "" && !rec.Memo.AtLimit:
			// A document refused at a work limit is not: the same bytes
			// meet the same limit, so its entry is kept like any other.
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
		st.Files = append(st.Files, e)
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
