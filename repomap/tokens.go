package repomap

import (
	"fmt"
	"sort"
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
	files []report.AuditTokenFile // the costliest staged files worth reading by range
	media mediaTally              // the media-like text left out of files
}

// mediaTally counts the staged files that are media written as text.
type mediaTally struct {
	files   int
	tokens  int64
	largest string
}

const (
	// mediaTokensPerLine: a text averaging more tokens a line than this is
	// media or data written as text (an SVG drawing, a data URI, one-line
	// JSON), not prose or code to read by line range. Code averages 7 to
	// 12 o200k tokens a line and Markdown 10 to 40; vite's
	// docs/images/vite-environments.svg is 4,146 over 40 lines, a CSS file
	// full of data URIs 71.
	mediaTokensPerLine = 250
	// mapTopFiles is the most files any level names for reading by range.
	mapTopFiles = 3
)

// isMediaLike reports a staged text that is an image or data more than
// something to read: media in text form (reason media-text, staged by a
// rules file's override), an SVG, or lines far longer than code's.
func isMediaLike(e *snapshot.Entry) bool {
	return e.Reason == "media-text" || e.Language == "SVG" || e.Tokens > mediaTokensPerLine*max(e.Lines, 1)
}

func gatherMapTokens(m *snapshot.Manifest) mapTokens {
	t := report.Tokens(m)
	out := mapTokens{total: t.Total, dirs: t.ByDir}
	var largest int
	for i := range m.Files {
		e := &m.Files[i]
		if !e.Staged {
			continue
		}
		if isMediaLike(e) {
			out.media.files++
			out.media.tokens += int64(e.Tokens)
			if e.Tokens > largest || e.Tokens == largest && e.Path < out.media.largest {
				largest, out.media.largest = e.Tokens, e.Path
			}
			continue
		}
		// Keep the mapTopFiles with the most tokens, ties by path.
		j := sort.Search(len(out.files), func(j int) bool {
			f := out.files[j]
			return e.Tokens > f.Tokens || e.Tokens == f.Tokens && e.Path < f.Path
		})
		if j == mapTopFiles {
			continue
		}
		if len(out.files) < mapTopFiles {
			out.files = append(out.files, report.AuditTokenFile{})
		}
		copy(out.files[j+1:], out.files[j:])
		out.files[j] = report.AuditTokenFile{Path: e.Path, Tokens: e.Tokens, Lines: e.Lines, Category: e.Category}
	}
	return out
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
	if c.tokenFiles == 0 {
		return
	}
	if len(t.files) > 0 {
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
	if m := t.media; m.files > 0 {
		fmt.Fprintf(b, "- Skip media-like text (SVG, data in long lines): %s %s, %s tokens, the largest %s.\n",
			numfmt.Int(m.files), numfmt.Plural(m.files, "file", "files"), mapTokenCount(m.tokens), mapCode(mapElide(m.largest, c.pathRunes)))
	}
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
