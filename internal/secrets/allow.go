package secrets

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// placeholderMarks are texts that make a candidate a stand-in rather than a secret. They
// apply to every rule unless it sets allow.no_placeholders; the doc lists them.
var placeholderMarks = [][]byte{
	[]byte("${"), []byte("{{"), []byte("$("), []byte("%("), []byte("#{"), // templates and env references
	[]byte("<your"), []byte("your_"), []byte("your-"), []byte("yourkey"), []byte("your key"),
	[]byte("changeme"), []byte("change_me"), []byte("change-me"), []byte("replaceme"), []byte("replace_me"),
	[]byte("placeholder"), []byte("example"), []byte("dummy"), []byte("redacted"),
	[]byte("xxxx"), []byte("****"), []byte("..."), []byte("…"),
	[]byte("12345678"), []byte("abcdefgh"),
	[]byte("opensesame"), []byte("aladdin"), // RFC 7617's example credentials
	[]byte("foobar"), []byte("super-secret"), []byte("supersecret"), []byte("secr3t"), []byte("s3cr3t"),
	[]byte("ywxhzgrpbjpvcgvuc2vzyw1l"), // and their Basic header, lower-cased
}

// formatOnly matches text made only of printf, Python and brace format
// verbs and escapes: code that builds a credential, not a credential.
var formatOnly = regexp.MustCompile(`^(?:%[-+# 0-9.*]*[a-zA-Z%]|%\([^)]*\)[a-zA-Z]|\{[0-9A-Za-z_]*\}|\\[nrt])+$`)

// wholePlaceholder matches whole values that are stand-ins: my-api-key, demo, test.
var wholePlaceholder = regexp.MustCompile(`(?i)^(?:my[-_]?(?:api[-_]?key|token|secret|password|pass|key)|demo|test|sample|none|todo|tbd|fixme)$`)

// envRef matches a whole value that names an environment variable.
var envRef = regexp.MustCompile(`^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z_][A-Za-z0-9_]*%)$`)

// isPlaceholder reports whether secret looks like a stand-in: a template, a "your key
// here", a mask, a counting sequence, a <...> slot, or mostly one repeated character.
func isPlaceholder(secret []byte) bool {
	lower := bytes.ToLower(secret)
	for _, m := range placeholderMarks {
		if bytes.Contains(lower, m) {
			return true
		}
	}
	if len(secret) >= 2 && secret[0] == '<' && secret[len(secret)-1] == '>' {
		return true
	}
	if envRef.Match(secret) || wholePlaceholder.Match(secret) {
		return true // $VAR, ${VAR}, %VAR%: where the secret is, not the secret
	}
	if formatOnly.Match(secret) {
		return true // a format string's slot, not a value: "%s", "{0}", "%(pw)s\n"
	}
	// A run of one byte over half the secret: 0000000000, or AKIA and sixteen As.
	run, longest := 0, 0
	for i := range secret {
		if i > 0 && secret[i] == secret[i-1] {
			run++
		} else {
			run = 1
		}
		longest = max(longest, run)
	}
	return len(secret) >= 6 && 2*longest > len(secret)
}

// shannon is the Shannon entropy of b in bits per byte.
func shannon(b []byte) float64 {
	if len(b) == 0 {
		return 0
	}
	var counts [256]int
	for _, c := range b {
		counts[c]++
	}
	n := float64(len(b))
	h := 0.0
	for _, k := range counts {
		if k > 0 {
			p := float64(k) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// mask shows enough of a secret to recognise its kind and nothing to reuse: at most four
// printable ASCII characters and never more than a quarter of it, an ellipsis, and its
// length in characters, e.g. AKIA…(20), 13…(11).
func mask(secret []byte) string {
	return maskHead(secret, utf8.RuneCount(secret))
}

// maskHead is mask for a secret of n code points of which head holds the first bytes.
func maskHead(head []byte, n int) string {
	show := min(4, n/4)
	var b strings.Builder
	for i := 0; i < show && i < len(head); i++ {
		c := head[i]
		if c < 0x21 || c > 0x7e {
			break
		}
		b.WriteByte(c)
	}
	b.WriteString("…(")
	b.WriteString(strconv.Itoa(n))
	b.WriteString(")")
	return b.String()
}
