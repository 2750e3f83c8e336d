// Package secrettest makes credentials of every default rule's kind at run time, from
// crypto/rand, so tests can plant real-looking secrets without any being committed. It
// also expands the {{...}} templates of rules/defaults/secrets.toml examples.
package secrettest

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Alphabets of the {{CLASS:N}} templates.
var classes = map[string]string{
	"upper":    "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
	"lower":    "abcdefghijklmnopqrstuvwxyz",
	"digit":    "0123456789",
	"alnum":    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
	"hex":      "0123456789abcdef",
	"b64":      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
	"b64url":   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
	"b32":      "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
	"hexup":    "0123456789ABCDEF",
	"lalnum":   "abcdefghijklmnopqrstuvwxyz0123456789",
	"ualnum":   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
	"bech32":   "qpzry9x8gf2tvdw0s3jn54khce6mua7l",
	"bech32up": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
}

var templateRE = regexp.MustCompile(`\{\{(upper|lower|digit|alnum|hexup|hex|b64url|b64|b32|lalnum|ualnum|bech32up|bech32|int|s):([^}]*)\}\}`)

// Expand replaces each template in t: {{CLASS:N}} with N random characters of CLASS, no
// two neighbours alike; {{int:LO-HI}} with a random integer in [LO, HI]; {{s:TEXT}} with
// TEXT; {{b64enc:TEXT}} with TEXT, its own templates expanded, in standard base64. Anything else, "{{ var }}" included, is left as it is. It panics on a malformed
// count, which only a broken rules file has.
func Expand(t string) string {
	// {{b64enc:TEXT}} nests templates, which one regexp cannot match: expand the innermost
	// first, then encode.
	const open = "{{b64enc:"
	for {
		i := strings.LastIndex(t, open)
		if i < 0 {
			break
		}
		depth, j := 1, i+len(open)
		for ; j < len(t) && depth > 0; j++ {
			switch {
			case strings.HasPrefix(t[j:], "{{"):
				depth++
				j++
			case strings.HasPrefix(t[j:], "}}"):
				depth--
				j++
			}
		}
		if depth != 0 {
			panic("secrettest: unclosed " + t[i:])
		}
		inner := Expand(t[i+len(open) : j-2])
		t = t[:i] + base64.StdEncoding.EncodeToString([]byte(inner)) + t[j:]
	}
	return templateRE.ReplaceAllStringFunc(t, func(m string) string {
		sub := templateRE.FindStringSubmatch(m)
		switch sub[1] {
		case "s":
			return sub[2]
		case "int":
			lo, hi, ok := strings.Cut(sub[2], "-")
			l, err1 := strconv.Atoi(lo)
			h, err2 := strconv.Atoi(hi)
			if !ok || err1 != nil || err2 != nil || h < l {
				panic("secrettest: bad template " + m)
			}
			return strconv.Itoa(l + Intn(h-l+1))
		default:
			n, err := strconv.Atoi(sub[2])
			if err != nil {
				panic("secrettest: bad template " + m)
			}
			return Rand(classes[sub[1]], n)
		}
	})
}

// StandIns are texts the default rules take for a stand-in rather than a credential,
// whatever their case: a placeholder mark ("fake", "xxxx") or a rule's stopword ("pass",
// "example"). Rand never returns a draw that holds one, so a generated credential is
// never dismissed by chance: "FaKe", "xXxX" or "pASs" inside a random token once failed
// about one recall test in 150. The secrets package's TestStandInsCovered keeps this list
// in step with the marks and the default rules.
var StandIns = []string{
	"fake", "xxxx", "pass", "secret", "example", "dummy", "redacted", "placeholder",
	"changeme", "change_me", "change-me", "changeit", "changethis", "replaceme", "replace_me", "your_", "your-", "yourkey",
	"12345678", "abcdefgh", "opensesame", "aladdin", "foobar", "super-secret", "secr3t",
	"s3cr3t", "ywxhzgrpbjpvcgvuc2vzyw1l", "correcthorse", "0001020304", "0102030405", "encrypted",
}

// Drawable reports whether Rand could return text holding s, in some mix of cases: every
// byte of s is in one of the alphabets.
func Drawable(s string) bool {
	all := strings.Join(slices.Collect(maps.Values(classes)), "")
	for _, c := range []byte(s) {
		if !strings.ContainsAny(all, strings.ToLower(string(c))+strings.ToUpper(string(c))) {
			return false
		}
	}
	return true
}

// Rand returns n characters from alphabet chosen with crypto/rand, no two neighbours alike,
// so a value never trips the placeholder check for repeated characters, and holding none
// of the StandIns (a one-letter alphabet has nothing to choose). A draw of eight or more
// is also as mixed as random text nearly always is: its Shannon entropy is at least 0.8 of
// log2(min(n, len(alphabet))). One draw of sixteen base32 letters in about 16,000
// otherwise repeats enough (ASIAAIQIXSN7XIRISI5Y) to fall under its rule's entropy floor,
// which a scanner skips by design; the floor redraws about one in 80.
func Rand(alphabet string, n int) string {
	b := make([]byte, n)
	for {
		for i := range b {
			for {
				b[i] = alphabet[Intn(len(alphabet))]
				if i == 0 || b[i] != b[i-1] || len(alphabet) == 1 {
					break
				}
			}
		}
		if len(alphabet) == 1 {
			return string(b)
		}
		lower := strings.ToLower(string(b))
		if slices.ContainsFunc(StandIns, func(w string) bool { return strings.Contains(lower, w) }) {
			continue
		}
		if n < 8 || shannon(b) >= 0.8*math.Log2(float64(min(n, len(alphabet)))) {
			return string(b)
		}
	}
}

