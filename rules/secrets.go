package rules

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// defaultSecretsTOML is the embedded structural, generic and personal-data rules; see its
// header comment for the format. defaultProvidersTOML holds the provider token formats,
// which come first.
var (
	//go:embed defaults/secrets.toml
	defaultSecretsTOML []byte
	//go:embed defaults/providers.toml
	defaultProvidersTOML []byte
)

// SecretRule is one secret pattern, as data: the scanner in internal/secrets runs Regex only
// where one of Keywords occurs, keeps the SecretGroup capture, and drops it when it is too
// predictable (Entropy) or allowlisted (Allow).
type SecretRule struct {
	ID          string `toml:"id"`
	Description string `toml:"description,omitempty"`
	// Regex is RE2 syntax (Go regexp). The secret is capture group SecretGroup; 0 means the
	// first non-empty group, or the whole match when the expression has no groups.
	Regex       string `toml:"regex,omitempty"`
	SecretGroup int    `toml:"secret_group,omitempty"`
	// Keywords gate the rule: its Regex runs only on lines holding one of them (matched
	// ASCII case-insensitively). A rule without keywords runs over the whole content.
	Keywords []string `toml:"keywords,omitempty"`
	// Entropy is the minimum Shannon entropy of the secret in bits per byte; 0 disables it.
	Entropy float64 `toml:"entropy,omitempty"`
	// Multiline lets a match span lines: the regex runs from the keyword's line over the
	// next MaxSpanBytes bytes instead of on that line alone.
	Multiline bool `toml:"multiline,omitempty"`
	// End makes the rule a block of any length (a private key): Regex matches the opening
	// marker on its line, End (RE2) the closing one, and the secret is everything from the
	// opening to the end of the first closing marker after it, however far.
	End string `toml:"end,omitempty"`
	// Decode names an encoding the secret is in ("base64"): the scanner decodes it and
	// keeps it only when Decoded (RE2) matches the decoded bytes.
	Decode  string `toml:"decode,omitempty"`
	Decoded string `toml:"decoded,omitempty"`
	// Assignment says the secret is the value of a KEY = VALUE (or KEY: VALUE) pair, and
	// turns on the scanner's judgement of that value: a literal, not an identifier, call,
	// reference, path or password hash (docs/secrets.md lists the checks).
	Assignment bool `toml:"assignment,omitempty"`
	// Key (RE2), for an assignment rule, must match the assigned key's name, normalised to
	// lower snake case (dbPassword, DB-PASSWORD and db.password all read db_password).
	Key string `toml:"key,omitempty"`
	// Kind is "credential" (the default) or "pii" (addresses, phone numbers, e-mail):
	// --fail-on and --pii choose what each kind does.
	Kind string `toml:"kind,omitempty"`
	// Severity is "high", "medium" or "low"; it sets the SARIF level (error, warning,
	// note). Empty means high for a credential and low for pii.
	Severity string      `toml:"severity,omitempty"`
	Allow    SecretAllow `toml:"allow,omitempty"`
	// Disabled, in a --rules file, removes the default rule with the same ID.
	Disabled bool `toml:"disabled,omitempty"`
	// Examples must each yield a finding of this rule and Counterexamples none; {{...}}
	// templates in them are expanded by the tests (see defaults/secrets.toml).
	Examples        []string `toml:"examples,omitempty"`
	Counterexamples []string `toml:"counterexamples,omitempty"`
}

// SecretAllow lists what a rule ignores; an allowlisted match is dropped even when the
// regex, keywords and entropy all say "secret".
type SecretAllow struct {
	StopWords []string `toml:"stopwords,omitempty"` // the secret contains one (ASCII case-insensitive)
	Regexes   []string `toml:"regexes,omitempty"`   // RE2 matched against the secret
	Paths     []string `toml:"paths,omitempty"`     // RE2 matched against the slash-separated file name
	Keys      []string `toml:"keys,omitempty"`      // RE2 matched against an assignment's normalised key name
	// NoPlaceholders turns off the scanner's built-in placeholder check (${VAR}, <your-key>,
	// changeme, xxxx, runs of one character...) for this rule.
	NoPlaceholders bool `toml:"no_placeholders,omitempty"`
}

// MaxSpanBytes bounds how far a multiline match may reach past its keyword's line, and so
// how much a streaming scan carries from one chunk to the next.
const MaxSpanBytes = 64 << 10

// DefaultSecretRules parses the embedded rules/defaults/providers.toml and secrets.toml,
// in that order. The caller owns the result: each call returns a fresh copy of rules
// parsed once per process (a corpus loads them for every repository).
func DefaultSecretRules() ([]SecretRule, error) {
	rs, err := defaultSecretRules()
	if err != nil {
		return nil, err
	}
	out := make([]SecretRule, len(rs))
	for i, r := range rs {
		out[i] = r.clone()
	}
	return out, nil
}

