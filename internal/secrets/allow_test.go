package secrets

import (
	"slices"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/secrets/secrettest"
	"github.com/repoprep/repoprep/rules"
)

// TestIsPlaceholder: references, slots and masks are stand-ins for a secret; random
// values, whatever they hold, are not.
func TestIsPlaceholder(t *testing.T) {
	random := secrettest.Rand(b64Alphabet[:62], 24)
	for v, want := range map[string]bool{
		"${DB_PASSWORD}": true, `a\(refreshCount)`: true, "YourPwdShouldBeLongAndSecure!": true, "changeit": true, "changethis": true, ".$connection[": true, "$this->password": true,
		`cache.__memoized:{$driver}`: true, "Pa$$w0rd-x9Kq": false, "Kq7$xw[9zPr2": false, "yourStrong(!)Password": true, "your1234": false, "$DB_PASSWORD": true, "%DB_PASSWORD%": true,
		"$$excludedDependencyInstanceCount": true, "$${DEPLOY_TOKEN}": true,
		"{env.CADDY_VARS_TEST_SECRET}": true, "{http.request.header.X-Api-Key}": true, "{DbPassword}": true, "%7Benv.CADDY_REWRITE_TEST_SECRET%7D": true,
		"%(db_pass)s": true, "<PASSWORD>": true, "<your-token>": true, "{{ vault_db_password }}": true,
		"xxxxxxxxxxxxxxxx": true, "changeme": true, "$RANDOM***$RANDOM": true, "[FILTERED]": true,
		"###ORACLE_PWD###": true, `{Constants.Git.SectionName}.{Constants.Proxy}`: true, "{.credential.token_expiry}": true,
		"012345abcdef": true, "abcdef123456": true, "Admin12345": false, "test123456": false,
		random: false, "{" + random: false, "$" + random + "!": false, "Zx$ABC1" + random: false,
	} {
		if got := isPlaceholder([]byte(v)); got != want {
			t.Errorf("isPlaceholder(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestNamesSetting: a value made of its key's words and the words credentials are named
// with names the setting; one word of its own makes it a value.
func TestNamesSetting(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		want       bool
	}{
		{"password", "password", true}, {"secret", "SECRET_KEY", true}, {"token", "api_token", true},
		{"db_pass", "DB_PASS", true}, {"passphrase", "yourPassphrase", true},
		{"auth_secret", "base64-something-random", true}, {"api_key", "base64EncodedKey", true},
		{"root_password", "root", false}, {"admin_pass", "admin", false}, {"password", "password1", false},
		{"postgres_password", "postgres", false}, {"token", "access-token-123", true},
		{"secret", "tiger", false}, {"api_key", "key-" + secrettest.Rand("abcdef0123456789", 32), false},
	} {
		if got := namesSetting(tc.key, []byte(tc.value)); got != tc.want {
			t.Errorf("namesSetting(%q, %q) = %v, want %v", tc.key, tc.value, got, tc.want)
		}
	}
}

// TestStandInsCovered: secrettest.Rand must never draw a placeholder mark or a default
// rule's stopword, or a planted credential is dismissed by chance and a recall test fails
// now and then. Every mark and stopword that random text could hold must contain one of
// the texts Rand refuses.
func TestStandInsCovered(t *testing.T) {
	words := map[string]string{}
	for _, m := range placeholderMarks {
		words[string(m)] = "placeholder mark"
	}
	rs, err := rules.DefaultSecretRules()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		for _, w := range r.Allow.StopWords {
			words[w] = r.ID + "'s stopword"
		}
	}
	for w, what := range words {
		lower := strings.ToLower(w)
		covered := slices.ContainsFunc(secrettest.StandIns, func(s string) bool { return strings.Contains(lower, s) })
		if secrettest.Drawable(w) && !covered {
			t.Errorf("%s %q can be drawn by secrettest.Rand: add it to StandIns", what, w)
		}
	}
	for range 200 {
		v := strings.ToLower(secrettest.Rand("fakeFAKEpsPSxX", 12))
		if i := slices.IndexFunc(secrettest.StandIns, func(s string) bool { return strings.Contains(v, s) }); i >= 0 {
			t.Fatalf("Rand drew %q, which holds %q", v, secrettest.StandIns[i])
		}
		if d := secrettest.Rand(b64Alphabet[:26]+"234567", 16); shannon([]byte(d)) < 3.2 {
			t.Fatalf("Rand drew %q, entropy %.2f, under its floor 3.2", d, shannon([]byte(d)))
		}
	}
}
