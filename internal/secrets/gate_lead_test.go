package secrets

import (
	"testing"
)

// ledByKeywords says a regex starts with one of the keywords only when
// every string its opening can match does.
func TestLedByKeywords(t *testing.T) {
	for _, c := range []struct {
		expr     string
		keywords []string
		want     bool
	}{
		{`(?i)(?:key|nonce)[\w.-]{0,12}\s*=\s*(\w{20,})`, []string{"key", "nonce"}, true},
		{`(?i)(?:key|nonce)\s*=`, []string{"key"}, false}, // nonce= starts no keyword
		{`(?i)(?:password|passwd|pwd|pass|pw)\s*=`, []string{"pass", "pwd", "pw"}, true},
		{`(?i)api[_-]?key\s*=`, []string{"api_key", "apikey"}, false}, // api-key
		{`(?i)api[_-]?key\s*=`, []string{"api_key", "api-key", "apikey"}, true},
		{`(?i)\b(?:key|token)\s*=`, []string{"key", "token"}, true}, // \b holds at a hit wherever it held
		{`(?i)\B(?:key|token)\s*=`, []string{"key", "token"}, false},
		{`(?i)(?:my)?key\s*=`, []string{"key"}, false}, // mykey starts before the hit
		{`\w+key\s*=`, []string{"key"}, false},
		{`(?i)clé\s*=`, []string{"clé"}, false}, // beyond ASCII: not expanded
		{`(?i)KEY`, []string{"key"}, true},
		{`(?i)(?:key|)x`, []string{"key"}, false},
		{`(`, []string{"key"}, false},
		{`key`, nil, false},
	} {
		if got := ledByKeywords(c.expr, c.keywords); got != c.want {
			t.Errorf("ledByKeywords(%q, %q) = %t, want %t", c.expr, c.keywords, got, c.want)
		}
	}
}

// FuzzGateOpen: wherever a default rule's regex matches in one of its
// windows of any content, the rule's gate (anchored at the keyword hits,
// or not) lets the window through.
func FuzzGateOpen(f *testing.F) {
	for _, s := range []string{
		"api_key = \"0123456789abcdefghijKLMN\"",
		"x KEY=abcdefghij0123456789klmn;\nkey: 'AAAAAAAAAAAAAAAAAAAAAAAA1'",
		"password := \"hunter22\" // pass=x pw=yyyyy",
		"client-key: aB3dE5gH7jK9mN1pQ3sT5vW7",
		"\u212Aey = abcdefghij0123456789klmnop key",
		"token token token = tokentokentokentoken1",
	} {
		f.Add([]byte(s))
	}
	s := defaultScanner(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		set := s.windows(data)
		defer s.putWindows(set)
		for ri, ws := range set.wins {
			r := &s.rules[ri]
			if r.end != nil {
				continue
			}
			for _, w := range ws {
				if r.re.Match(data[w.start:w.end]) && !s.gateOpen(set, ri, w, data) {
					t.Fatalf("rule %s: the gate shuts a window its regex matches: %q", r.id, data[w.start:w.end])
				}
			}
		}
	})
}
