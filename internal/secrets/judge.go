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
	".eex": true, ".heex": true, ".leex": true, // Elixir's templates, of code as of pages: .ex.eex, .exs.eex
	".css": true, ".scss": true, ".sass": true, ".less": true, // input[type="password"]:hover is a selector
	// schemas: password = 3 is a field's number, password: String! a type
	".proto": true, ".thrift": true, ".graphql": true, ".gql": true, ".tl": true,
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
	// $$name is a $VAR escaped once more (Makefiles, vite's $$excludedDependencyInstanceCount).
	referenceRE = regexp.MustCompile(`^(?:(?:op|vault|awssm|gcpsm|azkv|ssm|secretsmanager|keyvault|sops|k8s|env|file)://|\$+\{?[A-Za-z_][A-Za-z0-9_]*\}?$|%[A-Za-z_][A-Za-z0-9_]*%$|@[A-Za-z_][A-Za-z0-9_]*@$|(?i:env|process\.env|os\.environ|os\.getenv|getenv|system\.getenv|environment\.getenvironmentvariable|secrets|vault|ref\+|!vault|arn:aws:secretsmanager|projects/[^/]+/secrets/)[.:\[(/])`)
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
	// camelOrSnakeRE: a name made of words, newPassword, password_confirmation or
	// integration-test (kebab case: a project's, a host's or a test's name).
	camelOrSnakeRE = regexp.MustCompile(`^(?:[a-z]{2,}(?:[A-Z][a-z]{2,})+|[a-z]{2,}(?:_[a-z0-9]+)+|[a-z]{2,}(?:-[a-z]+)+(?:-[0-9]+)?)$`)
	// commentRE: the line so far opens a comment, where code reads like prose.
	// A ' opens a comment (Visual Basic) only before a space: 'password' => is PHP's key.
	commentRE = regexp.MustCompile(`^\s*(?://|#|\*|/\*|--|;|<!--|%|'\s)`)
)

// judgeAssignment decides whether the value content[gs:ge], assigned in a match that
// starts at ms, is a secret: a literal (quoted, or bare where the format makes bare words
// values) that is not a reference, a password hash, a path or a label, under a key the
// rule wants. f is the content's format.
func (r *rule) judgeAssignment(content []byte, ms, gs, ge int, f format) bool {
	if f != formatCode && inAction(content, ms) {
		f = formatCode // a template's action is code: Helm's {{- $password := index .Values.x $user }}
	}
	key, call := assignedKey(content, ms, gs)
	if call && !(setterRE.MatchString(key) && soleArgument(content, ge)) {
		return false // only a setter's one argument is assigned: setPassword("..."), not check(password, "...")
	}
	if r.key != nil && !r.key.MatchString(key) {
		return false
	}
	for _, re := range r.allowKeys {
		if re.MatchString(key) {
			return false
		}
	}
	if jwkMembers[key] && !inJWK(content, ms) {
		return false // "d", "p", "k" name a private key's parts only in a JSON Web Key
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
		// "spring.datasource.password=secret" in code is text: the key=value is inside a
		// string literal that the value is still part of, so a bare word is a value.
		inString := f == formatCode && content[gs-1] == '=' && isKeyByte(content[gs-2]) && isAlnum(value[0]) &&
			inLiteral(content[lineStart:ms]) && !bytes.ContainsAny(content[ms:gs], "\"`")
		if f == formatCode && !inComment && !inString && (looksLikeExpression(value) || identLike(value) ||
			ge < len(content) && content[ge] == '.' && ge+1 < len(content) && isAlnum(content[ge+1]) ||
			ge < len(content) && content[ge] == '>' && value[len(value)-1] == '-') {
			return false // f.pass = &emptyPass; Pw = 0x48; PrivateKey: testRSA2048PrivateKey; x.y.Public(); p->pw = c->pw
		}
		if f != formatConfig && f != formatUnknown && !inString && (identRE.Match(value) || digitName(value) || kebabWordsRE.Match(value)) &&
			!(f == formatProse && envAssignment(content, ms, gs)) {
			return false // a name or words in code, prose or a comment: password = passphrase; "password: upper-case, lower-case"
		}
		if colonChained(content, ms) {
			return false // a name of names: force:user:password:generate
		}
		if value[0] == '$' || value[0] == '!' || value[0] == '=' {
			return false // $var, $request->input(...), a YAML tag (!vault, !Ref)
		}
		if ge < len(content) && (content[ge] == '(' || content[ge] == '[') {
			return false // a call or an index: password = getpass(...)
		}
	}
	if f == formatCode && quoted && identRE.Match(value) && bytes.ContainsAny(value, ".:>") {
		return false // "user.password", "App::Password": names
	}
	if (f == formatCode || f == formatProse) && quoted && camelOrSnakeRE.Match(value) {
		return false // "encodeUserPassword", "password_confirmation", a doc's identity_token="test_schema_2": names
	}
	if referenceRE.Match(value) || hashRE.Match(value) || encryptedRE.Match(value) {
		return false
	}
	if namesSetting(key, value) || isPlainURL(value) {
		return false // secret = "SECRET_KEY", password: "password"; a nonce endpoint's URL
	}
	if (pathRE.Match(value) || relPathRE.Match(value) && bytes.Count(value, []byte("/")) >= 2) && shannon(value) < 4.6 {
		return false // a file path; random base64 that happens to hold slashes scores higher
	}
	return !isLabel(value)
}

