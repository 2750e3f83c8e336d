package secrets

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/repoprep/repoprep/rules"
)

// commonValue reports whether the value content[gs:ge] that a credential rule caught
// is one anybody could guess, so it protects nothing and is neither reported nor
// masked: a default or test password made of default words and digits (admin123,
// pass4321, Root@123; rules.DefaultWord), digits that repeat or mirror (123123,
// 123321), one character over and over (zzzz), the user's own name given on the same
// line (user=gorm password=gorm, postgres://guest:guest@), a word of the content's own
// path (pathWord), or a sentence in a script that is not ASCII (a translated prompt
// under a password key).
func commonValue(content []byte, gs, ge int, path string) bool {
	v := content[gs:ge]
	if len(v) == 0 || len(v) > maxCommonValue {
		return false
	}
	return defaultWords(v) || simpleDigits(v) || oneByte(v) || sentence(v) || userEcho(content, gs, ge) || pathWord(v, path)
}

// pathWord reports whether v, 4 to 16 lower-case letters, is a word of path (between
// its / - _ . and spaces): a sample's password named for its product,
// gitea-postgres/compose.yaml's POSTGRES_PASSWORD=gitea, cassandra/cassandra.yaml's
// keystore_password: cassandra. A random value is never such a word.
func pathWord(v []byte, path string) bool {
	if len(v) < 4 || len(v) > 16 {
		return false
	}
	for _, c := range v {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	for path != "" {
		i := strings.IndexAny(path, "/-_. ")
		word := path
		if i >= 0 {
			word, path = path[:i], path[i+1:]
		} else {
			path = ""
		}
		if strings.EqualFold(word, string(v)) {
			return true
		}
	}
	return false
}

// maxCommonValue bounds the values commonValue looks at: defaults are short.
const maxCommonValue = 64

// defaultWords reports whether v is made of default words (rules.DefaultWord), digits
// and the separators - _ . @ ! # $ *, holding at least one word: admin, test_123456,
// Admin@123, passw2. Digits inside a word are left out (pass4321, te5t is not).
func defaultWords(v []byte) bool {
	var letters [maxCommonValue]byte
	n, words := 0, 0
	flush := func() bool {
		if n == 0 {
			return true
		}
		ok := wordBreak(letters[:n])
		words++
		n = 0
		return ok
	}
	for _, c := range v {
		switch {
		case 'a' <= c && c <= 'z':
			letters[n] = c
			n++
		case 'A' <= c && c <= 'Z':
			letters[n] = c + 'a' - 'A'
			n++
		case '0' <= c && c <= '9':
		case bytes.IndexByte([]byte("-_.@!#$*"), c) >= 0:
			if !flush() {
				return false
			}
		default:
			return false
		}
	}
	return flush() && words > 0
}

// wordBreak reports whether s is one or more default words run together
// (adminpass, rootroot), trying pieces of at most rules.MaxDefaultWord bytes.
func wordBreak(s []byte) bool {
	var ok [maxCommonValue + 1]bool
	ok[0] = true
	for i := 1; i <= len(s); i++ {
		for j := max(0, i-rules.MaxDefaultWord); j < i && !ok[i]; j++ {
			ok[i] = ok[j] && rules.DefaultWord(string(s[j:i]))
		}
	}
	return ok[len(s)]
}

// simpleDigits reports whether v is up to 12 digits that repeat a shorter unit
// (123123, 1111) or read the same backwards (123321).
func simpleDigits(v []byte) bool {
	if len(v) < 3 || len(v) > 12 {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	mirror := true
	for i := range len(v) / 2 {
		mirror = mirror && v[i] == v[len(v)-1-i]
	}
	if mirror {
		return true
	}
	for unit := 1; unit <= len(v)/2; unit++ {
		if len(v)%unit == 0 && bytes.Equal(v[unit:], v[:len(v)-unit]) {
			return true
		}
	}
	return false
}

// oneByte reports whether v is one byte three times or more: zzzz, aaaaa.
func oneByte(v []byte) bool {
	return len(v) >= 3 && bytes.Count(v, v[:1]) == len(v)
}

// sentence reports whether v holds no ASCII letter or digit and at least three
// letters of other scripts: text for people (請提供新的密碼), not a password.
func sentence(v []byte) bool {
	letters := 0
	for len(v) > 0 {
		r, size := utf8.DecodeRune(v)
		v = v[size:]
		switch {
		case r < utf8.RuneSelf && isAlnum(byte(r)):
			return false
		case r >= utf8.RuneSelf && unicode.IsLetter(r):
			letters++
		}
	}
	return letters >= 3
}

// userEcho reports whether the value content[gs:ge], shaped as a user's name (userName),
// also stands, on the same line, as the user's name: after user, username, login, uid or role and at most three
// quotes, spaces, = or :, or as the user part of a URL (postgres://gorm:gorm@).
func userEcho(content []byte, gs, ge int) bool {
	v := content[gs:ge]
	if !userName(v) {
		return false
	}
	start := bytes.LastIndexByte(content[:gs], '\n') + 1
	end := ge + bytes.IndexByte(content[ge:], '\n')
	if end < ge {
		end = len(content)
	}
	for at := start; at < end; {
		i := bytes.Index(content[at:end], v)
		if i < 0 {
			return false
		}
		p := at + i
		at = p + 1
		if p == gs || p > 0 && isAlnum(content[p-1]) || p+len(v) < len(content) && isAlnum(content[p+len(v)]) {
			continue // the value itself, or part of a longer word
		}
		if userKeyBefore(content[start:p]) {
			return true
		}
	}
	return false
}

// userName reports whether v reads as a user's name: 2 to 16 lower-case letters,
// digits, - and _, starting with a letter. A long or mixed-case value is judged as a
// password even where the line also gives it as the user.
func userName(v []byte) bool {
	if len(v) < 2 || len(v) > 16 || v[0] < 'a' || v[0] > 'z' {
		return false
	}
	for _, c := range v {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// userKeyBefore reports whether before ends with a user's key and what separates a
// key from its value: `user=`, `"username": "`, `USER `, `login '`, or a URL's `//`.
func userKeyBefore(before []byte) bool {
	if bytes.HasSuffix(before, []byte("//")) {
		return true
	}
	trimmed := bytes.TrimRight(before, " \t\"'`=:")
	if len(before)-len(trimmed) > 4 {
		return false
	}
	i := len(trimmed)
	for i > 0 && isAlnum(trimmed[i-1]) {
		i--
	}
	switch word := string(bytes.ToLower(trimmed[i:])); {
	case word == "user", word == "username", word == "login", word == "uid", word == "role", word == "usr":
		return true
	case word == "exists" && bytes.HasSuffix(bytes.ToLower(trimmed), []byte(" if not exists")):
		// SQL: CREATE USER IF NOT EXISTS 'petclinic'@'%' IDENTIFIED BY 'petclinic'
		return userKeyBefore(trimmed[:len(trimmed)-len(" if not exists")])
	}
	return false
}
