package serve

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// SearchArgs is search's input.
type SearchArgs struct {
	Pattern      string `json:"pattern"`
	PathGlob     string `json:"path_glob,omitempty"`
	ContextLines int    `json:"context_lines,omitempty"`
	MaxResults   int    `json:"max_results,omitempty"`
}

// SearchResult is search's structured output beside the grep-style text.
type SearchResult struct {
	Matches      int    `json:"matches"`       // matching lines shown
	TotalMatches int    `json:"total_matches"` // matching lines found
	Files        int    `json:"files"`         // files with at least one match
	FilesSearch  int    `json:"files_searched"`
	LeftOut      int    `json:"left_out"`             // matching lines not shown
	Cut          string `json:"cut,omitempty"`        // "max_results" or "token budget"
	Incomplete   bool   `json:"incomplete,omitempty"` // counting stopped at the count limit
}

// maxCountedMatches bounds how far search keeps counting after its output is
// full: enough to say "narrow it", cheap enough not to scan forever.
const maxCountedMatches = 100_000

// search is the search tool: RE2 over the staged files (each content once;
// duplicates are not searched twice), grep-style output, capped by
// max_results lines first and then by the default token budget.
func (s *Server) search(ctx context.Context, sn *snapshot, args SearchArgs) (answer, error) {
	maxResults := args.MaxResults
	switch {
	case args.Pattern == "":
		return answer{}, fmt.Errorf("%w: pattern is empty", ErrBadRequest)
	case len(args.Pattern) > maxPatternBytes:
		return answer{}, fmt.Errorf("%w: pattern longer than %d bytes", ErrBadRequest, maxPatternBytes)
	case args.ContextLines < 0 || args.ContextLines > maxContextLines:
		return answer{}, fmt.Errorf("%w: context_lines %d outside 0..%d", ErrBadRequest, args.ContextLines, maxContextLines)
	case maxResults == 0:
		maxResults = defaultMaxResults
	case maxResults < 1 || maxResults > maxMaxResults:
		return answer{}, fmt.Errorf("%w: max_results %d outside 1..%d", ErrBadRequest, maxResults, maxMaxResults)
	}
	re, err := regexp.Compile(args.Pattern)
	if err != nil {
		return answer{}, fmt.Errorf("%w: pattern is not RE2: %v", ErrBadRequest, err)
	}
	var glob *regexp.Regexp
	if args.PathGlob != "" {
		if glob, err = compileGlob(args.PathGlob); err != nil {
			return answer{}, err
		}
	}

	budget := s.opts.DefaultBudget
	g := grep{re: re, ctxLines: args.ContextLines, maxShown: maxResults, maxChars: s.opts.MaxLineChars,
		counter: s.counter, budget: budget, room: budget - 120} // the tail line stays within the budget too
	for _, e := range sn.readable {
		if !e.Staged || (glob != nil && !glob.MatchString(e.Path)) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return answer{}, err
		}
		if g.res.TotalMatches >= maxCountedMatches {
			g.res.Incomplete = true
			break
		}
		g.res.FilesSearch++
		if err := g.file(sn, e.Path); err != nil {
			if errors.Is(err, ErrRefused) {
				continue // a file planted or swapped after publication is skipped, never followed
			}
			return answer{}, openError(e.Path, err)
		}
	}
	g.res.LeftOut = g.res.TotalMatches - g.res.Matches
	g.out.WriteString(g.tail(args, maxResults))
	return answer{text: g.out.String(), out: g.res}, nil
}

// grep is one search in progress.
type grep struct {
	re       *regexp.Regexp
	ctxLines int
	maxShown int
	maxChars int
	counter  *counter
	budget   int // tokens for the whole answer
	room     int // tokens left for output lines
	full     bool
	out      strings.Builder
	res      SearchResult
}

type ctxLine struct {
	num  int
	text string
}

