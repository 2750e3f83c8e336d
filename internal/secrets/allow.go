package secrets

import (
	"bytes"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/repoprep/repoprep/rules"
)

// placeholderMarks are texts that make a candidate a stand-in rather than a secret. They
// apply to every rule unless it sets allow.no_placeholders; the doc lists them.
var placeholderMarks = [][]byte{
	[]byte("${"), []byte("{{"), []byte("$("), []byte("%("), []byte("#{"), // templates and env references
	[]byte("%s"), // a format string: "user_vital_status:%s" % name
	[]byte("{$"), // PHP's interpolation: "validation.{$lowerRule}"
	[]byte(`\(`), // Swift's interpolation: "a\(refreshCount)"
	[]byte("<your"), []byte("your_"), []byte("your-"), []byte("yourkey"), []byte("your key"),
	[]byte("changeme"), []byte("change_me"), []byte("change-me"), []byte("replaceme"), []byte("replace_me"),
	[]byte("changeit"), // the JDK's keystore default, which samples keep
	[]byte("changethis"),
	[]byte("placeholder"), []byte("example"), []byte("dummy"), []byte("redacted"),
	[]byte("xxxx"), []byte("****"), []byte("..."), []byte("…"),
	[]byte("12345678"), []byte("abcdefgh"),
	[]byte("opensesame"), []byte("aladdin"), // RFC 7617's example credentials
	[]byte("foobar"), []byte("super-secret"), []byte("supersecret"), []byte("secr3t"), []byte("s3cr3t"),
	[]byte("ywxhzgrpbjpvcgvuc2vzyw1l"),         // and their Basic header, lower-cased
	[]byte("correcthorse"),                     // xkcd's
	[]byte("[filtered]"),                       // what a log filter leaves: Rails, Phoenix
	[]byte("###"),                              // a template's slot: ###ORACLE_PWD###
	[]byte("fake"),                             // thisisafaketoken
	[]byte("0001020304"), []byte("0102030405"), // counting bytes, in hex
}

// templateSlotRE is a named slot inside a value: C# $"{Constants.Key}", Python
// f"{name}", a JSONPath '{.credential.token}'.
var templateSlotRE = regexp.MustCompile(`\{\.?[A-Za-z_][A-Za-z0-9_.]*\}`)

// formatOnly matches text made only of printf, Python and brace format
// verbs and escapes: code that builds a credential, not a credential.
var formatOnly = regexp.MustCompile(`^(?:%[-+# 0-9.*]*[a-zA-Z%]|%\([^)]*\)[a-zA-Z]|\{[0-9A-Za-z_]*\}|\\[nrt])+$`)

// wholePlaceholder matches whole values that are stand-ins: my-api-key, demo, test.
var wholePlaceholder = regexp.MustCompile(`(?i)^(?:my[-_]?(?:api[-_]?key|token|secret|password|pass|key)|demo|test|sample|none|todo|tbd|fixme)$`)

// memberRE is a value that opens with a variable's element or member, maybe
// after a concatenating dot: PHP's '--password='.$connection['password'] read
// from its closing quote on, $this->password. Only at the start: a password
// may hold $x[ further in.
var memberRE = regexp.MustCompile(`^\.?\$[A-Za-z_][A-Za-z0-9_]*(?:\[|->)`)

// shellVarRE is a shell variable inside a value: "$RANDOM***$RANDOM" is made by the shell.
var shellVarRE = regexp.MustCompile(`\$[A-Z][A-Z_]{3,}(?:[^A-Za-z0-9]|$)`)

// envRef matches a whole value that names a variable: $VAR, ${VAR}, %VAR%, $$VAR (a $
// escaped once more, as Makefiles and bundlers write it), and a placeholder in braces
// ({env.DB_PASSWORD}, {http.request.header.X-Token}: Caddy, Serilog, .NET config), also
// URL-encoded in a query (?key=%7Benv.SECRET%7D).
var envRef = regexp.MustCompile(`^(?:\$+\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z_][A-Za-z0-9_]*%|(?:\{|%7[Bb])[A-Za-z_][A-Za-z0-9_]*(?:[.:][A-Za-z0-9_-]+)*(?:\}|%7[Dd]))$`)

