package stages

import (
	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/dirfd"
)

// Identity is what the scan's lstat saw of a file: device, inode, size and
// the modification and change times in nanoseconds. A refresh takes a
// file's previous entry only when all five are the same: an edit moves
// mtime and ctime, a chmod or a touch back to the old mtime moves ctime, a
// replacement changes the inode.
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

// Memo is what a refresh carries for one record through the per-file loop
// and the cross-file stages. Its first part is what a previous run
// established about the file, set by the refresh before the stages run,
// which lets a stage skip work whose result is known; its second part is
// what this run learns for the next refresh. The loop only carries it; a
// stage consults or fills the fields its doc names. A zero Memo (a full
// run, or a file that changed) changes nothing.
type Memo struct {
	// (Fields are ordered so the bools share words: a Record per file
	// of the tree is kept for the whole run.)

	// Expect: the file is read again though unchanged (its text held
	// findings, whose values are never kept). Normalize takes the token
	// count from it when the text is what it was.
	Expect *Expectation
	// Final is, for a text taken as it was with its findings (a refresh's
	// replay), its hash as staged last time; the record's sum is then its
	// digest before redaction, which dedup groups it by (Dedup).
	Final string
	// TextTokens is the normalized text's token count before redaction
	// (Normalize), for the next refresh's Expectation; Normalized says
	// it is set.
	TextTokens int
	// Enc is what normalize learned of the text's charset for the
	// repository prior (encoding_prior.go); Enc.Prior is set before a
	// text is decided again under a prior.
	Enc EncodingMemo

	// RulesClean: the secret rules ran on this very text at this path and
	// found nothing (the first secret pass skips it). ValuesClean: none
	// of the values the previous run's cross-file pass looked for occurs
	// in it (the second pass may skip it). NameClean: the name rules find
	// nothing in this path (SecretNames skips it).
	RulesClean, ValuesClean, NameClean bool
	// Clean: neither secret pass found anything in the text (set by
	// Secrets; by a refresh that replays the previous findings, which
	// then does not run it).
	Clean      bool
	Normalized bool // TextTokens is set
	// Lasting: the record's error is a document's refusal that the same
	// bytes meet again under this build (extract.IsLasting: a work limit
	// such as cells, bytes, pages or nesting, never the clock; encrypted;
	// no text). It is an outcome like any other: the next refresh takes
	// the entry, error and all, instead of extracting the document again.
	// Set by Normalize, and by a refresh that takes such an entry.
	Lasting bool
}

// Expectation is what a refresh knows of a file it reads again although
// its identity is unchanged: a keyed digest of its normalized text last
// time (before redaction) and that text's token count. When the text
// normalizes to the same digest, Normalize takes the count instead of
// counting again, the costliest part of reading it; the count is exact
// either way.
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

// matches reports whether a text with BLAKE3-256 sum is the one expected.
func (x *Expectation) matches(sum [32]byte) bool { return TextDigest(x.Key, sum) == x.Digest }

// TextDigest keys a text's BLAKE3-256: what the refresh state records of a
// text that held findings.
func TextDigest(key []byte, sum [32]byte) [32]byte {
	h, err := blake3.NewKeyed(key)
	if err != nil {
		panic(err) // the pipeline derives 32-byte keys
	}
	h.Write(sum[:])
	return [32]byte(h.Sum(nil))
}

// TextSum is the BLAKE3-256 and token count of the record's normalized
// text before redaction, for the next refresh's Expectation; ok is false
// when the per-file loop did not normalize and hash it.
func (r *Record) TextSum() (sum [32]byte, tokens int, ok bool) {
	if !r.hashed || !r.Memo.Normalized {
		return sum, 0, false
	}
	return r.sum, r.Memo.TextTokens, true
}

// SecretState is what the secret stage learned about the record's staged
// text, for the next refresh: whether the rules ran on it at this path
// (rulesHere), and whether neither pass found anything in it (clean).
func (r *Record) SecretState() (rulesHere, clean bool) {
	return r.scanned || r.Memo.RulesClean, r.Memo.Clean
}

// RulesCaughtNothing reports whether the per-file stages ran the secret
// rules on the record's text and they caught nothing (a refresh asks,
// before the secret stage runs, refresh.Prior.Split).
func (r *Record) RulesCaughtNothing() bool { return r.scanned && r.findings() == nil }

// Placed records a staged text the caller put at the record's tree path
// instead of the per-file stages (a refresh's copy of the previous one):
// its BLAKE3-256, which dedup groups it by, and its size.
func (r *Record) Placed(sum [32]byte, size int64) {
	r.sum, r.hashed, r.OutSize = sum, true, size
}
