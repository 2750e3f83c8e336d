package secrets

import (
	"bytes"
	"encoding/base64"
	"math"
	"path"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// format is how a file's assigned values read: in YAML or a .env file a bare word after
// "password:" is the password; in Go or Python it is a variable.
type format uint8

const (
	formatUnknown format = iota // no path: judged as leniently as config
	formatConfig                // YAML, .env, INI, properties, TOML, shell, Dockerfile...
	formatCode                  // a programming language: a bare word is an identifier
	formatProse                 // Markdown, text, HTML: code snippets in prose
)

var codeExts = map[string]bool{
	".go": true, ".py": true, ".pyi": true, ".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".tsx": true,
	".jsx": true, ".java": true, ".kt": true, ".kts": true, ".scala": true, ".groovy": true, ".rb": true,
	".erb": true, ".php": true, ".cs": true, ".c": true, ".h": true, ".cc": true, ".cpp": true, ".hpp": true,
	".cxx": true, ".rs": true, ".swift": true, ".m": true, ".mm": true, ".dart": true, ".lua": true, ".pl": true,
	".pm": true, ".r": true, ".vue": true, ".svelte": true, ".ex": true, ".exs": true, ".clj": true, ".fs": true,
	".vb": true, ".ps1": true, ".psm1": true, ".jl": true, ".hs": true, ".ml": true, ".erl": true, ".coffee": true,
	".haml": true, ".slim": true, ".jsp": true, ".aspx": true, ".cshtml": true, ".razor": true, ".s": true, ".asm": true,
}

var proseExts = map[string]bool{
	".md": true, ".markdown": true, ".rst": true, ".txt": true, ".adoc": true, ".html": true, ".htm": true,
	".tex": true, ".org": true, ".ipynb": true,
}

// formatOf guesses a content's format from its slash path.
func formatOf(p string) format {
	if p == "" {
		return formatUnknown
	}
	ext := strings.ToLower(path.Ext(p))
	switch {
	case codeExts[ext]:
		return formatCode
	case proseExts[ext]:
		return formatProse
	default:
		return formatConfig
	}
}

var (
	// referenceRE: the value names where the secret lives instead of being it.
	referenceRE = regexp.MustCompile(`^(?:(?:op|vault|awssm|gcpsm|azkv|ssm|secretsmanager|keyvault|sops|k8s|env|file)://|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$|%[A-Za-z_][A-Za-z0-9_]*%$|@[A-Za-z_][A-Za-z0-9_]*@$|(?i:env|process\.env|os\.environ|os\.getenv|getenv|system\.getenv|environment\.getenvironmentvariable|secrets|vault|ref\+|!vault|arn:aws:secretsmanager|projects/[^/]+/secrets/)[.:\[(/])`)
	// hashRE: password hashes in the formats crypt(3), LDAP, Django, MySQL and Postgres
	// store; a hash is what a system keeps instead of the password.
	hashRE = regexp.MustCompile(`^(?:\$(?:2[abxy]?|argon2(?:id|i|d)|pbkdf2(?:-sha\d+)?|scrypt|1|5|6|apr1|y|gy|7|sha1|md5|s2k)\$|\{(?i:ssha|ssha256|ssha512|sha|sha256|sha512|md5|smd5|crypt|bcrypt|pbkdf2(?:-sha\d+)?|argon2)\}|(?:pbkdf2_sha\d+|bcrypt(?:_sha256)?|argon2|sha1|md5|scrypt|crypt)\$|\*[0-9A-F]{40}$|md5[0-9a-f]{32}$|SCRAM-SHA-256\$)`)
	// encryptedRE: a value encrypted at rest (ejson, sops, hiera-eyaml, Vault transit,
	// sealed secrets): safe to commit without its key.
	encryptedRE = regexp.MustCompile(`^(?:EJ\[\d:|ENC\[|ENC\(|enc:|vault:v\d+:|AgA[A-Za-z0-9+/]{60})`)
	// relPathRE: a relative path of two or more segments (gem/x/y.rz, v2/info/name).
	relPathRE = regexp.MustCompile(`^[A-Za-z0-9._-]+(?:/[A-Za-z0-9._*-]+)+/?$`)
	// pathRE: an absolute, home or relative file path.
	pathRE = regexp.MustCompile(`^(?:/|\./|\.\./|~/|[A-Za-z]:[\\/]|\\\\)(?:[A-Za-z0-9._-]+[/\\])+[A-Za-z0-9._-]*$`)
	// identRE: a bare identifier, maybe with a trailing number, or a member chain; in code
	// that is a variable, not a value.
	identRE = regexp.MustCompile(`^(?:[A-Za-z_$][A-Za-z_$]*[0-9]{0,4}|[A-Za-z_$@][A-Za-z0-9_$]*(?:(?:\.|->|::|\?\.|:)[A-Za-z_$][A-Za-z0-9_$]*)+|:[A-Za-z_][A-Za-z0-9_]*[?!]?|[A-Za-z_$][A-Za-z0-9_$]*\[[^\]]*\])$`)
	// camelOrSnakeRE: a name made of words, newPassword or password_confirmation.
	camelOrSnakeRE = regexp.MustCompile(`^(?:[a-z]{2,}(?:[A-Z][a-z]{2,})+|[a-z]{2,}(?:_[a-z0-9]+)+)$`)
	// commentRE: the line so far opens a comment, where code reads like prose.
	commentRE = regexp.MustCompile(`^\s*(?://|#|\*|/\*|--|;|<!--|%|')`)
)

// judgeAssignment decides whether the value content[gs:ge], assigned in a match that
// starts at ms, is a secret: a literal (quoted, or bare where the format makes bare words
// values) that is not a reference, a password hash, a path or a label, under a key the
// rule wants. f is the content's format.
func (r *rule) judgeAssignment(content []byte, ms, gs, ge int, f format) bool {
	key := assignedKey(content, ms, gs)
	if r.key != nil && !r.key.MatchString(key) {
		return false
	}
	for _, re := range r.allowKeys {
		if re.MatchString(key) {
			return false
		}
	}
	if ms > 0 && (content[ms-1] == '$' || ms > 1 && content[ms-2] == '$' && content[ms-1] == '{') &&
		!bytes.ContainsRune(content[ms:gs], '=') {
		return false // a variable expanded before a colon, not assigned: "$PWD:/src:ro", "${PASS}:x"
	}
	value := content[gs:ge]
	if alnumCount(value) < 3 || bytes.Contains(value, []byte(`\x`)) || bytes.Contains(value, []byte(`\u00`)) {
		return false // punctuation from a hex dump, or escaped bytes: "\x61\x62"
	}
	if isTestVerdict(content, ms, key) {
		return false // go test output: --- PASS: TestName
	}
	quoted := gs > 0 && (content[gs-1] == '"' || content[gs-1] == '\'' || content[gs-1] == '`')
	if !quoted {
		lineStart := bytes.LastIndexByte(content[:ms], '\n') + 1
		inComment := commentRE.Match(content[lineStart:ms])
		if f == formatCode && !inComment && (looksLikeExpression(value) || identLike(value) ||
			ge < len(content) && content[ge] == '.' && ge+1 < len(content) && isAlnum(content[ge+1])) {
			return false // f.pass = &emptyPass; Pw = 0x48; PrivateKey: testRSA2048PrivateKey; x.y.Public()
		}
		if f != formatConfig && f != formatUnknown && identRE.Match(value) {
			return false // a name in code, prose or a comment: password = passphrase; "password: GID:user_list"
		}
		if value[0] == '$' || value[0] == '!' || value[0] == '=' {
			return false // $var, $request->input(...), a YAML tag (!vault, !Ref)
		}
		if ge < len(content) && (content[ge] == '(' || content[ge] == '[') {
			return false // a call or an index: password = getpass(...)
		}
	}
	if f == formatCode && quoted && (identRE.Match(value) && bytes.ContainsAny(value, ".:>") || camelOrSnakeRE.Match(value)) {
		return false // "user.password", "App::Password", "encodeUserPassword", "password_confirmation": names
	}
	if referenceRE.Match(value) || hashRE.Match(value) || encryptedRE.Match(value) {
		return false
	}
	if (pathRE.Match(value) || relPathRE.Match(value) && bytes.Count(value, []byte("/")) >= 2) && shannon(value) < 4.6 {
		return false // a file path; random base64 that happens to hold slashes scores higher
	}
	return !isLabel(value)
}

// isLabel reports whether a value reads as a word shown to people rather than a
// password: letters only, and either capitalised like a label ("Password", "Kennwort")
// or not ASCII ("Contraseña", "密码").
func isLabel(v []byte) bool {
	if !utf8.Valid(v) {
		return false
	}
	ascii, first, restLower := true, true, true
	upperFirst := false
	for _, r := range string(v) {
		if r >= utf8.RuneSelf && unicode.IsPunct(r) {
			continue // 忘了密码？: full-width punctuation in a sentence
		}
		if !unicode.IsLetter(r) {
			return false
		}
		if r >= utf8.RuneSelf {
			ascii = false
		}
		if first {
			upperFirst = unicode.IsUpper(r)
			first = false
		} else if unicode.IsUpper(r) {
			restLower = false
		}
	}
	return !ascii || (upperFirst && restLower)
}

// assignedKey returns the name assigned to in the match that starts at ms and whose value
// starts at gs, normalised to lower snake case: the identifier that holds the match's
// start, through to the operator before the value.
func assignedKey(content []byte, ms, gs int) string {
	// The operator is the last '=' or ':' before the value (skipping quotes and spaces).
	op := gs
	for op > ms && !(content[op-1] == '=' || content[op-1] == ':') {
		op--
	}
	for op > ms && (content[op-1] == '=' || content[op-1] == ':' || content[op-1] == '>' || content[op-1] == '<') {
		op--
	}
	end := op
	for end > ms && strings.IndexByte(" \t\"'`]", content[end-1]) >= 0 {
		end--
	}
	start := ms
	for start > 0 && start > ms-64 && isKeyByte(content[start-1]) {
		start--
	}
	if end < start {
		end = start
	}
	return normalizeKey(content[start:end])
}

func isKeyByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '-' || c == '.'
}