// Intn returns a uniform random int in [0, n) from crypto/rand.
func Intn(n int) int {
	var b [8]byte
	limit := ^uint64(0) - ^uint64(0)%uint64(n) // reject the biased top
	for {
		rand.Read(b[:])
		if v := binary.LittleEndian.Uint64(b[:]); v < limit {
			return int(v % uint64(n))
		}
	}
}

// Sample is one generated credential: Text is what to plant (one line, or a block for a
// private key) and Secret the part of it a scanner must report and redact.
type Sample struct {
	Rule   string // the default rule that must find it
	Text   string
	Secret string
}

// Samples returns fresh credentials, at least one of each default rule's kind.
func Samples() []Sample {
	alnum := func(n int) string { return Rand(classes["alnum"], n) }
	// withDigits puts digits inside a generic value, so it is neither all letters (the
	// generic rules' allowlist) nor a name with a number on the end (an identifier).
	// A '-' in the middle keeps it from reading as an identifier in code, as most
	// tokens' alphabets would.
	withDigits := func(n int) string { return alnum((n-3)/2) + Rand(classes["digit"], 2) + "-" + alnum(n-3-(n-3)/2) }
	var out []Sample
	add := func(rule, prefix, secret, suffix string) {
		out = append(out, Sample{Rule: rule, Text: prefix + secret + suffix, Secret: secret})
	}
	add("aws-access-key-id", "key_id: ", "AKIA"+Rand(classes["b32"], 16), "")
	add("aws-access-key-id", "", "ASIA"+Rand(classes["b32"], 16), "")
	add("aws-secret-access-key", "aws_secret_access_key = ", Rand(classes["b64"], 40), "")
	add("github-token", "", "gh"+"p_"+alnum(36), "")
	add("github-token", "auth: ", "gh"+"s_"+alnum(36), "")
	add("github-fine-grained-pat", "", "github_"+"pat_"+alnum(22)+"_"+alnum(59), "")
	add("gitlab-token", "", "glpat-"+alnum(20), "")
	add("slack-token", "bot: ", "xox"+"b-"+Rand(classes["digit"], 12)+"-"+Rand(classes["digit"], 13)+"-"+alnum(24), "")
	add("slack-webhook", "", "https://hooks.slack.com/services/T"+Rand(classes["upper"], 8)+"/B"+Rand(classes["upper"], 10)+"/"+alnum(24), "")
	add("stripe-key", "", "sk_"+"live_"+alnum(24), "")
	add("google-api-key", "", "AIza"+Rand(classes["b64url"], 35), "")
	add("jwt", "Bearer ", "eyJ"+Rand(classes["b64url"], 24)+".eyJ"+Rand(classes["b64url"], 48)+"."+Rand(classes["b64url"], 43), "")
	add("connection-string", "postgres://app:", alnum(16), "@db.internal:5432/app")
	add("connection-string", "mongodb+srv://admin:", alnum(12), "@cluster0.mongodb.net/test")
	add("internal-ipv4", "", "10."+strconv.Itoa(Intn(256))+"."+strconv.Itoa(Intn(256))+"."+strconv.Itoa(1+Intn(254)), "")
	add("internal-ipv4", "host ", "172."+strconv.Itoa(16+Intn(16))+".0."+strconv.Itoa(1+Intn(254)), ":8080")
	add("internal-ipv4", "", "192.168."+strconv.Itoa(Intn(256))+"."+strconv.Itoa(1+Intn(254)), "")
	add("cn-mobile", "tel ", []string{"13", "15", "18", "17", "19"}[Intn(5)]+strconv.Itoa(Intn(3))+Rand(classes["digit"], 8), "")
	add("e164-phone", "call ", "+44"+Rand(classes["digit"], 10), "")
	add("generic-api-key", "api_key = '", withDigits(32), "'")
	add("generic-api-key", "client_secret: ", withDigits(40), "")
	add("password-assignment", "DB_PASSWORD=", withDigits(14), "")
	add("password-assignment", "password = '", withDigits(12), "'")
	for _, kind := range []string{"RSA ", "OPENSSH ", "EC ", "", "PGP "} {
		block := "PRIVATE KEY"
		if kind == "PGP " {
			block = "PRIVATE KEY BLOCK"
		}
		var b strings.Builder
		b.WriteString("-----BEGIN " + kind + block + "-----\n")
		for range 6 {
			b.WriteString(Rand(classes["b64"], 64) + "\n")
		}
		b.WriteString("-----END " + kind + block + "-----")
		add("private-key", "", b.String(), "")
	}
	return out
}

// shannon is the Shannon entropy of b in bits per byte, as the scanner's entropy floor
// measures it.
func shannon(b []byte) float64 {
	var counts [256]int
	for _, c := range b {
		counts[c]++
	}
	h := 0.0
	for _, k := range counts {
		if k > 0 {
			p := float64(k) / float64(len(b))
			h -= p * math.Log2(p)
		}
	}
	return h
}