// file greps one staged file. Output for a file is built, then counted and
// kept whole or cut at the last line that fits.
func (g *grep) file(sn *snapshot, rel string) error {
	f, _, err := sn.open(rel)
	if err != nil {
		return err
	}
	defer f.Close()
	lr := newLineReader(f, g.maxChars)
	var (
		buf      []byte
		ends     []int
		isMatch  []bool
		before   []ctxLine
		after    int
		lastOut  int // last line number written for this file
		num      int
		anyMatch bool
		shown    = g.res.Matches // matches shown, this file's included
	)
	emit := func(n int, text string, match bool) {
		if (lastOut > 0 && n > lastOut+1) || (lastOut == 0 && g.out.Len() > 0) {
			buf = append(buf, "--\n"...)
		}
		sep := byte('-')
		if match {
			sep = ':'
		}
		buf = append(buf, rel...)
		buf = append(buf, sep)
		buf = strconv.AppendInt(buf, int64(n), 10)
		buf = append(buf, sep)
		buf = append(buf, text...)
		buf = append(buf, '\n')
		ends = append(ends, len(buf))
		isMatch = append(isMatch, match)
		lastOut = n
	}
	for {
		line, cutChars, ok, err := lr.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		num++
		matched := g.re.Match(line)
		if matched {
			g.res.TotalMatches++
			if !anyMatch {
				anyMatch = true
				g.res.Files++
			}
		}
		if g.res.TotalMatches >= maxCountedMatches {
			break
		}
		if g.full || shown >= g.maxShown {
			// Output is full: only counting from here, but the last shown
			// match still gets its trailing context.
			if !g.full && !matched && after > 0 {
				emit(num, g.display(line, cutChars), false)
				after--
			}
			continue
		}
		text := g.display(line, cutChars)
		switch {
		case matched:
			for _, b := range before {
				emit(b.num, b.text, false)
			}
			before = before[:0]
			emit(num, text, true)
			shown++
			after = g.ctxLines
		case after > 0:
			emit(num, text, false)
			after--
		case g.ctxLines > 0:
			if len(before) == g.ctxLines {
				before = append(before[:0], before[1:]...)
			}
			before = append(before, ctxLine{num, text})
		}
	}
	if len(ends) == 0 || g.full {
		return nil
	}
	k, cost := fitLines(g.counter, buf, ends, g.room)
	if k < len(ends) {
		g.full = true
		g.res.Cut = "token budget"
		for k > 0 && !isMatch[k-1] {
			k-- // don't end on context of a match that was cut
		}
	}
	if k > 0 {
		g.out.Write(buf[:ends[k-1]])
		g.room -= cost
	}
	g.res.Matches += countTrue(isMatch[:k])
	if g.res.Matches >= g.maxShown && g.res.Cut == "" {
		g.res.Cut = "max_results"
		g.full = true
	}
	return nil
}

// display is a line as shown: cut to maxChars with a marker.
func (g *grep) display(line []byte, cutChars int) string {
	if cutChars == 0 {
		return string(line)
	}
	return string(line) + " […line cut: " + strconv.Itoa(cutChars) + " more characters]"
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// tail says what the search covered and, when it left matches out, how to
// narrow it.
func (g *grep) tail(args SearchArgs, maxResults int) string {
	r := g.res
	if r.TotalMatches == 0 {
		return fmt.Sprintf("[search: no match for %q in %d files; RE2 syntax, case-sensitive (prefix (?i) to ignore case); check path_glob]\n",
			args.Pattern, r.FilesSearch)
	}
	if r.LeftOut == 0 {
		return fmt.Sprintf("[search: %d matching lines in %d files]\n", r.TotalMatches, r.Files)
	}
	total := strconv.Itoa(r.TotalMatches)
	if r.Incomplete {
		total = "more than " + total
	}
	why := fmt.Sprintf("max_results %d", maxResults)
	if r.Cut == "token budget" {
		why = fmt.Sprintf("token budget %d", g.budget)
	}
	hint := `narrow it: add path_glob (e.g. "src/**/*.go"), make the pattern more specific`
	if r.Cut == "max_results" && maxResults < maxMaxResults {
		hint += fmt.Sprintf(", or raise max_results (up to %d)", maxMaxResults)
	}
	return fmt.Sprintf("[search: showed %d of %s matching lines in %d files | left out: %d (cut: %s) | %s]\n",
		r.Matches, total, r.Files, r.LeftOut, why, hint)
}
