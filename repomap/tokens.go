package repomap

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/repoprep/repoprep/internal/numfmt"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/snapshot"
)

// The map's token figures: what reading the staged tree costs and where
// those tokens sit, in its first sentence, and the files an agent should
// read by range, in one line of "Reading more". The map keeps its budget.

// mapTokens is the map's view of the token tally the audit shows too.
type mapTokens struct {
	total int64
	dirs  []report.AuditTokens
	files []report.AuditTokenFile
}

func gatherMapTokens(m *snapshot.Manifest) mapTokens {
	t := report.Tokens(m)
	return mapTokens{total: t.Total, dirs: t.ByDir, files: t.TopFiles}
}

// render ends the map's first sentence: ", N o200k tokens: where they
// sit by top-level directory" (at most c.tokenDirs, none under 1%).
func (t mapTokens) render(b *strings.Builder, c mapCaps) {
	fmt.Fprintf(b, ", %s o200k tokens", mapTokenCount(t.total))
	for i, d := range t.dirs {
		if i == c.tokenDirs || len(t.dirs) == 1 || d.Tokens*100 < t.total {
			break
		}
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString(", ")
		}
		name := "root files"
		if d.Name != "." {
			name = mapCode(mapElide(d.Name+"/", c.pathRunes))
		}
		b.WriteString(name + " " + numfmt.Pct(d.Tokens, t.total))
	}
}

// renderFiles is the "Reading more" line naming the costliest files.
func (t mapTokens) renderFiles(b *strings.Builder, c mapCaps) {
	if c.tokenFiles == 0 || len(t.files) == 0 {
		return
	}
	b.WriteString("- Most tokens: ")
	for i, f := range t.files {
		if i == c.tokenFiles {
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(mapCode(mapElide(f.Path, c.pathRunes)) + " " + mapTokenCount(int64(f.Tokens)))
	}
	b.WriteString(": read such files by line range.\n")
}

// mapTokenCount writes a token count the way the map can afford: exact
// below 10,000, then in thousands (12k) and millions (1.4M), which saves
// the map a few tokens a number.
func mapTokenCount(n int64) string {
	switch {
	case n < 10_000:
		return numfmt.Int(n)
	case n < 1_000_000:
		return strconv.FormatInt(n/1000, 10) + "k"
	case n < 10_000_000:
		return strconv.FormatFloat(float64(n/100_000)/10, 'f', 1, 64) + "M"
	default:
		return strconv.FormatInt(n/1_000_000, 10) + "M"
	}
}
