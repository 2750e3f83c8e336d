package secrets

import (
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/secrets/secrettest"
)

// TestMaskedSpans runs the default rules on the shapes a run over matomo,
// laravel and maybe (public PHP and Rails applications) got wrong, with
// random values: what is masked must be the whole value, no more and no
// less, and what is no secret must not be masked. `{` and `}` in a case
// mark the span that must be masked; a case without them must give no
// finding.
func TestMaskedSpans(t *testing.T) {
	s := defaultScanner(t)
	for _, c := range []string{
		// A password with an escaped quote: only its head was masked, and
		// the rest stayed in the staged tree.
		`$password = '{{{alnum:6}}\'{{alnum:3}}<|-_#*+~>{{digit:2}}}';`,
		`const password = "{{{alnum:5}}\"{{alnum:6}}{{digit:2}}}";`,
		`'password' => '{{{alnum:4}}\\/+>*^!{{digit:3}}}',`,
		// A shell default: the key is the default, not ":-" and the key.
		"      SECRET_KEY_BASE: ${SECRET_KEY_BASE:-{{{hex:64}}}}",
		// Not secrets.
		`<g lon0="6.13{{digit:9}}" lat0="46.8">`,
		`<parameter name="DbPassword" defaultValue="password = &quot;{DbPassword}&quot;" />`,
		`        'password' => 'hashed',`,
		`"UsingTokenAuth": "スクリプトやcrontabからAPIを呼び出すにはtoken_authパラメータが必要です",`,
		`"Userkey": "Benutzerschlüssel für die Schnittstelle",`,
	} {
		text := secrettest.Expand(strings.NewReplacer("{{{", "\x01{{", "}}}", "}}\x02").Replace(c))
		want := ""
		if i, j := strings.IndexByte(text, '\x01'), strings.IndexByte(text, '\x02'); i >= 0 && j > i {
			want = text[i+1 : j]
			text = text[:i] + want + text[j+1:]
		}
		fs := s.Scan([]byte(text))
		switch {
		case want == "" && len(fs) > 0:
			t.Errorf("%q: found %s (%s)", text, fs[0].Match, fs[0].Rule)
		case want != "" && len(fs) != 1:
			t.Errorf("%q: %d findings, want 1", text, len(fs))
		case want != "" && text[fs[0].Start:fs[0].End] != want:
			t.Errorf("%q: masked %q (%s), want %q", text, text[fs[0].Start:fs[0].End], fs[0].Rule, want)
		}
	}
}
