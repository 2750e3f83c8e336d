// Package secrets finds credentials and personal data in text with rules from package rules:
// a one-pass keyword pre-filter (Aho-Corasick) picks the lines each rule's RE2 expression
// runs on, and entropy, allowlists and a placeholder check drop what is not a secret.
// It owns the Finding model, masking, fingerprints, redaction and the SARIF writer; the
// full secret never leaves this package.
package secrets

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"sync"
	"unicode/utf8"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/rules"
)

// Finding is one secret in one content. It holds the secret's position and a masked form,
// never the secret itself.
type Finding struct {
	Line        int    `json:"line"`   // 1-based
	Column      int    `json:"column"` // 1-based, in Unicode code points
	Rule        string `json:"rule"`
	Description string `json:"description"`
	Match       string `json:"match"`       // masked: a short prefix, an ellipsis and the length, e.g. AKIA…(20)
	Fingerprint string `json:"fingerprint"` // rule id and a keyed hash of the secret; see fingerprint
	Start       int64  `json:"-"`           // byte offsets of the secret in the content, for Redact
	End         int64  `json:"-"`
}

// Scanner runs a fixed rule set; it is immutable after New and safe for concurrent use.
type Scanner struct {
	rules   []rule
	trie    *ahocorasick.Trie
	byKw    [][]int // keyword (trie pattern) index -> indexes of the rules it gates
	maxKw   int     // longest keyword, for the overlap between pre-filter blocks
	always  []int   // rules without keywords: they run over the whole content
	fpKeyed *blake3.Hasher
}

// rule is a compiled rules.SecretRule.
type rule struct {
	id, desc     string
	re           *regexp.Regexp
	group        int
	entropy      float64
	multiline    bool
	maxLen       int      // most bytes the regex can match; -1 when unbounded
	stopWords    [][]byte // lower-case
	allowRes     []*regexp.Regexp
	allowPaths   []*regexp.Regexp
	placeholders bool
}

// Option adjusts a Scanner made by New.
type Option func(*Scanner) error

// WithFingerprintKey keys the fingerprint hash with a secret of the caller's, so nobody
// without the key can test a guess (a phone number, an IP) against a fingerprint.
func WithFingerprintKey(key []byte) Option {
	return func(s *Scanner) error { return s.setFingerprintKey(key) }
}

// fingerprintContext is the BLAKE3 derive-key context; change the version to change every
// fingerprint at once.
const fingerprintContext = "repoprep 2025 secret fingerprint v1"

// New compiles rs (already merged and validated by package rules) into a Scanner.
func New(rs []rules.SecretRule, opts ...Option) (*Scanner, error) {
	s := &Scanner{}
	if err := s.setFingerprintKey(nil); err != nil {
		return nil, err
	}
	kwIndex := map[string]int{}
	var kws []string
	for i, r := range rs {
		if err := r.Validate(); err != nil {
			return nil, err
		}
		cr := rule{
			id: r.ID, desc: r.Description,
			re:           regexp.MustCompile(r.Regex), // Validate compiled it
			group:        r.SecretGroup,
			entropy:      r.Entropy,
			multiline:    r.Multiline,
			placeholders: !r.Allow.NoPlaceholders,
		}
		cr.maxLen = -1
		if re, err := syntax.Parse(r.Regex, syntax.Perl); err == nil {
			cr.maxLen = maxMatchBytes(re)
		}
		if cr.desc == "" {
			cr.desc = r.ID
		}
		for _, w := range r.Allow.StopWords {
			cr.stopWords = append(cr.stopWords, bytes.ToLower([]byte(w)))
		}
		for _, p := range r.Allow.Regexes {
			cr.allowRes = append(cr.allowRes, regexp.MustCompile(p))
		}
		for _, p := range r.Allow.Paths {
			cr.allowPaths = append(cr.allowPaths, regexp.MustCompile(p))
		}
		s.rules = append(s.rules, cr)
		if len(r.Keywords) == 0 {
			s.always = append(s.always, i)
			continue
		}
		for _, kw := range r.Keywords {
			kw = string(bytes.ToLower([]byte(kw)))
			k, ok := kwIndex[kw]
			if !ok {
				k = len(kws)
				kwIndex[kw] = k
				kws = append(kws, kw)
				s.byKw = append(s.byKw, nil)
				s.maxKw = max(s.maxKw, len(kw))
			}
			if !slices.Contains(s.byKw[k], i) {
				s.byKw[k] = append(s.byKw[k], i)
			}
		}
	}
	if len(kws) > 0 {
		s.trie = ahocorasick.NewTrieBuilder().AddStrings(kws).Build()
	}
	for _, opt := range opts {
		if err := opt(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Scanner) setFingerprintKey(secret []byte) error {
	var key [32]byte
	blake3.DeriveKey(fingerprintContext, secret, key[:])
	h, err := blake3.NewKeyed(key[:])
	if err != nil {
		return fmt.Errorf("fingerprint key: %w", err)
	}
	s.fpKeyed = h
	return nil
}

// AllowsPath reports whether rule ruleID's path allowlist covers path (slash-separated), so
// a caller that scanned a content shared by several paths can drop findings per path.
func (s *Scanner) AllowsPath(ruleID, path string) bool {
	for i := range s.rules {
		if s.rules[i].id == ruleID {
			return s.rules[i].pathAllowed(path)
		}
	}
	return false
}

func (r *rule) pathAllowed(path string) bool {
	for _, re := range r.allowPaths {
		if re.MatchString(path) {
			return true
		}
	}
	return false
}

// Scan returns the findings in content sorted by offset. Path allowlists don't apply (there
// is no path); ScanFile applies them. Safe for concurrent use.
func (s *Scanner) Scan(content []byte) []Finding {
	cands := s.candidates(content, nil)
	return s.findings(content, cands, 1, 0)
}

// candidate is a match that passed every filter, before overlap resolution.
type candidate struct {
	start, end int // the secret's byte offsets
	rule       int // index into s.rules, which is also its priority
}

// candidates runs the pre-filter and the rules over content and resolves overlaps: when
// two candidates overlap, the earlier rule wins. skip, when not nil, drops whole rules.
func (s *Scanner) candidates(content []byte, skip []bool) []candidate {
	return s.candidatesCtx(context.Background(), content, skip)
}

// candidatesCtx is candidates that gives up (with what it has) once ctx is
// done; the caller checks ctx.
func (s *Scanner) candidatesCtx(ctx context.Context, content []byte, skip []bool) []candidate {
	wins := s.windows(content)
	var cands []candidate
	for ri := range s.rules {
		if len(wins[ri]) == 0 || (skip != nil && skip[ri]) {
			continue
		}
		r := &s.rules[ri]
		for wi, w := range wins[ri] {
			if wi%64 == 0 && ctx.Err() != nil {
				return nil
			}
			text := content[w.start:w.end]
			for _, m := range r.re.FindAllSubmatchIndex(text, -1) {
				if (w.cutStart && m[0] == 0) || (w.cutEnd && m[1] == len(text)) {
					continue // may be a piece of something longer beyond the window
				}
				gs, ge := r.secretSpan(m)
				if gs < 0 || ge <= gs {
					continue
				}
				if !r.isSecret(text[gs:ge]) {
					continue
				}
				cands = append(cands, candidate{w.start + gs, w.start + ge, ri})
			}
		}
	}
	return resolveOverlaps(cands)
}

// secretSpan picks the secret out of a match: the rule's group, or by default the first
// non-empty group, or the whole match.
func (r *rule) secretSpan(m []int) (int, int) {
	if r.group > 0 {
		return m[2*r.group], m[2*r.group+1]
	}
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
			return m[2*g], m[2*g+1]
		}
	}
	return m[0], m[1]
}