// defaultSecretRules is the embedded rules, parsed on first use; never modified after
// (DefaultSecretRules hands out copies). They are not validated here, which would parse
// every regex in every process: TestDefaultSecretRulesValidate checks them, and
// secrets.Compile checks every rule it compiles, with the same messages.
var defaultSecretRules = sync.OnceValues(func() ([]SecretRule, error) {
	var all []SecretRule
	for _, f := range []struct {
		name string
		data []byte
	}{{"defaults/providers.toml", defaultProvidersTOML}, {"defaults/secrets.toml", defaultSecretsTOML}} {
		rs, err := ParseSecretRules(f.data, f.name)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if slices.ContainsFunc(all, func(a SecretRule) bool { return a.ID == r.ID }) {
				return nil, fmt.Errorf("%s: secret rule %q is already defined", f.name, r.ID)
			}
		}
		if all, err = mergeSecretRules(all, rs, f.name, false); err != nil {
			return nil, err
		}
	}
	return all, nil
})

// clone returns r with slices of its own, so a caller may change one copy's lists
// without touching another's.
func (r SecretRule) clone() SecretRule {
	r.Keywords = slices.Clone(r.Keywords)
	r.Examples = slices.Clone(r.Examples)
	r.Counterexamples = slices.Clone(r.Counterexamples)
	r.Allow.StopWords = slices.Clone(r.Allow.StopWords)
	r.Allow.Regexes = slices.Clone(r.Allow.Regexes)
	r.Allow.Paths = slices.Clone(r.Allow.Paths)
	r.Allow.Keys = slices.Clone(r.Allow.Keys)
	return r
}

