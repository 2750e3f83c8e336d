package stages

import (
	"fmt"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/internal/manifest"
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
	Entry manifest.Entry // its files.json entry
	// Sum and Bytes are the BLAKE3-256 and the size of the staged text the
	// caller placed at the record's tree path (entries staged or
	// duplicates only).
	Sum   [32]byte
	Bytes int64
	// RulesClean: the secret rules ran on that text at this very path and
	// found nothing. ValuesClean: none of the values the previous run's
	// cross-file pass looked for occurs in it.
	RulesClean, ValuesClean bool
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
	rec.why = Decision{Rule: "previous snapshot", Detail: "identity unchanged"}
	if rec.Staged {
		rec.sum, rec.hashed, rec.OutSize = p.Sum, true, p.Bytes
		rec.Hash = fmt.Sprintf("blake3:%x", p.Sum)
		rec.scanned = p.RulesClean
		rec.valuesClean = p.ValuesClean
	}
}

// StagedBytes is what the previous run's staged copy of an entry holds:
// its own bytes when staged, its canonical copy's when a duplicate.
func StagedBytes(en *manifest.Entry) (path string, ok bool) {
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
	d := e.dirFacts(srcDir(rec.Src()))
	if *d == (dirFacts{}) {
		return ""
	}
	return fmt.Sprintf("%q %q %q %t", d.vendored, d.test, d.generated, d.mainSource)
}

// SecretState is what the secret stage learned about the record's staged
// text, for the next refresh: whether the rules ran on it at this path
// (rulesHere), and whether neither pass found anything in it (clean).
func (r *Record) SecretState() (rulesHere, clean bool) { return r.scanned, r.contentClean }