// isPlaceholder reports whether secret looks like a stand-in: a template, a "your key
// here" (or a value that starts with "your" and a word), a mask, a counting sequence, a
// <...> slot, or mostly one repeated character.
func isPlaceholder(secret []byte) bool {
	lower := bytes.ToLower(secret)
	for _, m := range placeholderMarks {
		if bytes.Contains(lower, m) {
			return true
		}
	}
	if rules.PublishedExample(lower) {
		return true // a standard's example: RFC 6749's 2YotnFZFEjr1zCsicMWpAA
	}
	if len(secret) >= 2 && secret[0] == '<' && secret[len(secret)-1] == '>' {
		return true
	}
	if len(lower) >= 8 && bytes.HasPrefix(lower, []byte("your")) && 'a' <= lower[4] && lower[4] <= 'z' {
		return true // YourPwdShouldBeLongAndSecure!, yourStrong(!)Password: what to put there
	}
	if envRef.Match(secret) || wholePlaceholder.Match(secret) || shellVarRE.Match(secret) || templateSlotRE.Match(secret) || memberRE.Match(secret) {
		return true // $VAR, ${VAR}, %VAR%, {env.VAR}: where the secret is, not the secret
	}
	if formatOnly.Match(secret) {
		return true // a format string's slot, not a value: "%s", "{0}", "%(pw)s\n"
	}
	if 4*countingBytes(lower) >= 3*len(lower) {
		return true // 012345abcdef, abcdef123456: counting sequences typed in
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

// countingBytes is how many bytes of b lie in runs of four letters or digits or more
// that count up or down (1234, bcdef, 987654321): all of 012345abcdef, half of
// Admin12345. Random text of 62 characters holds such a run about once in a million
// and a half positions.
func countingBytes(b []byte) int {
	n, up, down := 0, 1, 1
	for i := 1; i <= len(b); i++ {
		if i < len(b) && isAlnum(b[i]) && b[i] == b[i-1]+1 {
			up++
			continue
		}
		if i < len(b) && isAlnum(b[i]) && b[i] == b[i-1]-1 {
			down++
			continue
		}
		if up >= 4 {
			n += up
		}
		if down >= 4 {
			n += down
		}
		up, down = 1, 1
	}
	return n
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

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// settingWords are the words credentials are named with: a value made of them and of
// its key's words names the setting instead of holding it.
var settingWords = map[string]bool{
	"password": true, "passwd": true, "pass": true, "pwd": true, "pw": true, "passphrase": true,
	"secret": true, "secrets": true, "key": true, "keys": true, "token": true, "tokens": true,
	"api": true, "apikey": true, "access": true, "auth": true, "private": true, "client": true,
	"app": true, "value": true, "my": true, "your": true, "the": true, "new": true, "old": true,
	"current": true, "confirm": true, "default": true,
	// and the words of a stand-in: base64EncodedKey, base64-something-random
	"base64": true, "encoded": true, "random": true, "something": true, "some": true, "string": true,
	"generated": true, "here": true,
}

// credentialWords are the settingWords that name a credential by themselves.
var credentialWords = map[string]bool{
	"password": true, "passwd": true, "pass": true, "pwd": true, "passphrase": true, "secret": true,
	"key": true, "token": true, "apikey": true,
}

// namesSetting reports whether value names its setting rather than holding it:
// password: "password", secret = "SECRET_KEY", token: "api_token", or describes it:
// base64-something-random. Its words are the key's own and settingWords, one of them a
// credential's name or two of them settingWords; a default password such as
// root_password: "root" is made of its key's words alone and stays a value.
func namesSetting(key string, value []byte) bool {
	if len(value) == 0 || !isLetter(value[0]) {
		return false
	}
	for _, c := range value {
		if !(isAlnum(c) || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	keyWords := strings.Split(key, "_")
	named, described := false, 0
	for _, w := range strings.Split(normalizeKey(value), "_") {
		if w == "" || strings.Trim(w, "0123456789") == "" {
			continue // a number beside the words: access-token-123
		}
		if !settingWords[w] && !slices.Contains(keyWords, w) {
			return false
		}
		named = named || credentialWords[w]
		if settingWords[w] {
			described++
		}
	}
	return named || described >= 2
}

// plainURLRE is a URL without credentials, query or fragment.
var plainURLRE = regexp.MustCompile(`^[a-z][a-z0-9+.-]*://[A-Za-z0-9.-]+(?::[0-9]{1,5})?((?:/[A-Za-z0-9._~%-]*)*)$`)

// isPlainURL reports whether value is an address, not a credential: a URL without user
// information or query whose path segments are words (an ACME server's newNonce
// endpoint), not a token (a webhook's random last segment).
// wordsNumberRE is a name of short words and a number in a URL's path:
// RPM-GPG-KEY-remi2018, release_notes_v2.
var wordsNumberRE = regexp.MustCompile(`^(?:[A-Za-z]{2,8}[-_])+[A-Za-z]{0,8}[0-9]{0,4}(?:\.[a-z]{2,4})?$`)

func isPlainURL(value []byte) bool {
	m := plainURLRE.FindSubmatch(value)
	if m == nil {
		return false
	}
	for _, seg := range bytes.Split(m[1], []byte("/")) {
		if len(seg) >= 16 && bytes.ContainsAny(seg, "0123456789") && !digitName(seg) && !wordsNumberRE.Match(seg) {
			return false
		}
	}
	return true
}