// isSecret applies the rule's entropy floor and allowlists to one candidate secret.
func (r *rule) isSecret(secret []byte) bool {
	if r.entropy > 0 && shannon(secret) < r.entropy {
		return false
	}
	if len(r.stopWords) > 0 {
		lower := bytes.ToLower(secret)
		for _, w := range r.stopWords {
			if bytes.Contains(lower, w) {
				return false
			}
		}
	}
	for _, re := range r.allowRes {
		if re.Match(secret) {
			return false
		}
	}
	return !(r.placeholders && isPlaceholder(secret))
}

// resolveOverlaps keeps, of overlapping candidates, the one whose rule comes first, and
// returns the survivors sorted by offset.
func resolveOverlaps(cands []candidate) []candidate {
	if len(cands) < 2 {
		return cands
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.rule, b.rule), cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end))
	})
	var kept []candidate // sorted by start, pairwise disjoint
	for _, c := range cands {
		i, _ := slices.BinarySearchFunc(kept, c.start, func(k candidate, start int) int { return cmp.Compare(k.start, start) })
		if i > 0 && kept[i-1].end > c.start {
			continue
		}
		if i < len(kept) && kept[i].start < c.end {
			continue
		}
		kept = slices.Insert(kept, i, c)
	}
	return kept
}

// findings turns sorted candidates into Findings. line0 is the line number of content[0]
// and base its offset in a larger file.
func (s *Scanner) findings(content []byte, cands []candidate, line0 int, base int64) []Finding {
	if len(cands) == 0 {
		return nil
	}
	out := make([]Finding, 0, len(cands))
	line, lineStart, pos := line0, 0, 0
	for _, c := range cands {
		seg := content[pos:c.start]
		if n := bytes.Count(seg, nl); n > 0 {
			line += n
			lineStart = pos + bytes.LastIndexByte(seg, '\n') + 1
		}
		pos = c.start
		r := &s.rules[c.rule]
		secret := content[c.start:c.end]
		out = append(out, Finding{
			Line:        line,
			Column:      utf8.RuneCount(content[lineStart:c.start]) + 1,
			Rule:        r.id,
			Description: r.desc,
			Match:       mask(secret),
			Fingerprint: s.fingerprint(r.id, secret),
			Start:       base + int64(c.start),
			End:         base + int64(c.end),
		})
	}
	return out
}

var nl = []byte{'\n'}

// fingerprint names a secret stably across runs and files without revealing it: the rule
// id and the first 64 bits of a BLAKE3 keyed hash of rule id and secret.
func (s *Scanner) fingerprint(ruleID string, secret []byte) string {
	h := s.fpKeyed.Clone()
	h.WriteString(ruleID)
	h.Write([]byte{0})
	h.Write(secret)
	var sum [8]byte
	h.Digest().Read(sum[:])
	return fmt.Sprintf("%s:%x", ruleID, sum)
}

// lowerPool holds pre-filter blocks; Scan runs on many goroutines at once.
var lowerPool = sync.Pool{New: func() any { b := make([]byte, blockBytes+64); return &b }}
