package rules

import (
	"bytes"
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// defaultSecretsTOML is the embedded secret-rule set; see its header comment for the format.
//
//go:embed defaults/secrets.toml
var defaultSecretsTOML []byte

// SecretRule is one secret pattern, as data: the scanner in internal/secrets runs Regex only
// where one of Keywords occurs, keeps the SecretGroup capture, and drops it when it is too
// predictable (Entropy) or allowlisted (Allow).
type SecretRule struct {
	ID          string `toml:"id"`
	Description string `toml:"description"`
	// Regex is RE2 syntax (Go regexp). The secret is capture group SecretGroup; 0 means the
	// first non-empty group, or the whole match when the expression has no groups.
	Regex       string `toml:"regex"`
	SecretGroup int    `toml:"secret_group"`
	// Keywords gate the rule: its Regex runs only on lines holding one of them (matched
	// ASCII case-insensitively). A rule without keywords runs over the whole content.
	Keywords []string `toml:"keywords"`
	// Entropy is the minimum Shannon entropy of the secret in bits per byte; 0 disables it.
	Entropy float64 `toml:"entropy"`
	// Multiline lets a match span lines (private key blocks): the regex runs from the
	// keyword's line over the next MaxSpanBytes bytes instead of on that line alone.
	Multiline bool        `toml:"multiline"`
	Allow     SecretAllow `toml:"allow"`
	// Disabled, in a --rules file, removes the default rule with the same ID.
	Disabled bool `toml:"disabled"`
	// Examples must each yield a finding of this rule and Counterexamples none; {{...}}
	// templates in them are expanded by the tests (see defaults/secrets.toml).
	Examples        []string `toml:"examples"`
	Counterexamples []string `toml:"counterexamples"`
}

// SecretAllow lists what a rule ignores; an allowlisted match is dropped even when the
// regex, keywords and entropy all say "secret".
type SecretAllow struct {
	StopWords []string `toml:"stopwords"` // the secret contains one (ASCII case-insensitive)
	Regexes   []string `toml:"regexes"`   // RE2 matched against the secret
	Paths     []string `toml:"paths"`     // RE2 matched against the slash-separated file name
	// NoPlaceholders turns off the scanner's built-in placeholder check (${VAR}, <your-key>,
	// changeme, xxxx, runs of one character...) for this rule.
	NoPlaceholders bool `toml:"no_placeholders"`
}

// MaxSpanBytes bounds how far a multiline match may reach past its keyword's line, and so
// how much a streaming scan carries from one chunk to the next.
const MaxSpanBytes = 64 << 10

// DefaultSecretRules parses the embedded rules/defaults/secrets.toml.
func DefaultSecretRules() ([]SecretRule, error) {
	rs, err := ParseSecretRules(defaultSecretsTOML, "defaults/secrets.toml")
	if err != nil {
		return nil, err
	}
	return MergeSecretRules(nil, rs, "defaults/secrets.toml")
}

// ParseSecretRules reads the [[secrets]] array of a TOML rule file and ignores every other
// top-level key (they belong to other rule kinds). A key inside [[secrets]] that SecretRule
// doesn't know is an error, so a misspelt "regexp" can't silently disable a rule.
func ParseSecretRules(data []byte, file string) ([]SecretRule, error) {
	var doc struct {
		Secrets []SecretRule `toml:"secrets"`
	}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for _, key := range md.Undecoded() {
		if len(key) > 0 && key[0] == "secrets" {
			return nil, fmt.Errorf("%s: unknown key %q in [[secrets]]", file, key.String())
		}
	}
	return doc.Secrets, nil
}

// MergeSecretRules merges user rules over base by id: a rule with a known id replaces it
// (disabled = true removes it), a new id is added after the known ones. file names the
// user's file for error messages. Base order is kept: the scanner prefers earlier rules
// when two findings overlap, so specific rules come before generic ones.
func MergeSecretRules(base, user []SecretRule, file string) ([]SecretRule, error) {
	out := slices.Clone(base)
	index := make(map[string]int, len(out)) // id -> position in out
	for i, r := range out {
		index[r.ID] = i
	}
	seen := make(map[string]bool, len(user))
	var removed []string
	for _, r := range user {
		if strings.TrimSpace(r.ID) == "" {
			return nil, fmt.Errorf("%s: secret rule without an id (regex %q)", file, r.Regex)
		}
		if seen[r.ID] {
			return nil, fmt.Errorf("%s: secret rule %q is defined twice", file, r.ID)
		}
		seen[r.ID] = true
		if r.Disabled {
			removed = append(removed, r.ID)
			continue
		}
		r.Keywords = normalizeKeywords(r.Keywords)
		if r.Description == "" {
			r.Description = r.ID // SARIF and secrets.json want some text
		}
		if err := r.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if i, ok := index[r.ID]; ok {
			out[i] = r
		} else {
			index[r.ID] = len(out)
			out = append(out, r)
		}
	}
	return slices.DeleteFunc(out, func(r SecretRule) bool { return slices.Contains(removed, r.ID) }), nil
}

// Validate checks that r can be compiled and used; its errors name the rule and quote it.
func (r *SecretRule) Validate() error {
	if r.Regex == "" {
		return fmt.Errorf("secret rule %q: regex is empty", r.ID)
	}
	re, err := regexp.Compile(r.Regex)
	if err != nil {
		return fmt.Errorf("secret rule %q: regex %q: %w", r.ID, r.Regex, err)
	}
	if r.SecretGroup < 0 || r.SecretGroup > re.NumSubexp() {
		return fmt.Errorf("secret rule %q: secret_group %d, but regex %q has %d groups", r.ID, r.SecretGroup, r.Regex, re.NumSubexp())
	}
	if r.Entropy < 0 || r.Entropy > 8 {
		return fmt.Errorf("secret rule %q: entropy %v is outside 0..8 bits per byte", r.ID, r.Entropy)
	}
	for _, kw := range r.Keywords {
		if kw == "" {
			return fmt.Errorf("secret rule %q: empty keyword", r.ID)
		}
	}
	for _, list := range [][]string{r.Allow.Regexes, r.Allow.Paths} {
		for _, s := range list {
			if _, err := regexp.Compile(s); err != nil {
				return fmt.Errorf("secret rule %q: allow regex %q: %w", r.ID, s, err)
			}
		}
	}
	return nil
}

// normalizeKeywords lower-cases keywords, ASCII only as the pre-filter lower-cases content,
// and drops repeats.
func normalizeKeywords(kws []string) []string {
	out := make([]string, 0, len(kws))
	for _, kw := range kws {
		kw = strings.Map(func(r rune) rune {
			if 'A' <= r && r <= 'Z' {
				return r + 'a' - 'A'
			}
			return r
		}, kw)
		if !slices.Contains(out, kw) {
			out = append(out, kw)
		}
	}
	return out
}
