package corpus

import (
	"slices"
	"strings"
	"sync"

	"github.com/google/licensecheck"

	"github.com/repoprep/repoprep/snapshot"
)

// The licence column: a repository's SPDX id when its licence files say
// it, else null. The licence files are the staged top-level files named
// LICENSE, LICENCE, COPYING or UNLICENSE (any case, optionally with
// .txt, .md or .rst, or a suffix such as LICENSE-MIT); licensecheck reads
// each. A file counts when one or more licences cover at least
// minLicenseCoverage of it; the id is given when the files that count
// name exactly one licence between them. Two (a dual licence in two files,
// a bundled third-party text) give null: which applies is not ours to say.
const (
	minLicenseCoverage = 75.0      // percent of the file's words
	maxLicenseFiles    = 8         // candidates read, in path order
	maxLicenseBytes    = 256 << 10 // a licence is a few KiB; more is not one
)

// isLicenseName reports whether a top-level path names a licence file.
func isLicenseName(p string) bool {
	if strings.Contains(p, "/") {
		return false
	}
	stem := strings.ToLower(p)
	for _, ext := range []string{".txt", ".md", ".rst"} {
		stem = strings.TrimSuffix(stem, ext)
	}
	switch stem {
	case "license", "licence", "copying", "unlicense":
		return true
	}
	return strings.HasPrefix(stem, "license-") || strings.HasPrefix(stem, "licence-") || strings.HasPrefix(stem, "copying.")
}

// detectLicense reads the licence files among staged (in path order).
func detectLicense(tx *texts, staged []*snapshot.Entry) *string {
	ids := map[string]bool{}
	read := 0
	for _, e := range staged {
		if !isLicenseName(e.Path) || read == maxLicenseFiles {
			continue
		}
		read++
		text, _, err := tx.readEntry(e, nil)
		if err != nil || len(text) > maxLicenseBytes {
			continue
		}
		for _, id := range licenseIDs(text) {
			ids[id] = true
		}
	}
	if len(ids) != 1 {
		return nil
	}
	for id := range ids {
		return &id
	}
	return nil
}

// licenseFamilies are the licences the scanner knows, by id prefix: those
// repositories ship. All 551 of licensecheck's texts and URLs take seconds
// to compile, once per process, and the BSD variants alone most of that
// (their texts differ by a clause, which makes the combined automaton
// large): the three main BSD licences are named exactly. A licence
// outside these gives null, as an unknown one would.
var licenseFamilies = []string{
	"0BSD", "AGPL-", "Apache-", "Artistic-2", "BSL-1", "BlueOak", "CC-BY-4", "CC-BY-SA-4", "CC0-", "EPL-",
	"EUPL-1.2", "GPL-", "ISC", "LGPL-", "MIT", "MPL-2", "MS-PL", "MulanPSL-2", "NCSA", "OFL-1.1", "OpenSSL",
	"PHP-3", "PostgreSQL", "Python-2", "Ruby", "UPL-1", "Unicode-DFS", "Unlicense", "Vim", "WTFPL", "X11", "Zlib",
}

// licenseExact are licences named by their whole id.
var licenseExact = []string{"BSD-2-Clause", "BSD-3-Clause", "BSD-4-Clause"}

// licenseScanner is built on first use, once; safe for concurrent use.
var licenseScanner = sync.OnceValues(func() (*licensecheck.Scanner, error) {
	var known []licensecheck.License
	for _, l := range licensecheck.BuiltinLicenses() {
		if slices.Contains(licenseExact, l.ID) || slices.ContainsFunc(licenseFamilies, func(f string) bool { return strings.HasPrefix(l.ID, f) }) {
			known = append(known, l)
		}
	}
	return licensecheck.NewScanner(known)
})

// licenseIDs are the licences that cover text, when they cover enough of
// it to be what the file is.
func licenseIDs(text []byte) []string {
	sc, err := licenseScanner()
	if err != nil {
		return nil
	}
	cov := sc.Scan(text)
	if cov.Percent < minLicenseCoverage {
		return nil
	}
	var ids []string
	for _, m := range cov.Match {
		if !m.IsURL {
			ids = append(ids, m.ID)
		}
	}
	return ids
}
