package stages

import (
	"bytes"
	"cmp"
	"math"
	"regexp"
	"slices"
	"unicode/utf8"

	"github.com/go-enry/go-enry/v2"
	enrydata "github.com/go-enry/go-enry/v2/data"
)

// This file is go-enry's last strategy, the naive Bayes classifier, made
// deterministic. go-enry v2.9.6 scores its candidates from a map and
// sorts them with sort.Stable, so candidates with equal scores come back
// in map order, which Go randomizes: mail text in a .cls file named
// "Visual Basic 6.0" on one run and "Apex" on the next. A token no
// candidate was trained on costs every candidate the same, and most
// languages share their prior with another, so such ties are common.
//
// classifyLanguages uses go-enry's trained tables (the data package) and
// the tokenization go-enry's internal/tokenizer does, and breaks ties by
// language name.

// classifyBytes bounds what the classifier tokenizes. Triage passes at
// most languageBytes; the bound keeps every other caller's cost linear
// in a small constant too (go-enry's own bound is 100,000 bytes).
const classifyBytes = languageBytes

// classifyLanguages is a drop-in for enry.GetLanguagesByClassifier: it
// orders candidates by naive Bayes score, best first, ties by name.
// Candidates go-enry has no trained prior for are left out, as go-enry
// does. Safe for concurrent use: it only reads package tables.
func classifyLanguages(_ string, content []byte, candidates []string) []string {
	scores := scoreLanguages(content, candidates)
	if scores == nil {
		return nil
	}
	out := make([]string, len(scores))
	for i, s := range scores {
		out[i] = s.lang
	}
	return out
}

// langScore is one candidate's naive Bayes log probability.
type langScore struct {
	lang  string
	score float64
}

// scoreLanguages scores candidates as go-enry's classifier does and
// sorts them, best first, ties by name.
func scoreLanguages(content []byte, candidates []string) []langScore {
	if len(candidates) == 0 {
		return nil
	}
	if len(content) > classifyBytes {
		content = content[:classifyBytes]
	}
	var tokens []string
	if len(content) > 0 {
		tokens = classifierTokens(content)
	}
	scores := make([]langScore, 0, len(candidates))
	for _, c := range candidates {
		if lang, ok := enry.GetLanguageByAlias(c); ok {
			c = lang
		}
		prior, ok := enrydata.LanguagesLogProbabilities[c]
		if !ok || slices.ContainsFunc(scores, func(s langScore) bool { return s.lang == c }) {
			continue
		}
		scores = append(scores, langScore{c, prior + tokensLogProbability(tokens, c)})
	}
	slices.SortFunc(scores, func(a, b langScore) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score) // higher first
		}
		return cmp.Compare(a.lang, b.lang)
	})
	return scores
}

// unknownTokenLogProbability is what go-enry charges any language for a
// token it never saw in that language's samples.
var unknownTokenLogProbability = math.Log(1 / enrydata.TokensTotal)

// tokensLogProbability sums in token order, as go-enry does: a different
// order could round differently and reorder near ties.
func tokensLogProbability(tokens []string, lang string) float64 {
	known := enrydata.TokensLogProbabilities[lang]
	var sum float64
	for _, tok := range tokens {
		p, ok := known[tok]
		if !ok {
			p = unknownTokenLogProbability
		}
		sum += p
	}
	return sum
}

// The token patterns of go-enry's tokenizer (which follows Linguist's),
// written for Go's regexp: \w is [0-9A-Za-z_] there, and (?s) lets a
// lazy .*? cross lines. Every pattern is RE2, so each pass is linear.
var (
	tokShebang    = regexp.MustCompile(`(?m)^#!(?:/\w+)*/(?:(\w+)|\w+(?:\s*\w+=\w+\s*)*\s*(\w+))(?:\s*-\w+\s*)*$`)
	tokSGML       = regexp.MustCompile(`(?s)(</?[^\s<>=\d"']+)(?:\s.*?/?>|>)`)
	tokSGMLNote   = regexp.MustCompile(`(?s)<!--.*?-->`)
	tokSGMLAttr   = regexp.MustCompile(`\s+(\w+=)|\s+([^\s>]+)`)
	tokWord       = regexp.MustCompile(`\w+`)
	tokPunct      = regexp.MustCompile(`[;{}()\[\]]`)
	tokRegular    = regexp.MustCompile(`[\w.@#/*]+`)
	tokOperator   = regexp.MustCompile(`<<?|\+|-|\*|/|%|&&?|\|\|?`)
	tokSkipPasses = []*regexp.Regexp{ // removed in this order, yielding no tokens
		// string literals
		regexp.MustCompile(`(?s)".*?"|'.*?'`),
		// block comments
		regexp.MustCompile(`(?s)/\*.*?\*/|<!--.*?-->|\{-.*?-\}|\(\*.*?\*\)|""".*?"""|'''.*?'''`),
		// line comments
		regexp.MustCompile(`(?m)(?://|--|#|%|")\s[^\n]*$`),
		// numbers
		regexp.MustCompile(`(?:0x[0-9A-Fa-f][0-9A-Fa-f.]*|\d[\d.]*)(?:[uU][lL]{0,2}|(?:[eE][-+]\d*)?[fFlL]*)`),
	}
)

var tokSpace = []byte(" ") // what each removed match becomes, as in go-enry

// classifierTokens splits content into the tokens go-enry's classifier
// was trained on, in go-enry's order: shebang interpreters, SGML tags
// and attributes, then (after dropping strings, comments and numbers)
// punctuation, words, operators, and each remaining character. Each
// pass is a linear regexp scan of content, which the caller bounds.
func classifierTokens(content []byte) []string {
	var tokens []string
	// go-enry keeps the shebang line in the content after taking its
	// token (it discards ReplaceAll's result), so its words count again.
	for _, m := range tokShebang.FindAllSubmatch(content, -1) {
		name := m[1]
		if len(name) == 0 {
			name = m[2]
		}
		tokens = append(tokens, "SHEBANG#!"+string(name))
	}
	if ms := tokSGML.FindAllSubmatch(content, -1); ms != nil {
		for _, m := range ms {
			if tokSGMLNote.Match(m[0]) {
				continue
			}
			tokens = append(tokens, string(m[1])+">")
			for _, a := range tokSGMLAttr.FindAllSubmatch(m[0], -1) {
				if len(a[1]) > 0 {
					tokens = append(tokens, string(a[1]))
				}
				for _, w := range tokWord.FindAll(a[2], -1) {
					tokens = append(tokens, string(w))
				}
			}
		}
		content = tokSGML.ReplaceAllLiteral(content, tokSpace)
	}
	for _, re := range tokSkipPasses {
		content = re.ReplaceAllLiteral(content, tokSpace)
	}
	for _, re := range []*regexp.Regexp{tokPunct, tokRegular, tokOperator} {
		for _, t := range re.FindAll(content, -1) {
			tokens = append(tokens, string(t))
		}
		content = re.ReplaceAllLiteral(content, tokSpace)
	}
	for _, field := range bytes.Fields(content) {
		for len(field) > 0 { // one token per UTF-8 sequence; a bad byte is its own
			_, n := utf8.DecodeRune(field)
			tokens = append(tokens, string(field[:n]))
			field = field[n:]
		}
	}
	return tokens
}
