package corpus

import (
	"slices"
	"testing"
)

// TestLicense: which top-level files are licence files, and what
// licensecheck must find in one for its id to count.
func TestLicense(t *testing.T) {
	for name, want := range map[string]bool{
		"LICENSE": true, "LICENSE.md": true, "licence.txt": true, "COPYING": true, "COPYING.LESSER": true,
		"UNLICENSE": true, "LICENSE-MIT": true, "License.rst": true,
		"docs/LICENSE": false, "LICENSES.json": false, "README.md": false, "license.go": false,
	} {
		if got := isLicenseName(name); got != want {
			t.Errorf("isLicenseName(%q) = %v, want %v", name, got, want)
		}
	}
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"MIT", mitText, []string{"MIT"}},
		{"Unlicense", unlicenseText, []string{"Unlicense"}},
		{"a mention", "This project is under the MIT licence; see the website.\n", nil},
		{"MIT after a long preface", longGo("x") + mitText, nil},
	} {
		if got := licenseIDs([]byte(tc.text)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
