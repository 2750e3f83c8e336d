package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/testkit"
)

// axeDir holds the package.json and package-lock.json that pin axe-core.
// It is found from this file's package directory, so tests of other
// packages find it too (see axePackageDir).
const axeDir = "internal/testkit/browser/testdata/axe"

// Impact is axe-core's rating of a violation, least to most severe.
type Impact string

const (
	Minor    Impact = "minor"
	Moderate Impact = "moderate"
	Serious  Impact = "serious"
	Critical Impact = "critical"
)

// rank orders impacts; an impact axe leaves empty ranks lowest.
func (i Impact) rank() int {
	return slices.Index([]Impact{Minor, Moderate, Serious, Critical}, i)
}

// Violation is one axe-core rule the page breaks, with the first few
// elements that break it.
type Violation struct {
	ID      string   `json:"id"`
	Impact  Impact   `json:"impact"`
	Help    string   `json:"help"`
	Count   int      `json:"count"`   // elements that break it
	Targets []string `json:"targets"` // CSS selectors of the first few
}

func (v Violation) String() string {
	return fmt.Sprintf("%s (%s, %d elements: %s): %s", v.ID, v.Impact, v.Count, strings.Join(v.Targets, ", "), v.Help)
}

// Violations is what axe-core found on a page, most severe first.
type Violations []Violation

// AtLeast is the violations of impact min or worse: AtLeast(Serious) is
// what the report must not have.
func (vs Violations) AtLeast(min Impact) Violations {
	var out Violations
	for _, v := range vs {
		if v.Impact.rank() >= min.rank() {
			out = append(out, v)
		}
	}
	return out
}

// ByImpact groups the violations by impact.
func (vs Violations) ByImpact() map[Impact]Violations {
	out := map[Impact]Violations{}
	for _, v := range vs {
		out[v.Impact] = append(out[v.Impact], v)
	}
	return out
}

// axeRun runs every axe-core rule on the document and keeps, per
// violation, its count and the first five targets.
const axeRun = `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations.map(v => ({
	id: v.id, impact: v.impact || "", help: v.help, count: v.nodes.length,
	targets: v.nodes.slice(0, 5).map(n => n.target.join(" ")),
})))`

// Axe runs axe-core (npm's axe-core, pinned under testdata/axe and
// installed with testkit.NPMCI) on the page as it is now, in its colour
// scheme and viewport. Without node and npm the test is skipped, or fails
// when testkit.RequireNodeEnv is set.
func (p *Page) Axe(tb testing.TB) Violations {
	tb.Helper()
	js := p.b.axeSource(tb)
	p.Evaluate(tb, js+"\n;undefined", nil)
	var vs Violations
	p.Evaluate(tb, axeRun, &vs)
	slices.SortStableFunc(vs, func(a, b Violation) int {
		if d := b.Impact.rank() - a.Impact.rank(); d != 0 {
			return d
		}
		return strings.Compare(a.ID, b.ID)
	})
	return vs
}

// axeSource installs axe-core once per browser and returns its source.
// A caller that is skipped or fails on the way leaves the next to try.
func (b *Browser) axeSource(tb testing.TB) string {
	tb.Helper()
	_, npm := testkit.Node(tb, "axe-core's accessibility checks are skipped")
	b.axeMu.Lock()
	defer b.axeMu.Unlock() // also when NPMCI skips or fails the test
	if b.axeJS != "" {
		return b.axeJS
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir, err := axePackageDir()
	if err != nil {
		tb.Fatal(err)
	}
	modules := testkit.NPMCI(tb, ctx, npm, dir)
	data, err := os.ReadFile(filepath.Join(modules, "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		tb.Fatalf("axe-core: %v", err)
	}
	b.axeJS = string(data)
	return b.axeJS
}

// axePackageDir finds testdata/axe from the test's working directory
// (a package directory of this module) by walking up to go.mod.
func axePackageDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, filepath.FromSlash(axeDir)), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory: cannot find %s", axeDir)
		}
		dir = parent
	}
}