// kebabWordsRE is words joined by hyphens, as prose writes them: upper-case, read-only.
var kebabWordsRE = regexp.MustCompile(`^[a-z]{2,}(?:-[a-z]{2,})+$`)

// colonChained reports whether the key at ms is the last link of a chain of names joined
// by colons without spaces (a command's path, a permission): user:password:generate.
func colonChained(content []byte, ms int) bool {
	start := ms
	for start > 0 && isKeyByte(content[start-1]) {
		start--
	}
	return start > 1 && content[start-1] == ':' && isAlnum(content[start-2])
}

// setterRE is the name of a call whose argument is assigned to what it names.
var setterRE = regexp.MustCompile(`(^|_)(set|with|put)_`)

// soleArgument reports whether the value that ends at ge (a quoted one) closes its call:
// setPassword("...") assigns it, keyring.set_password("service", user, pw) does not.
func soleArgument(content []byte, ge int) bool {
	i := ge
	if i < len(content) && (content[i] == '"' || content[i] == '\'' || content[i] == '`') {
		i++
	}
	for i < len(content) && (content[i] == ' ' || content[i] == '\t') {
		i++
	}
	return i < len(content) && content[i] == ')'
}

// inAction reports whether ms lies inside a template action ({{ ... }}: Go
// templates, Helm, Jinja, Handlebars) opened on its line.
func inAction(content []byte, ms int) bool {
	line := content[bytes.LastIndexByte(content[:ms], '\n')+1 : ms]
	return bytes.LastIndex(line, []byte("{{")) > bytes.LastIndex(line, []byte("}}"))
}

// inLiteral reports whether a line of code that reads prefix so far is inside a
// double-quoted or backquoted string: an odd number of unescaped quotes of one kind.
func inLiteral(prefix []byte) bool {
	var dq, bq int
	for i, c := range prefix {
		if i > 0 && prefix[i-1] == '\\' {
			continue
		}
		switch c {
		case '"':
			dq++
		case '`':
			bq++
		}
	}
	return dq%2 == 1 || bq%2 == 1
}

