package secrets

import (
	"regexp"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
)

// A part that matches a bounded run of one alphabet between bytes outside
// it gates on a whole run of that length: the windows of long numbers and
// words the plain run condition let through are rejected, and every text
// the regex matches still passes.
func TestBoundedRun(t *testing.T) {
	// A 20-character key made at run time: no credential-shaped literal
	// is committed.
	key := "key=" + testkit.RandomString("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 20)
	const cnMobile = `(?:^|[^0-9A-Za-z_.]|(?:^|[^0-9A-Za-z_])\.)(1(?:3[0-9]|4[5-9]|5[0-35-9]|6[2567]|7[0-8]|8[0-9]|9[0-35-9])[0-9]{8})\b`
	tests := []struct {
		name    string
		expr    string
		bounded bool     // a bounded run is derived
		pass    []string // the gate lets these through
		reject  []string // and not these (the plain run let them through)
	}{
		{"cn-mobile", cnMobile, true,
			[]string{"tel 13912345678.", "x13912345678y", "13912345678", "a.13912345678", "(13912345678)"},
			[]string{"18446744073709551615", "0x139123456789", "v1391234567890 ok", "1391234567"}},
		{"word-boundaries", `\b([0-9a-f]{32})\b`, true,
			[]string{"id=0123456789abcdef0123456789abcdef;"},
			[]string{"0123456789abcdef0123456789abcdef0"}},
		{"fixed-prefix", `key=([A-Z0-9]{20})(?:[^A-Z0-9]|$)`, true,
			[]string{key},
			[]string{key + "G"}},
		{"open-left", `[a-z]*([0-9]{4})\b`, false, []string{"ab1234 ", "x123456 "}, nil},
		{"open-right", `\b([0-9]{4})[0-9]*`, false, []string{" 123456"}, nil},
		{"not-word-boundary", `\b([0-9]{4})\B`, false, []string{" 12345"}, nil},
		{"unbounded", `\b([0-9]{4,})\b`, false, []string{" 123456789 "}, nil},
		{"neighbour-in-alphabet", `a([a-z]{4})\b`, false, []string{"abcdefg "}, nil},
		{"multiline-edges", `(?m)^([0-9]{4})$`, true, []string{"x\n1234\ny"}, []string{"12345"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newGate(tc.expr)
			bounded := false
			for _, r := range g.runs {
				bounded = bounded || r.maxLen > 0
			}
			if bounded != tc.bounded {
				t.Errorf("bounded run derived: %v, want %v", bounded, tc.bounded)
			}
			for _, s := range tc.pass {
				if !g.mayMatch([]byte(s)) {
					t.Errorf("gate rejects %q", s)
				}
			}
			re := regexp.MustCompile(tc.expr)
			for _, s := range tc.reject {
				if re.MatchString(s) {
					t.Fatalf("bad case: %q matches", s)
				}
				if g.mayMatch([]byte(s)) {
					t.Errorf("gate lets %q through", s)
				}
			}
		})
	}
}

// FuzzGateBounded: a gate with bounded runs never rejects a text its regex
// matches, whatever surrounds the run (seeds in the shapes the bounded
// runs are derived from; FuzzGate covers any regex).
func FuzzGateBounded(f *testing.F) {
	for _, seed := range []struct{ expr, text string }{
		{`(?:^|[^0-9A-Za-z_.]|(?:^|[^0-9A-Za-z_])\.)(1(?:3[0-9]|4[5-9])[0-9]{8})\b`, "x.13912345678 ."},
		{`\b([0-9a-f]{32})\b`, "0123456789abcdef0123456789abcdef"},
		{`(?i)(?:^|\s)password\s+(\S{5,20})(?:\s|$)`, "machine x PASSWORD hunter22"},
		{`(?m)^([A-Z]{4,6})$`, "ab\nABCD\n"},
		{`(?:x|y?)([0-9]{4})(?:z|\b)`, "y1234z"},
		{`(?:é|\.)([a-z]{5})\b`, "é\xffabcde "},
		{`(?i)k([k]{4})\b`, "\u212akkkk"},
		{`(?:^|[^a-z])([a-z]{4,8}?)(?:[^a-z]|$)`, "-abcd-"},
	} {
		f.Add(seed.expr, []byte(seed.text))
	}
	f.Fuzz(func(t *testing.T, expr string, text []byte) {
		re, err := regexp.Compile(expr)
		if err != nil || len(expr) > 200 || len(text) > 4096 {
			return
		}
		if g := newGate(expr); re.Match(text) && !g.mayMatch(text) {
			t.Fatalf("gate of %q rejects %q, which the regex matches", expr, text)
		}
	})
}
