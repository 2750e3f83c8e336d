package rules

import (
	_ "embed"
	"strings"
	"sync"
)

// notSecretsTXT is the embedded stop list of the cross-file secret pass; see
// defaults/not_secrets.txt.
//
//go:embed defaults/not_secrets.txt
var notSecretsTXT string

// notSecrets is the stop list, lower-cased, read once.
var notSecrets = sync.OnceValue(func() map[string]bool {
	words := map[string]bool{}
	for line := range strings.Lines(notSecretsTXT) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		words[strings.ToLower(line)] = true
	}
	return words
})

// NotSecret reports whether value is a word that is never a secret
// (defaults/not_secrets.txt: password, changeme, localhost, true...),
// whatever its ASCII case, so the cross-file pass never masks it all over a
// tree because one rule caught it as a value. Safe for concurrent use.
func NotSecret(value []byte) bool {
	if len(value) > maxNotSecretBytes {
		return false
	}
	var lower [maxNotSecretBytes]byte
	for i, c := range value {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	return notSecrets()[string(lower[:len(value)])]
}

// maxNotSecretBytes bounds the words of the stop list (checked by its test),
// so NotSecret lower-cases on the stack.
const maxNotSecretBytes = 32

// defaultWordsTXT lists the words default and test passwords are made of; see
// defaults/default_words.txt.
//
//go:embed defaults/default_words.txt
var defaultWordsTXT string

// defaultWords is that list, read once.
var defaultWords = sync.OnceValue(func() map[string]bool {
	words := map[string]bool{}
	for line := range strings.Lines(defaultWordsTXT) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		words[line] = true
	}
	return words
})

// DefaultWord reports whether w, lower-case ASCII, is a word default and test
// passwords are made of (defaults/default_words.txt: admin, root, test, pass,
// guest...). Safe for concurrent use.
func DefaultWord(w string) bool { return defaultWords()[w] }

// MaxDefaultWord bounds the words of defaults/default_words.txt (checked by its
// test), so a caller breaking a value into words tries no longer pieces.
const MaxDefaultWord = 16

// publishedTXT lists the credentials standards publish as examples; see
// defaults/published_examples.txt.
//
//go:embed defaults/published_examples.txt
var publishedTXT string

// published is that list, lower-cased, read once.
var published = sync.OnceValue(func() []string {
	var out []string
	for line := range strings.Lines(publishedTXT) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.ToLower(line))
	}
	return out
})

// PublishedExample reports whether lower, a lower-cased secret, holds a
// credential a standard publishes as its example (RFC 6749's
// 2YotnFZFEjr1zCsicMWpAA, RFC 5849's hh5s93j4hdidpola...): anybody can
// read it, so it protects nothing. Safe for concurrent use.
func PublishedExample(lower []byte) bool {
	text := string(lower)
	for _, v := range published() {
		if strings.Contains(text, v) {
			return true
		}
	}
	return false
}
