package secrets

import (
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/repoprep/repoprep/internal/secrets/secrettest"
	"github.com/repoprep/repoprep/rules"
)

// TestRulesShared: Scanners made from one compiled Rules, each with its own
// key and options, find what a Scanner made by New with the same options
// finds, used one after another or at once: the compiled rules hold
// nothing of a Scanner's options.
func TestRulesShared(t *testing.T) {
	rs, err := rules.DefaultSecretRules()
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := Compile(rs)
	if err != nil {
		t.Fatal(err)
	}
	tok := "gh" + "p_" + secrettest.Rand("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 36)
	text := []byte("GITHUB_TOKEN=" + tok + "  # " + AckMarker + "\nmail wang.lei@example-mail.cn\n")
	optionSets := map[string][]Option{
		"none":        nil,
		"key a":       {WithFingerprintKey([]byte("a"))},
		"key b, acks": {WithFingerprintKey([]byte("b")), WithInlineAcks()},
		"acks":        {WithInlineAcks()},
	}
	want := map[string][]Finding{}
	for name, opts := range optionSets {
		s, err := New(rs, opts...)
		if err != nil {
			t.Fatal(err)
		}
		want[name] = s.Scan(text)
	}
	if reflect.DeepEqual(want["key a"], want["key b, acks"]) || len(want["none"]) == 0 {
		t.Fatalf("the options must change the findings: %+v", want)
	}
	check := func(name string) {
		s, err := compiled.Scanner(optionSets[name]...)
		if err != nil {
			t.Error(err)
			return
		}
		if got := s.Scan(text); !reflect.DeepEqual(got, want[name]) {
			t.Errorf("%s: shared rules found %+v, New %+v", name, got, want[name])
		}
	}
	for name := range optionSets {
		check(name)
	}
	var wg sync.WaitGroup
	for range 4 {
		for name := range optionSets {
			wg.Go(func() { check(name) })
		}
	}
	wg.Wait()
}

// TestCompileErrors: Compile rejects a rule as package rules does, with its
// message, and New says the same.
func TestCompileErrors(t *testing.T) {
	for name, r := range map[string]rules.SecretRule{
		"bad regex":   {ID: "x", Regex: "a(b"},
		"bad group":   {ID: "g", Regex: "a(b)", SecretGroup: 2},
		"bad allow":   {ID: "al", Regex: "a", Allow: rules.SecretAllow{Regexes: []string{"["}}},
		"empty regex": {ID: "e"},
	} {
		t.Run(name, func(t *testing.T) {
			want := r.Validate()
			if want == nil {
				t.Fatal("the rule validates")
			}
			_, err := Compile([]rules.SecretRule{r})
			if err == nil || err.Error() != want.Error() || !strings.Contains(err.Error(), r.ID) {
				t.Errorf("Compile: %v, want %v", err, want)
			}
			if _, err := New([]rules.SecretRule{r}); err == nil || err.Error() != want.Error() {
				t.Errorf("New: %v, want %v", err, want)
			}
		})
	}
}
