package serve

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync/atomic"
)

// SearchArgs is search's input.
type SearchArgs struct {
	Pattern      string `json:"pattern"`
	PathGlob     string `json:"path_glob,omitempty"`
	ContextLines int    `json:"context_lines,omitempty"`
	MaxResults   int    `json:"max_results,omitempty"`
}

// SearchResult is search's answer as fields: every line the grep-style text
// shows, the files that could not be searched, the summary line, and the
// counts.
type SearchResult struct {
	Lines        []SearchLine `json:"lines"`         // the lines shown, in the text's order
	Matches      int          `json:"matches"`       // matching lines shown
	TotalMatches int          `json:"total_matches"` // matching lines found
	Files        int          `json:"files"`         // files with at least one match
	FilesSearch  int          `json:"files_searched"`
	LeftOut      int          `json:"left_out"`             // matching lines not shown
	Cut          string       `json:"cut,omitempty"`        // "max_results" or "token budget"
	Incomplete   bool         `json:"incomplete,omitempty"` // counting stopped at the count limit
	Failed       int          `json:"failed,omitempty"`     // files that could not be searched
	Errors       []FileError  `json:"errors,omitempty"`     // why, for the first few of them
	Summary      string       `json:"summary"`              // the text's last line: what was covered, left out, how to narrow
}

// SearchLine is one line of a search answer: a match, or context around one.
// The text shows it as path:line:text (a match) or path-line-text.
type SearchLine struct {
	Path  string `json:"path"`
	Line  int    `json:"line"`
	Text  string `json:"text"` // as shown: a long line is cut around its match
	Match bool   `json:"match"`
}

// FileError is one file a call could not serve and why.
type FileError struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// maxCountedMatches bounds how far search keeps counting after its output is
// full: enough to say "narrow it", cheap enough not to scan forever.
const maxCountedMatches = 100_000

// maxRegexpInsts bounds the compiled size of a search pattern. Matching
// costs up to (line bytes × instructions): a typical code search compiles to
// under 100 instructions, `\pL{1000}` to over 1000.
const maxRegexpInsts = 2000

// search is the search tool: RE2 over the staged files (each content once;
// duplicates are not searched twice), grep-style output, capped by
// max_results lines first and then by the default token budget. With a
// trigram index, only the files that can hold a match are opened; the answer
// is the same either way.
func (s *Server) search(ctx context.Context, sn *view, args SearchArgs) (answer, error) {
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
	re, tree, err := compilePattern(args.Pattern)
	if err != nil {
		return answer{}, err
	}
	var glob *regexp.Regexp
	if args.PathGlob != "" {
		if glob, err = compileGlob(args.PathGlob); err != nil {
			return answer{}, err
		}
	}
	var candidate []bool // by search-index id; nil: every file is one
	if sn.trigrams != nil {
		if ids, all := sn.trigrams.Candidates(tree); !all {
			candidate = make([]bool, len(sn.trigrams.Paths()))
			for _, id := range ids {
				candidate[id] = true
			}
		}
	}

	stop, release := stopFlag(ctx)
	defer release()
	budget := s.opts.DefaultBudget
	g := grep{ctx: ctx, stop: stop, re: re, ctxLines: args.ContextLines, maxShown: maxResults, maxChars: s.opts.MaxLineChars,
		counter: s.counter, budget: budget, room: budget - 120} // the tail line stays within the budget too
	g.res.Lines = []SearchLine{}
	id := -1
	for _, e := range sn.readable {
		if !e.Staged {
			continue
		}
		id++
		if glob != nil && !glob.MatchString(e.Path) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return answer{}, g.timeout(err, len(sn.readable))
		}
		if g.res.TotalMatches >= maxCountedMatches {
			g.res.Incomplete = true
			break
		}
		g.res.FilesSearch++
		if candidate != nil && !candidate[id] {
			continue // holds none of the trigrams a match needs
		}
		size := int64(-1)
		if sn.trigrams != nil {
			size = sn.trigrams.Size(id)
		}
		if err := g.file(sn, e.Path, size); err != nil {
			switch {
			case ctx.Err() != nil:
				return answer{}, g.timeout(ctx.Err(), len(sn.readable))
			case !errors.Is(readError("", err), ErrRefused) && s.stale(sn):
				return answer{}, err // a new snapshot replaced this one: withSnapshot reruns the call
			}
			// Removed, swapped or changed since publication: that file is an
			// error line, the search goes on.
			g.fail(e.Path, readError(e.Path, err))
		}
	}
	g.res.LeftOut = g.res.TotalMatches - g.res.Matches
	g.res.Summary = g.tail(sn, args, tree, maxResults)
	g.out.WriteString(g.errText.String())
	g.out.WriteString(g.res.Summary)
	return answer{text: g.out.String(), out: g.res}, nil
}

