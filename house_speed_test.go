package repoprep_test

import (
	"strings"
	"testing"
)

// TestMayPointOutsideKeepsEveryMatch: the filter TestNoReferenceOutside
// runs before its regexp passes every line the regexp matches.
func TestMayPointOutsideKeepsEveryMatch(t *testing.T) {
	for _, line := range []string{
		"see SPEC.md", "fixed in issue 14", "ISSUES 3 and 4", "Issue 7", "iſſue 9", "ıssue 2",
		"../shared/x", "under shared/corpora/", "NOTES.md says", "cd /work/main", "/tmp/studio/a",
		"mimetype issue #81", "no reference here", "", "\xffissue 1",
	} {
		if outside.MatchString(line) && !mayPointOutside(line, strings.ToLower(line)) {
			t.Errorf("%q: outside matches it, the filter drops it", line)
		}
	}
}

func FuzzMayPointOutside(f *testing.F) {
	for _, s := range []string{"issue 1", "iſſue 2", "SPEC.md", "/work/", "plain"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 1<<12 {
			return
		}
		if outside.MatchString(line) && !mayPointOutside(line, strings.ToLower(line)) {
			t.Fatalf("%q: outside matches it, the filter drops it", line)
		}
	})
}
