package refresh

import (
	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/stages"
)

// TokenCounts is the previous snapshot's linetokens.index, for a refresh
// to take the line counts of the staged texts it did not change instead
// of counting them again (a tenth to a fifth of a full run's CPU, and the
// tokenizer's tables). Safe for concurrent use; Close it when done.
type TokenCounts struct {
	p  *Prior
	ix *snapshot.TokenIndex
}

// TokenCounts opens the previous linetokens.index when it is the one the
// MAC'd state describes (its BLAKE3: the index's own sums are unkeyed, so
// anyone who can write OUT could recompute them) and is bound to the
// previous files.json (snapshot.Snapshot.LineTokens); else nil, and every
// text is counted.
func (p *Prior) TokenCounts() *TokenCounts {
	if p == nil {
		return nil
	}
	if _, ok := p.indexes[snapshot.LineTokens]; !ok {
		return nil
	}
	// Read whole (about a byte per line of text) and taken from memory:
	// a read per record cost a tenth of a second for Go's src/.
	ix, data, err := p.snap.LineTokensData(p.manifest)
	if err != nil || !p.described(snapshot.LineTokens, data) {
		return nil
	}
	return &TokenCounts{p: p, ix: ix}
}

// Counts returns the previous index's data for rec, a staged text, when
// its final text is the previous snapshot's at the same path (the same
// files.json hash) and the record there carries that hash, rec's staged
// size and line count; ok is false otherwise,
// and the caller counts the text.
func (t *TokenCounts) Counts(rec stages.StagedText) (data []byte, ok bool) {
	if t == nil || !t.p.unchanged(rec) {
		return nil, false
	}
	i := t.ix.Find(rec.Path)
	if i < 0 || t.ix.Hash(i) != rec.Hash {
		return nil, false
	}
	r, data, err := t.ix.Raw(i)
	if err != nil || r.Size != rec.OutSize || r.Lines != int64(rec.Lines) {
		return nil, false
	}
	// The bytes are the ones the MAC'd state describes, so the previous
	// run wrote them for this hash: their sum need not be checked again.
	return data, true
}

// Close closes the previous index.
func (t *TokenCounts) Close() {
	if t != nil {
		t.ix.Close()
	}
}
