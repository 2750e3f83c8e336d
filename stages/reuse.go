package stages

import (
	"fmt"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/snapshot"
)

// Identity is what the scan's lstat saw of a file: device, inode, size and
// the modification and change times in nanoseconds. A refresh takes a
// file's previous entry only when all five are the same (pipeline's
// refresh.go): an edit moves mtime and ctime, a chmod or a touch back to
// the old mtime moves ctime, a replacement changes the inode.
type Identity struct {
	Dev, Ino uint64
	Size     int64
	MtimeNs  int64
	CtimeNs  int64
}

func identityOf(st dirfd.Stat) Identity {
	return Identity{Dev: st.ID.Dev, Ino: st.ID.Ino, Size: st.Size, MtimeNs: st.MtimeNs, CtimeNs: st.CtimeNs}
}

// Identity is the file's identity at scan time; zero for records the scan
// did not stat (NewRecord's, or an lstat that failed).
func (r *Record) Identity() Identity { return r.ident }

// Prior is what a previous run established about a file whose identity
// has not changed since, under the same build, rules and options.
type Prior struct {
	Entry snapshot.Entry // its files.json entry
	// Sum and Bytes are the BLAKE3-256 and the size of the staged text the
	// caller placed at the record's tree path (entries staged or
	// duplicates only).
	Sum   [32]byte
	Bytes int64
	// RulesClean: the secret rules ran on that text at this very path and
	// found nothing. ValuesClean: none of the values the previous run's
	// cross-file pass looked for occurs in it.
	RulesClean, ValuesClean bool
	// Replayed, for a text with findings taken as it was instead of read
	// (the previous redacted copy): the keyed digest of its text before
	// redaction (Expectation's), which dedup groups it by, as a run that
	// reads it groups it by its hash before redaction.
	Replayed *[32]byte
	// Clean: neither pass found anything in it. With the entry's secrets
	// count it stands for the secret stage's verdict when a refresh reads
	// no file at all and takes the previous findings (the stage then does
	// not run; when it runs, it decides both afresh).
	Clean bool
}

// Reuse fills rec from a previous run instead of running classify, triage
// and normalize on it: the fields those stages set come from the entry,
// and a staged or duplicate entry counts as staged (dedup decides afresh
// which copy is canonical) with the hash the caller verified. What the
// cross-file stages decide (duplicate_of, secrets, redaction) is left for
// them. The caller has placed the staged text at rec's tree path.
func (e *Env) Reuse(rec *Record, p Prior) {
	en := &p.Entry
	rec.Size = en.Size
	rec.Category, rec.Reason, rec.Mime, rec.Language = en.Category, en.Reason, en.Mime, en.Language
	rec.Test, rec.ExtMismatch = en.Test, en.ExtMismatch
	rec.Encoding, rec.BOM, rec.CRLF = en.Encoding, en.BOM, en.CRLF
	rec.Lines, rec.Tokens, rec.Oversize = en.Lines, en.Tokens, en.Oversize
	rec.ExtractedFrom, rec.Extractor, rec.ExtractorVersion = en.ExtractedFrom, en.Extractor, en.ExtractorVersion
	rec.Staged = en.Staged || en.DuplicateOf != ""
	rec.Secrets, rec.contentClean = en.Secrets, p.Clean
	rec.why = Decision{Rule: "previous snapshot", Detail: "identity unchanged"}
	if rec.Staged {
		rec.sum, rec.hashed, rec.OutSize = p.Sum, true, p.Bytes
		rec.Hash = fmt.Sprintf("blake3:%x", p.Sum)
		rec.scanned = p.RulesClean
		rec.valuesClean = p.ValuesClean
		if p.Replayed != nil {
			rec.sum, rec.finalHash = *p.Replayed, rec.Hash
		}
	}
}

// StagedBytes is what the previous run's staged copy of an entry holds:
// its own bytes when staged, its canonical copy's when a duplicate.
func StagedBytes(en *snapshot.Entry) (path string, ok bool) {
	switch {
	case en.Staged:
		return en.Path, true
	case en.DuplicateOf != "":
		return en.DuplicateOf, true
	}
	return "", false
}

// DirContext is everything triage takes from a file's surroundings rather
// than from the file itself: whether its directory is vendored, tests or
// generated, or below a main source set, which depends on other files
// (a vendor/modules.txt, a spec_helper.rb). A refresh reuses an entry only
// when this is unchanged. Safe for concurrent use.
func (e *Env) DirContext(rec *Record) string {
	return e.dirFacts(srcDir(rec.Src())).context
}

// SecretState is what the secret stage learned about the record's staged
// text, for the next refresh: whether the rules ran on it at this path
// (rulesHere), and whether neither pass found anything in it (clean).
func (r *Record) SecretState() (rulesHere, clean bool) { return r.scanned, r.contentClean }

// Expectation is what a refresh knows of a file it reads again although
// its identity is unchanged (its text held findings, whose values are
// never kept): a keyed digest of its normalized text last time (before
// redaction) and that text's token count. When the text normalizes to the
// same digest, Normalize takes the count instead of counting again, the
// costliest part of reading it; the count is exact either way.
type Expectation struct {
	Key    []byte // keys the digest, so the state holds no plain hash of a text with a secret
	Digest [32]byte
	Tokens int
	// Final is files.json's hash of the text as staged last time (after
	// redaction) and FinalTokens its count: redaction that gives the same
	// bytes takes that count instead of recounting.
	Final       string
	FinalTokens int
}

// Expect sets what a refresh expects of the record's normalized text.
func (r *Record) Expect(x Expectation) { r.expect = &x }

// Expected reports whether a refresh set an Expectation on the record.
func (r *Record) Expected() bool { return r.expect != nil }

// TextDigest is the keyed digest and token count of the record's
// normalized text before redaction, for the next refresh's Expectation;
// ok is false when the per-file loop did not normalize and hash it.
func (r *Record) TextDigest(key []byte) (digest [32]byte, tokens int, ok bool) {
	if !r.hashed || !r.normalized {
		return digest, 0, false
	}
	return textDigest(key, r.sum), r.normTokens, true
}

// textDigest keys a text's BLAKE3-256.
func textDigest(key []byte, sum [32]byte) [32]byte {
	h, err := blake3.NewKeyed(key)
	if err != nil {
		panic(err) // the pipeline derives 32-byte keys
	}
	h.Write(sum[:])
	return [32]byte(h.Sum(nil))
}

// PathClean says the secret name rules found nothing in the record's path
// under this run's rules: a refresh knows it of every path its previous
// run recorded (a path with a finding is never recorded), and ScanName is
// a function of the path and the rules alone. SecretNames then skips the
// path; a symlink's target is still scanned.
func (r *Record) PathClean() { r.nameClean = true }
