package pipeline

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/snapshot"
)

// TestExplainAgreesWithRun: for every file of the fixture tree, explain
// gives the category, reason and test mark the run wrote into files.json
// (it walks only the path's way down, so this checks it sees the same
// ignore files and manifests as the full scan).
func TestExplainAgreesWithRun(t *testing.T) {
	t.Parallel() // changes no package state: see TestMain
	src := fixtureTree(t)
	res := runFixture(t, src, filepath.Join(t.TempDir(), "out"), nil)
	var paths []string
	for _, e := range res.Manifest.Files {
		if e.Reason == "unsafe-name" {
			continue // not addressable by its escaped name
		}
		paths = append(paths, e.Path)
	}
	xs, err := Explain(t.Context(), ExplainOptions{Root: src}, paths)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]Explanation{}
	for _, x := range xs {
		byPath[x.Path] = x
	}
	for _, e := range res.Manifest.Files {
		x, ok := byPath[e.Path]
		if !ok {
			continue
		}
		if !x.Found || x.Category != e.Category || x.Reason != e.Reason || x.Test != e.Test || x.Rule == "" {
			t.Errorf("%s: explain says %s/%s test=%v (rule %q), the run %s/%s test=%v",
				e.Path, x.Category, x.Reason, x.Test, x.Rule, e.Category, e.Reason, e.Test)
		}
		// A duplicate is staged once, under its first path: the one
		// thing explain cannot know from the file alone.
		if e.DuplicateOf == "" && (x.Staged != e.Staged || x.Encoding != e.Encoding || x.Mojibake != e.Mojibake) {
			t.Errorf("%s: explain says staged=%v %q mojibake=%v, the run staged=%v %q mojibake=%v",
				e.Path, x.Staged, x.Encoding, x.Mojibake, e.Staged, e.Encoding, e.Mojibake)
		}
	}
	if len(byPath) < 15 {
		t.Fatalf("only %d paths explained", len(byPath))
	}
}

// TestExplainNamesTheDecoder: a file triage calls source but the decoder
// refuses, and valid UTF-8 the decoder flags, are explained by the decode
// step, as the run decides them (explain used to stop at triage and call
// both plain source).
func TestExplainNamesTheDecoder(t *testing.T) {
	src := t.TempDir()
	writeFiles(t, src, map[string]string{
		"garbled.c":  "int x; /* \x81\xfe\xfe\x81\x8f\xa0\xfe\xff\xfe\x80\x81 */\n",
		"double.txt": strings.Repeat("CafÃ© crÃ¨me, dÃ©jÃ  vu, naÃ¯ve. ", 8) + "\n",
		"plain.go":   "package p\n",
	})
	res := runFixture(t, src, filepath.Join(t.TempDir(), "out"), nil)
	xs, err := Explain(t.Context(), ExplainOptions{Root: src}, []string{"garbled.c", "double.txt", "plain.go"})
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]*snapshot.Entry{}
	for i := range res.Manifest.Files {
		byPath[res.Manifest.Files[i].Path] = &res.Manifest.Files[i]
	}
	for _, x := range xs {
		e := byPath[x.Path]
		if e == nil {
			t.Fatalf("%s not in files.json", x.Path)
		}
		if x.Category != e.Category || x.Reason != e.Reason || x.Staged != e.Staged || x.Mojibake != e.Mojibake {
			t.Errorf("%s: explain %s/%s staged=%v mojibake=%v; run %s/%s staged=%v mojibake=%v",
				x.Path, x.Category, x.Reason, x.Staged, x.Mojibake, e.Category, e.Reason, e.Staged, e.Mojibake)
		}
		wantDecode := x.Path != "plain.go"
		if got := strings.HasPrefix(x.Rule, "decode"); got != wantDecode {
			t.Errorf("%s: rule %q, want the decode step: %v", x.Path, x.Rule, wantDecode)
		}
	}
	if xs[0].Staged || xs[0].Reason != "undecodable" || !xs[1].Staged || !xs[1].Mojibake {
		t.Errorf("explained %+v", xs[:2])
	}
}
