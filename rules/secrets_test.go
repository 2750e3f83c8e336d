package rules

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestDefaultSecretRules(t *testing.T) {
	rs, err := DefaultSecretRules()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rs {
		if seen[r.ID] {
			t.Errorf("rule %s defined twice", r.ID)
		}
		seen[r.ID] = true
		if r.Description == "" || len(r.Examples) == 0 || len(r.Counterexamples) == 0 {
			t.Errorf("rule %s needs a description, examples and counterexamples", r.ID)
		}
		for _, kw := range r.Keywords {
			if kw != strings.ToLower(kw) {
				t.Errorf("rule %s: keyword %q not lower-cased", r.ID, kw)
			}
		}
	}
	for _, id := range []string{"aws-access-key-id", "aws-secret-access-key", "github-token", "gitlab-token",
		"slack-token", "slack-webhook", "stripe-key", "google-api-key", "private-key", "jwt",
		"generic-api-key", "password-assignment", "connection-string", "internal-ipv4", "cn-mobile", "e164-phone",
		"nkey-seed", "jwk-private", "jwk-private-base64", "akamai-edgegrid-token", "wechat-app-secret",
		"tencent-secret-key", "docker-config-auth", "sql-password", "cli-password", "uuid-credential"} {
		if !seen[id] {
			t.Errorf("no default rule %s", id)
		}
	}
}

// TestNoLiteralCredentials is the pre-commit grep, applied to the embedded rules: examples
// must be templates, never a credential a scanner of this repository would flag.
func TestNoLiteralCredentials(t *testing.T) {
	for _, pat := range []string{
		`AKIA[0-9A-Z]{16}`,
		`ghp_[0-9A-Za-z]{36}`,
		`xox[bp]-`,
		`-----BEGIN[ A-Z]*PRIVATE KEY-----`,
		`S[ACNOPUX]A[A-Z2-7]{55}`,             // NATS NKEY seeds
		`akab-[a-z0-9]{16}-[a-z0-9]{16}`,      // Akamai EdgeGrid tokens
		`"(?:d|p|q|k)":\s*"[A-Za-z0-9_-]{40}`, // JWK private members
	} {
		for name, data := range map[string][]byte{"secrets.toml": defaultSecretsTOML, "providers.toml": defaultProvidersTOML} {
			if loc := regexp.MustCompile(pat).FindIndex(data); loc != nil {
				t.Errorf("defaults/%s holds %s at byte %d", name, pat, loc[0])
			}
		}
	}
}

func TestMergeSecretRules(t *testing.T) {
	base, got, byID := mergeOverDefaults(t, `
exclude_dirs = ["vendor"] # a key of the lead's: ignored here

[[secrets]]
id = "cn-mobile"
disabled = true

[[secrets]]
id = "jwt"
description = "JWT, stricter"
regex = '\b(eyJ[A-Za-z0-9_-]{20,}\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,})'
keywords = ["EYJ"]

[[secrets]]
id = "acme-token"
regex = 'acme_[a-z0-9]{32}'
keywords = ["acme_"]

[[secrets]]
id = "no-such-default"
disabled = true
`)
	if _, ok := byID["cn-mobile"]; ok {
		t.Error("disabled rule cn-mobile still there")
	}
	if j := byID["jwt"]; j.Description != "JWT, stricter" || j.Keywords[0] != "eyj" {
		t.Errorf("jwt not replaced: %+v", j)
	}
	if a, ok := byID["acme-token"]; !ok || a.Description != "acme-token" || got[len(got)-1].ID != "acme-token" {
		t.Errorf("acme-token not appended last with its id as description: %+v", a)
	}
	if len(got) != len(base) {
		t.Errorf("%d rules, want %d (one removed, one added)", len(got), len(base))
	}
	if base[len(base)-1].ID == "acme-token" {
		t.Error("merge changed its base")
	}
}

// mergeOverDefaults merges a user rules file (TOML) over the default rules and
// returns the defaults, the merged rules and the merged rules by id.
func mergeOverDefaults(t *testing.T, userTOML string) (base, got []SecretRule, byID map[string]SecretRule) {
	t.Helper()
	base, err := DefaultSecretRules()
	if err != nil {
		t.Fatal(err)
	}
	user, err := ParseSecretRules([]byte(userTOML), "extra.toml")
	if err != nil {
		t.Fatal(err)
	}
	got, err = MergeSecretRules(base, user, "extra.toml")
	if err != nil {
		t.Fatal(err)
	}
	byID = map[string]SecretRule{}
	for _, r := range got {
		byID[r.ID] = r
	}
	return base, got, byID
}

func TestMergeSecretRulesErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		toml string
		want []string // substrings of the error
	}{
		"bad regex":     {"[[secrets]]\nid = \"mine\"\nregex = 'a(b'\n", []string{"extra.toml", `"mine"`, `"a(b"`}},
		"no id":         {"[[secrets]]\nregex = 'abc'\n", []string{"extra.toml", "without an id", `"abc"`}},
		"empty regex":   {"[[secrets]]\nid = \"mine\"\n", []string{"extra.toml", `"mine"`, "regex is empty"}},
		"twice":         {"[[secrets]]\nid = \"x\"\nregex = 'a'\n[[secrets]]\nid = \"x\"\nregex = 'b'\n", []string{`"x"`, "twice"}},
		"bad group":     {"[[secrets]]\nid = \"g\"\nregex = 'a(b)'\nsecret_group = 2\n", []string{`"g"`, "secret_group 2", `"a(b)"`}},
		"bad allow":     {"[[secrets]]\nid = \"al\"\nregex = 'a'\nallow.regexes = ['[']\n", []string{`"al"`, `"["`}},
		"bad entropy":   {"[[secrets]]\nid = \"e\"\nregex = 'a'\nentropy = 9\n", []string{`"e"`, "entropy 9"}},
		"unknown key":   {"[[secrets]]\nid = \"k\"\nregexp = 'a'\n", []string{"extra.toml", "secrets.regexp"}},
		"toml syntax":   {"[[secrets]\nid = \"k\"\n", []string{"extra.toml"}},
		"empty keyword": {"[[secrets]]\nid = \"kw\"\nregex = 'a'\nkeywords = ['']\n", []string{`"kw"`, "empty keyword"}},
	} {
		t.Run(name, func(t *testing.T) {
			user, err := ParseSecretRules([]byte(tc.toml), "extra.toml")
			if err == nil {
				_, err = MergeSecretRules(nil, user, "extra.toml")
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// FuzzMergeSecretRules: any TOML at all gives rules or an error, never a panic, and merged
// rules always validate.
func FuzzMergeSecretRules(f *testing.F) {
	f.Add(defaultSecretsTOML[:2000]) // the header and the first rules; the whole file makes each instrumented run slow
	f.Add([]byte("[[secrets]]\nid = \"x\"\nregex = '(a)(b)'\nsecret_group = 2\nkeywords = ['A']\n"))
	f.Add([]byte("[[secrets]]\nid = \"jwt\"\ndisabled = true\n"))
	f.Add([]byte("secrets = 3"))
	f.Add([]byte("[secrets]\nid = 1"))
	base, err := DefaultSecretRules()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		user, err := ParseSecretRules(data, "fuzz.toml")
		if err != nil {
			return
		}
		merged, err := MergeSecretRules(base, user, "fuzz.toml")
		if err != nil {
			return
		}
		for _, r := range merged {
			if err := r.Validate(); err != nil {
				t.Fatalf("merged rule fails validation: %v", err)
			}
		}
	})
}

// TestExtendSecretRule: a table with a known id and no regex adds to the rule's
// allowlists (and may change its kind or severity) without restating it; anything else
// without a regex is an error that says to restate the rule.
func TestExtendSecretRule(t *testing.T) {
	base, _, byID := mergeOverDefaults(t, `
[[secrets]]
id = "internal-ipv4"
severity = "medium"
allow.regexes = ['^10\.0\.']
allow.paths = ['(^|/)docs/']

[[secrets]]
id = "generic-api-key"
allow.keys = ['^stripe_publishable']
`)
	var before SecretRule
	for _, r := range base {
		if r.ID == "internal-ipv4" {
			before = r
		}
	}
	ip := byID["internal-ipv4"]
	if ip.Regex != before.Regex || ip.Kind != KindPII || ip.Severity != SeverityMedium ||
		len(ip.Allow.Regexes) != len(before.Allow.Regexes)+1 || ip.Allow.Paths[len(ip.Allow.Paths)-1] != `(^|/)docs/` {
		t.Errorf("extended rule = %+v", ip)
	}
	if g := byID["generic-api-key"]; g.Allow.Keys[len(g.Allow.Keys)-1] != "^stripe_publishable" || len(g.Examples) == 0 {
		t.Errorf("generic-api-key lost its rule or did not get the key: %+v", g.Allow)
	}
	bad, _ := ParseSecretRules([]byte("[[secrets]]\nid = \"jwt\"\nkeywords = [\"x\"]\n"), "extra.toml")
	if _, err := MergeSecretRules(base, bad, "extra.toml"); err == nil || !strings.Contains(err.Error(), "restate") {
		t.Errorf("keywords without a regex: err = %v, want one saying to restate the rule", err)
	}
	unknown, _ := ParseSecretRules([]byte("[[secrets]]\nid = \"no-such\"\nallow.regexes = ['x']\n"), "extra.toml")
	if _, err := MergeSecretRules(base, unknown, "extra.toml"); err == nil || !strings.Contains(err.Error(), "regex is empty") {
		t.Errorf("allowlist for an unknown rule: err = %v", err)
	}
}

// TestEncodeSecretRules: the effective rules printed as TOML read back the same.
func TestEncodeSecretRules(t *testing.T) {
	rs, err := DefaultSecretRules()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := EncodeSecretRules(&b, rs); err != nil {
		t.Fatal(err)
	}
	back, err := ParseSecretRules([]byte(b.String()), "printed")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, rs) {
		t.Error("printed rules read back differently")
	}
}