// ParseSecretRules reads the [[secrets]] array of a TOML rule file and ignores every other
// top-level key (they belong to other rule kinds). A key inside [[secrets]] that SecretRule
// doesn't know is an error, so a misspelt "regexp" can't silently disable a rule.
func ParseSecretRules(data []byte, file string) ([]SecretRule, error) {
	var doc struct {
		Secrets []SecretRule `toml:"secrets,omitempty"`
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
// (disabled = true removes it), a new id is added after the known ones. A rule with a
// known id and no regex extends the known one instead: its allow lists are added to the
// rule's, and a kind or severity it sets replaces the rule's, so a user allowlists a
// rule without restating it. file names the user's file for error messages. Base order
// is kept: the scanner prefers earlier rules when two findings overlap, so specific
// rules come before generic ones.
func MergeSecretRules(base, user []SecretRule, file string) ([]SecretRule, error) {
	return mergeSecretRules(base, user, file, true)
}

// mergeSecretRules is MergeSecretRules; validate false skips the checks of the rules
// user defines anew (not of those it extends), for the embedded defaults.
func mergeSecretRules(base, user []SecretRule, file string, validate bool) ([]SecretRule, error) {
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
		if i, ok := index[r.ID]; ok && r.Regex == "" {
			ext, err := extend(out[i], r)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			out[i] = ext
			continue
		}
		r.Keywords = normalizeKeywords(r.Keywords)
		if r.Description == "" {
			r.Description = r.ID // SARIF and secrets.json want some text
		}
		r.fillDefaults()
		if validate {
			if err := r.Validate(); err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
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

// extend adds what a regex-less user table u says to the known rule r: allow lists, and
// kind or severity. Anything else needs the whole rule restated, which the error says.
func extend(r, u SecretRule) (SecretRule, error) {
	if u.Description != "" || u.SecretGroup != 0 || len(u.Keywords) > 0 || u.Entropy != 0 || u.Multiline ||
		u.End != "" || u.Decode != "" || u.Decoded != "" || u.Assignment || u.Key != "" ||
		len(u.Examples) > 0 || len(u.Counterexamples) > 0 || u.Allow.NoPlaceholders {
		return r, fmt.Errorf("secret rule %q: without a regex a known rule can only be given allow lists, kind or severity; to change more, restate the whole rule", r.ID)
	}
	r.Allow = SecretAllow{
		StopWords:      append(slices.Clone(r.Allow.StopWords), u.Allow.StopWords...),
		Regexes:        append(slices.Clone(r.Allow.Regexes), u.Allow.Regexes...),
		Paths:          append(slices.Clone(r.Allow.Paths), u.Allow.Paths...),
		Keys:           append(slices.Clone(r.Allow.Keys), u.Allow.Keys...),
		NoPlaceholders: r.Allow.NoPlaceholders,
	}
	if u.Kind != "" {
		r.Kind = u.Kind
		if u.Severity == "" {
			r.Severity = ""
		}
	}
	if u.Severity != "" {
		r.Severity = u.Severity
	}
	r.fillDefaults()
	return r, r.Validate()
}

// Rule kinds and severities, as rule files write them.
const (
	KindCredential = "credential"
	KindPII        = "pii"
	SeverityHigh   = "high"
	SeverityMedium = "medium"
	SeverityLow    = "low"
)

// fillDefaults makes the kind and severity explicit: a credential is high, pii low.
func (r *SecretRule) fillDefaults() {
	if r.Kind == "" {
		r.Kind = KindCredential
	}
	if r.Severity == "" {
		r.Severity = SeverityHigh
		if r.Kind == KindPII {
			r.Severity = SeverityLow
		}
	}
}

// Validate checks that r can be compiled and used; its errors name the rule and quote it.
// It parses each regex without compiling it (checkRegex): the scanner compiles them
// once, and Load validates every default rule in every process.
func (r *SecretRule) Validate() error {
	_, err := r.Check()
	return err
}

// Check is Validate that also returns Regex parsed (with syntax.Perl, as
// regexp.Compile parses it), so the scanner need not parse it again to
// analyse it.
func (r *SecretRule) Check() (*syntax.Regexp, error) {
	if r.Regex == "" {
		return nil, fmt.Errorf("secret rule %q: regex is empty", r.ID)
	}
	re, err := checkRegex(r.Regex)
	if err != nil {
		return nil, fmt.Errorf("secret rule %q: regex %q: %w", r.ID, r.Regex, err)
	}
	if groups := re.MaxCap(); r.SecretGroup < 0 || r.SecretGroup > groups {
		return nil, fmt.Errorf("secret rule %q: secret_group %d, but regex %q has %d groups", r.ID, r.SecretGroup, r.Regex, groups)
	}
	if r.Entropy < 0 || r.Entropy > 8 {
		return nil, fmt.Errorf("secret rule %q: entropy %v is outside 0..8 bits per byte", r.ID, r.Entropy)
	}
	for _, kw := range r.Keywords {
		if kw == "" {
			return nil, fmt.Errorf("secret rule %q: empty keyword", r.ID)
		}
	}
	switch r.Kind {
	case "", KindCredential, KindPII:
	default:
		return nil, fmt.Errorf("secret rule %q: kind %q: want credential or pii", r.ID, r.Kind)
	}
	switch r.Severity {
	case "", SeverityHigh, SeverityMedium, SeverityLow:
	default:
		return nil, fmt.Errorf("secret rule %q: severity %q: want high, medium or low", r.ID, r.Severity)
	}
	switch r.Decode {
	case "":
		if r.Decoded != "" {
			return nil, fmt.Errorf("secret rule %q: decoded %q without decode", r.ID, r.Decoded)
		}
	case "base64":
		if r.Decoded == "" {
			return nil, fmt.Errorf("secret rule %q: decode %q needs a decoded regex", r.ID, r.Decode)
		}
	default:
		return nil, fmt.Errorf("secret rule %q: decode %q: want base64", r.ID, r.Decode)
	}
	if r.Key != "" && !r.Assignment {
		return nil, fmt.Errorf("secret rule %q: key %q needs assignment = true", r.ID, r.Key)
	}
	for what, s := range map[string]string{"end": r.End, "decoded": r.Decoded, "key": r.Key} {
		if s == "" {
			continue
		}
		if _, err := checkRegex(s); err != nil {
			return nil, fmt.Errorf("secret rule %q: %s regex %q: %w", r.ID, what, s, err)
		}
	}
	for _, list := range [][]string{r.Allow.Regexes, r.Allow.Paths, r.Allow.Keys} {
		for _, s := range list {
			if _, err := checkRegex(s); err != nil {
				return nil, fmt.Errorf("secret rule %q: allow regex %q: %w", r.ID, s, err)
			}
		}
	}
	return re, nil
}

// checkRegex parses expr as regexp.Compile does, and fails exactly when and as it
// would: regexp.Compile's errors are the parser's (compiling a parsed expression
// cannot fail), but parsing is a fraction of the cost of building the program.
func checkRegex(expr string) (*syntax.Regexp, error) {
	return syntax.Parse(expr, syntax.Perl)
}

// EncodeSecretRules writes rs as a rules file of [[secrets]] tables that
// ParseSecretRules reads back to the same rules: `repoprep rules` prints the
// effective set with it.
func EncodeSecretRules(w io.Writer, rs []SecretRule) error {
	enc := toml.NewEncoder(w)
	enc.Indent = ""
	return enc.Encode(struct {
		Secrets []SecretRule `toml:"secrets"`
	}{rs})
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