// envNameRE is an environment variable's name as shells and .env files write it.
var envNameRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// envAssignment reports whether the assignment whose value starts at gs is a shell
// one, NAME=value with no space around the =: in prose that is a command or a .env
// file quoted in the text (SUPERVISOR_PASSWORD=Welcome1), where a bare word is a value.
func envAssignment(content []byte, ms, gs int) bool {
	if gs < 2 || content[gs-1] != '=' {
		return false
	}
	start := gs - 1
	for start > 0 && start > ms-64 && isKeyByte(content[start-1]) {
		start--
	}
	return envNameRE.Match(content[start : gs-1])
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
// start, through to the operator before the value. A type annotation between them
// (password: String = "...") is not part of the name. call says the operator is a
// call's parenthesis: setPassword("..."), .withToken("...").
func assignedKey(content []byte, ms, gs int) (key string, call bool) {
	// The operator is the last '=', ':' or '(' before the value (skipping quotes and spaces).
	op := gs
	for op > ms && !(content[op-1] == '=' || content[op-1] == ':' || content[op-1] == '(') {
		op--
	}
	if op > ms && content[op-1] == '(' {
		call = true
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
	for start < end && !isKeyByte(content[start]) {
		start++ // a match that opens with a boundary or a quote: ,"d": "..."
	}
	if end < start {
		end = start
	}
	if i := bytes.IndexByte(content[start:end], ':'); i > 0 {
		end = start + i // password: String = "...": the name, not its type
		for end > start && strings.IndexByte(" \t\"'`]", content[end-1]) >= 0 {
			end--
		}
	}
	return normalizeKey(content[start:end]), call
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
	// A decoded credential is judged as a secret is: Aladdin:open sesame (RFC 7617's
	// example) is a stand-in in base64 too. (Not a decoded document, a JWK or a JWT,
	// whose "iss": "https://example.com" says nothing of its key.)
	if r.placeholders && !bytes.HasPrefix(bytes.TrimSpace(out), []byte("{")) && isPlaceholder(out) {
		return false
	}
	if !r.decoded.Match(out) {
		return false
	}
	// A user:password whose password anybody could guess (admin:password, foo:bar in a
	// web framework's tests) is a default, as it is in clear.
	cred := bytes.TrimRight(out, "\r\n")
	if i := bytes.IndexByte(cred, ':'); r.guessable && i >= 0 && commonValue(cred, i+1, len(cred), "") {
		return false
	}
	return true
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
	return wordyName(v) || digitName(v) || shannon(v) < 0.8*math.Log2(float64(len(v)))
}

// digitNameRE is a name with numbers inside: a lower-case word (and camel-case words),
// a number, then Capitalised words or acronyms (b64Pwd, user2Name, sha256Sum,
// oauth2Token, x509CertPEM); or a lower-case word, then acronyms with their number,
// each followed by words (hexPKCS8TestPKCS1Key). Random text of the same alphabet
// rarely keeps either shape (PmLkum4eaevg, Xk29fLq).
var digitNameRE = regexp.MustCompile(`^(?:[a-z]+(?:[A-Z][a-z]{2,})*[0-9]{1,4}(?:[A-Z][a-z]{2,}|[A-Z]{2,5})+[0-9]{0,4}|[a-z]{2,}(?:[A-Z]{2,5}[0-9]{1,2}(?:[A-Z][a-z]{2,})+)+)$`)

// digitName reports whether v is an identifier with a number inside that reads as words.
func digitName(v []byte) bool { return len(v) <= 40 && digitNameRE.Match(v) }

// jwkMembers are the names of a JSON Web Key's private members (RFC 7518: the RSA
// private exponent and primes, the EC and OKP private key, a symmetric key's value).
var jwkMembers = map[string]bool{"d": true, "p": true, "q": true, "dp": true, "dq": true, "qi": true, "k": true}

// ktyRE is a JWK's key type member, in JSON or a JavaScript object literal.
var ktyRE = regexp.MustCompile(`(?:^|[^\w$.])["']?kty["']?[ \t]*:`)

// maxJWKBytes bounds how far inJWK looks for the object around a member.
const maxJWKBytes = 16 << 10

// inJWK reports whether the member at ms lies in an object (JSON, or a JavaScript
// literal) that has a kty member: the object's braces are counted out from ms, at most
// maxJWKBytes either way.
func inJWK(content []byte, ms int) bool {
	open, depth := -1, 0
	for i := ms - 1; i >= 0 && i >= ms-maxJWKBytes; i-- {
		if content[i] == '}' {
			depth++
		} else if content[i] == '{' {
			if depth == 0 {
				open = i
				break
			}
			depth--
		}
	}
	if open < 0 {
		return false
	}
	end := min(len(content), ms+maxJWKBytes)
	depth = 0
	for i := open + 1; i < end; i++ {
		if content[i] == '{' {
			depth++
		} else if content[i] == '}' {
			if depth == 0 {
				end = i
				break
			}
			depth--
		}
	}
	return ktyRE.Match(content[open:end])
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
