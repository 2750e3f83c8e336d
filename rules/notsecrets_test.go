package rules

import (
	"strings"
	"testing"
)

// The stop list is one lower-case word a line, each short enough for
// NotSecret, and NotSecret ignores ASCII case and nothing else.
func TestNotSecret(t *testing.T) {
	seen := map[string]int{}
	for n, line := range strings.Split(notSecretsTXT, "\n") {
		w := strings.TrimSpace(line)
		if w == "" || strings.HasPrefix(w, "#") {
			continue
		}
		switch {
		case strings.ContainsAny(w, " \t"):
			t.Errorf("not_secrets.txt:%d: %q is more than one word", n+1, w)
		case len(w) > maxNotSecretBytes:
			t.Errorf("not_secrets.txt:%d: %q is over %d bytes", n+1, w, maxNotSecretBytes)
		case w != strings.ToLower(w):
			t.Errorf("not_secrets.txt:%d: %q is not lower case", n+1, w)
		case seen[w] > 0:
			t.Errorf("not_secrets.txt:%d: %q repeats line %d", n+1, w, seen[w])
		}
		seen[w] = n + 1
	}
	for _, w := range []string{"password", "Password", "CHANGEME", "localhost", "True", "null", "undefined", "placeholder", "your_password"} {
		if !NotSecret([]byte(w)) {
			t.Errorf("NotSecret(%q) = false, want true", w)
		}
	}
	for _, w := range []string{"", "welcome1", "password1", "changeme!", " password", "Hq7zKp2mXv9L", strings.Repeat("password", 8)} {
		if NotSecret([]byte(w)) {
			t.Errorf("NotSecret(%q) = true, want false", w)
		}
	}
}

// The default words are one lower-case ASCII word a line, each at most
// MaxDefaultWord bytes, none repeated.
func TestDefaultWords(t *testing.T) {
	seen := map[string]int{}
	for n, line := range strings.Split(defaultWordsTXT, "\n") {
		w := strings.TrimSpace(line)
		if w == "" || strings.HasPrefix(w, "#") {
			continue
		}
		for _, c := range []byte(w) {
			if c < 'a' || c > 'z' {
				t.Errorf("default_words.txt:%d: %q is not one lower-case ASCII word", n+1, w)
				break
			}
		}
		if len(w) > MaxDefaultWord {
			t.Errorf("default_words.txt:%d: %q is over %d bytes", n+1, w, MaxDefaultWord)
		}
		if seen[w] > 0 {
			t.Errorf("default_words.txt:%d: %q repeats line %d", n+1, w, seen[w])
		}
		seen[w] = n + 1
	}
	for _, w := range []string{"admin", "root", "guest", "pass"} {
		if !DefaultWord(w) {
			t.Errorf("DefaultWord(%q) = false", w)
		}
	}
	for _, w := range []string{"", "Admin", "admin1", "hq7zkp"} {
		if DefaultWord(w) {
			t.Errorf("DefaultWord(%q) = true", w)
		}
	}
}

// TestPublishedExamples: the list is lower-case values of 10 bytes or more
// (a short one would hold too many real secrets), and a secret that holds
// one, in any case, is a published example; one that does not is not.
func TestPublishedExamples(t *testing.T) {
	n := 0
	for line := range strings.Lines(publishedTXT) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		n++
		if line != strings.ToLower(line) || len(line) < 10 || strings.ContainsAny(line, " \t") {
			t.Errorf("published_examples.txt: %q is not a lower-case value of 10 bytes or more", line)
		}
	}
	if n < 10 {
		t.Fatalf("published_examples.txt holds %d values", n)
	}
	for v, want := range map[string]bool{
		"2yotnfzfejr1zcsicmwpaa":                  true,
		`"access_token":"2yotnfzfejr1zcsicmwpaa"`: true,
		"oauth_token=hh5s93j4hdidpola":            true,
		"2yotnfzfejr1zcsicmwpab":                  false,
		"s6bhdrkqt":                               false,
	} {
		if got := PublishedExample([]byte(v)); got != want {
			t.Errorf("PublishedExample(%q) = %v, want %v", v, got, want)
		}
	}
}