// normalizeKey makes dbPassword, DB-PASSWORD, db.password and DBPassword all db_password.
func normalizeKey(k []byte) string {
	var b strings.Builder
	for i, c := range k {
		switch {
		case c == '-' || c == '.' || c == ' ' || c == '$' || c == '@':
			c = '_'
		case 'A' <= c && c <= 'Z':
			// a word starts at an upper-case letter after a lower-case one or a digit,
			// or before a lower-case one after an upper-case run (DBPassword)
			if i > 0 {
				p := k[i-1]
				next := byte(0)
				if i+1 < len(k) {
					next = k[i+1]
				}
				if 'a' <= p && p <= 'z' || '0' <= p && p <= '9' || ('A' <= p && p <= 'Z' && 'a' <= next && next <= 'z') {
					b.WriteByte('_')
				}
			}
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return strings.Trim(b.String(), "_")
}

// decodes reports whether the secret, decoded as the rule says, matches its decoded regex.
func (r *rule) decodes(secret []byte) bool {
	clean := make([]byte, 0, len(secret))
	for i := 0; i < len(secret); i++ {
		c := secret[i]
		if c == '\\' && i+1 < len(secret) && secret[i+1] == 'n' {
			i++
			continue
		}
		if c == '\n' || c == '\r' || c == ' ' || c == '\t' {
			continue
		}
		clean = append(clean, c)
	}
	clean = bytes.TrimRight(clean, "=")
	if len(clean)%4 == 1 {
		clean = clean[:len(clean)-1] // a capture cut mid-quantum: drop the stray character
	}
	out, err := base64.RawStdEncoding.DecodeString(string(clean))
	if err != nil {
		out, err = base64.RawURLEncoding.DecodeString(string(clean))
		if err != nil {
			return false
		}
	}
	return r.decoded.Match(out)
}

func alnumCount(b []byte) int {
	n := 0
	for _, c := range b {
		if isAlnum(c) || c >= 0x80 {
			n++
		}
	}
	return n
}

// isTestVerdict reports whether the key at ms is the PASS of test output ("--- PASS:",
// "PASS:" in upper case), not a password's name.
func isTestVerdict(content []byte, ms int, key string) bool {
	return key == "pass" && ms+4 <= len(content) && string(content[ms:ms+4]) == "PASS"
}

// hexNumberRE is a number literal in code.
var hexNumberRE = regexp.MustCompile(`^(?:0[xXbBoO][0-9A-Fa-f_]+|[0-9][0-9_]*(?:\.[0-9]+)?[uUlLfF]?)$`)

// looksLikeExpression reports whether a bare value in code reads as an expression rather
// than text inside a string literal (a config embedded in a raw string keeps its bare
// values): it opens with an operator, is a number, or holds escape sequences.
func looksLikeExpression(v []byte) bool {
	return !isAlnum(v[0]) || hexNumberRE.Match(v) || bytes.Contains(v, []byte(`\n`)) || bytes.Contains(v, []byte(`\t`)) ||
		bytes.ContainsAny(v, "*+|&^!?<>~")
}

// identLike reports whether a bare value is more likely a variable than a token: a valid
// identifier that is made of words (wordyName) or repeats its letters more than random
// text of its length would (hexPKCS8TestPKCS1Key).
func identLike(v []byte) bool {
	for i, c := range v {
		if !(isAlnum(c) || c == '_' || c == '$') || i == 0 && '0' <= c && c <= '9' {
			return false
		}
	}
	return wordyName(v) || shannon(v) < 0.8*math.Log2(float64(len(v)))
}

// wordyName reports whether v is an identifier made of a few words (testP256PrivateKey,
// DefaultTimeout): at most one word, case change or digit run per three characters. A
// random token of the same alphabet changes case every second character or so.
func wordyName(v []byte) bool {
	if len(v) == 0 || !(v[0] == '_' || 'a' <= v[0] && v[0] <= 'z' || 'A' <= v[0] && v[0] <= 'Z') {
		return false
	}
	if !bytes.ContainsAny(v, "abcdefghijklmnopqrstuvwxyz_") {
		return false // ALLCAPS2AND7DIGITS is base32, not a name: names are camel or snake case
	}
	segments := 1
	for i := 1; i < len(v); i++ {
		c, p := v[i], v[i-1]
		if !(isAlnum(c) || c == '_') {
			return false
		}
		switch {
		case c == '_':
		case p == '_':
			segments++
		case 'A' <= c && c <= 'Z' && !('A' <= p && p <= 'Z'):
			segments++
		case '0' <= c && c <= '9' && !('0' <= p && p <= '9'):
			segments++
		case 'a' <= c && c <= 'z' && '0' <= p && p <= '9':
			segments++
		}
	}
	return segments*3 <= len(v)
}
