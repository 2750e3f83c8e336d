package secrets

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/secrets/secrettest"
	"github.com/repoprep/repoprep/rules"
)

// acknowledges takes the marker only as a whole word in a comment after the
// finding: never in a string, in prose or glued to other text.
func TestAcknowledges(t *testing.T) {
	for _, tt := range []struct {
		rest string
		want bool
	}{
		{`"  # repoprep:allow`, true},
		{`"; // repoprep:allow`, true},
		{`" /* repoprep:allow */`, true},
		{`" <!-- repoprep:allow -->`, true},
		{`' -- repoprep:allow`, true},
		{`" #repoprep:allow`, true},
		{`"  # test fixture, repoprep:allow (rotated)`, true},
		{`", "note": "repoprep:allow"}`, false},
		{`" repoprep:allow`, false},
		{`"  # repoprep:allowed-by-nobody`, false},
		{`"  # xrepoprep:allow`, false},
		{`"  # repoprep:allow2`, false},
		{``, false},
	} {
		if got := acknowledges([]byte(tt.rest)); got != tt.want {
			t.Errorf("acknowledges(%q) = %v, want %v", tt.rest, got, tt.want)
		}
	}
}

// FuzzAcknowledges: whatever follows a finding, the marker counts only where
// a comment opener comes before it on the line.
func FuzzAcknowledges(f *testing.F) {
	f.Add([]byte(`"  # repoprep:allow`))
	f.Add([]byte(`", "note": "repoprep:allow"}`))
	f.Add([]byte("/* repoprep:allow*/"))
	f.Fuzz(func(t *testing.T, rest []byte) {
		if !acknowledges(rest) {
			return
		}
		i := bytes.Index(rest, []byte(AckMarker))
		if i < 0 {
			t.Fatalf("acknowledged without the marker: %q", rest)
		}
		opened := false
		for _, o := range commentOpeners {
			if j := bytes.Index(rest, o); j >= 0 && j <= bytes.LastIndex(rest, []byte(AckMarker)) {
				opened = true
			}
		}
		if !opened {
			t.Fatalf("acknowledged with no comment before the marker: %q", rest)
		}
	})
}

// ScanLeftOut runs credential rules only, and on a binary content only
// those with a format of their own: compressed bytes hold "pw=" by chance.
func TestScanLeftOut(t *testing.T) {
	s := defaultScanner(t)
	tok := "gh" + "p_" + secrettest.Rand("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 36)
	pw := secrettest.Rand("abcdefghijklmnopqrstuvwxyz", 8) + secrettest.Rand("0123456789", 4)
	text := "GITHUB_TOKEN=" + tok + "\npassword = \"" + pw + "\"\ncall 138" + secrettest.Rand("0123456789", 8) + "\n"
	rulesOf := func(content string) []string {
		sc, err := s.ScanLeftOut(context.Background(), strings.NewReader(content), "debug.log")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, f := range sc.Findings {
			if f.Kind != rules.KindCredential {
				t.Errorf("a %s finding (%s) in a left-out file", f.Kind, f.Rule)
			}
			ids = append(ids, f.Rule)
		}
		return ids
	}
	if got := strings.Join(rulesOf(text), " "); got != "github-token password-assignment" {
		t.Errorf("text: rules %q, want the token and the password", got)
	}
	if got := strings.Join(rulesOf("\x00\x01binary\x00\n"+text), " "); got != "github-token" {
		t.Errorf("binary: rules %q, want the token alone", got)
	}
}