// compilePattern compiles a search pattern, refusing one whose program is
// too big to match in bounded time, and returns its syntax tree for the
// trigram index.
func compilePattern(pattern string) (*regexp.Regexp, *syntax.Regexp, error) {
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: pattern is not RE2: %v", ErrBadRequest, syntaxError(err))
	}
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		return nil, nil, fmt.Errorf("%w: pattern is not RE2: %v", ErrBadRequest, syntaxError(err))
	}
	if n := len(prog.Inst); n > maxRegexpInsts {
		return nil, nil, fmt.Errorf("%w: pattern too costly to match: it compiles to %d instructions, at most %d; shorten repetitions such as {1000} or split the search",
			ErrBadRequest, n, maxRegexpInsts)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: pattern is not RE2: %v", ErrBadRequest, syntaxError(err))
	}
	return re, tree, nil
}

// syntaxError is regexp/syntax's message with the quoted fragment capped.
func syntaxError(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return se.Code.String() + ": " + echo(se.Expr)
	}
	return err.Error()
}

// grep is one search in progress.
type grep struct {
	ctx      context.Context
	stop     *atomic.Bool // set once ctx is done
	re       *regexp.Regexp
	ctxLines int
	maxShown int
	maxChars int
	counter  *counter
	budget   int // tokens for the whole answer
	room     int // tokens left for output lines
	full     bool
	out      strings.Builder
	errText  strings.Builder // error lines, put before the tail
	res      SearchResult
}

// maxErrorLines bounds the files listed as errors in one answer.
const maxErrorLines = 10

// fail records a file that could not be searched as an error line.
func (g *grep) fail(rel string, err error) {
	g.res.Failed++
	if len(g.res.Errors) >= maxErrorLines {
		return
	}
	line := "[error: " + err.Error() + "]\n"
	if cost := g.counter.Count(line); cost <= g.room {
		g.room -= cost
		g.errText.WriteString(line)
		g.res.Errors = append(g.res.Errors, FileError{Path: rel, Error: err.Error()})
	}
}

// timeout is the answer when the deadline passed mid-search.
func (g *grep) timeout(err error, files int) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("search ran out of time after %d of %d files (%d matching lines so far); narrow path_glob or make the pattern more specific (%w)",
			g.res.FilesSearch, files, g.res.TotalMatches, err)
	}
	return err
}

type ctxLine struct {
	num  int
	text string
}

// file greps one staged file. Output for a file is built, then counted and
// kept whole or cut at the last line that fits. size is the file's size when
// the search index was built, or -1.
func (g *grep) file(sn *view, rel string, size int64) error {
	f, fi, err := sn.open(rel)
	if err != nil {
		return err
	}
	defer f.Close()
	if size >= 0 && fi.Size() != size {
		return fmt.Errorf("%w: %s changed since publication (%d bytes, the index recorded %d)", ErrRefused, echo(rel), fi.Size(), size)
	}
	ls := newLineScanner(g.ctx, g.stop, f, g.re, g.maxChars)
	var (
		buf      []byte
		ends     []int
		shownAs  []SearchLine // each line in buf, as a field
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
		shownAs = append(shownAs, SearchLine{Path: rel, Line: n, Text: text, Match: match})
		isMatch = append(isMatch, match)
		lastOut = n
	}
	for {
		line, ok, err := ls.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		num++
		matched := line.matched
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
				emit(num, line.text, false)
				after--
			}
			continue
		}
		text := line.text
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
		g.res.Lines = append(g.res.Lines, shownAs[:k]...)
		g.room -= cost
	}
	g.res.Matches += countTrue(isMatch[:k])
	if g.res.Matches >= g.maxShown && g.res.Cut == "" {
		g.res.Cut = "max_results"
		g.full = true
	}
	return nil
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
// narrow it, in terms of this snapshot: its example glob names the
// snapshot's own main language.
func (g *grep) tail(sn *view, args SearchArgs, tree *syntax.Regexp, maxResults int) string {
	r := g.res
	if r.TotalMatches == 0 {
		return fmt.Sprintf("[search: no match for %s in %d files; RE2 syntax%s; check path_glob]\n",
			echo(args.Pattern), r.FilesSearch, caseNote(tree))
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
	hint := fmt.Sprintf("narrow it: add path_glob (e.g. %q), make the pattern more specific", sn.exampleGlob())
	if r.Cut == "max_results" && maxResults < maxMaxResults {
		hint += fmt.Sprintf(", or raise max_results (up to %d)", maxMaxResults)
	}
	return fmt.Sprintf("[search: showed %d of %s matching lines in %d files | left out: %d (cut: %s) | %s]\n",
		r.Matches, total, r.Files, r.LeftOut, why, hint)
}
