package secrets

import (
	"testing"

	"github.com/repoprep/repoprep/internal/secrets/secrettest"
)

// TestIsPlaceholder: references, slots and masks are stand-ins for a secret; random
// values, whatever they hold, are not.
func TestIsPlaceholder(t *testing.T) {
	random := secrettest.Rand(b64Alphabet[:62], 24)
	for v, want := range map[string]bool{
		"${DB_PASSWORD}": true, "$DB_PASSWORD": true, "%DB_PASSWORD%": true,
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
