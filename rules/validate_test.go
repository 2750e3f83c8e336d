package rules

import (
	"fmt"
	"reflect"
	"regexp"
	"testing"
)

// regexCases are patterns regexp.Compile accepts and rejects, each kind of
// parser error among them.
var regexCases = []string{
	`abc`, `(a)(b)(?P<c>c)`, `(?i)\bkey[\w.-]{0,12}\s*=\s*([A-Za-z0-9]{32,64})`, `\p{Han}+`, `[[:alpha:]]`,
	`a(b`, `a)b`, `[`, `[z-a]`, `*a`, `a**`, `a{2,1}`, `a{1001}`, `(?<x`, `\8`, `\pX`, `x{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}`,
	"\xff", `(?z)a`, `((((((((((a))))))))))`,
}

// TestCheckRegexAsCompile: Validate parses the regexes instead of
// compiling them, and accepts and rejects exactly what regexp.Compile does,
// with its error text and its group count (secret_group's bound).
func TestCheckRegexAsCompile(t *testing.T) {
	for _, expr := range regexCases {
		t.Run(expr, func(t *testing.T) { sameAsCompile(t, expr) })
	}
}

func FuzzCheckRegex(f *testing.F) {
	for _, expr := range regexCases {
		f.Add(expr)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		if len(expr) > 512 {
			return // the cost of a compile grows with its input; the parser errors show in short ones
		}
		sameAsCompile(t, expr)
	})
}

func sameAsCompile(t *testing.T, expr string) {
	t.Helper()
	re, err := checkRegex(expr)
	want, wantErr := regexp.Compile(expr)
	switch {
	case (err == nil) != (wantErr == nil):
		t.Fatalf("checkRegex(%q) = %v, regexp.Compile: %v", expr, err, wantErr)
	case err != nil && err.Error() != wantErr.Error():
		t.Fatalf("checkRegex(%q) = %q, regexp.Compile: %q", expr, err, wantErr)
	case err == nil && re.MaxCap() != want.NumSubexp():
		t.Fatalf("checkRegex(%q): %d groups, regexp.Compile: %d", expr, re.MaxCap(), want.NumSubexp())
	}
}

// TestDefaultSecretRulesValidate: every embedded rule is valid, which the
// loader leaves to this test (and secrets.Compile) instead of parsing
// every regex in every process.
func TestDefaultSecretRulesValidate(t *testing.T) {
	rs, err := DefaultSecretRules()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if err := r.Validate(); err != nil {
			t.Error(err)
		}
	}
}

// TestDefaultSecretRulesCopies: each call returns rules of the caller's
// own, down to every list, though the defaults are parsed once.
func TestDefaultSecretRulesCopies(t *testing.T) {
	first, err := DefaultSecretRules()
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%#v", first)
	for i := range first {
		scribble(reflect.ValueOf(&first[i]).Elem())
	}
	got, _ := DefaultSecretRules()
	if fmt.Sprintf("%#v", got) != want {
		t.Error("changing one call's rules changed another's")
	}
}

// scribble overwrites the first element of every non-empty string list in v,
// a struct.
func scribble(v reflect.Value) {
	for i := range v.NumField() {
		switch f := v.Field(i); f.Kind() {
		case reflect.Struct:
			scribble(f)
		case reflect.Slice:
			if f.Len() > 0 && f.Index(0).Kind() == reflect.String {
				f.Index(0).SetString("scribbled")
			}
		}
	}
}
