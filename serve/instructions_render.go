package serve

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	instr "github.com/repoprep/repoprep/instructions"
	"github.com/repoprep/repoprep/internal/tokens"
)

// Bounds on the parts of an instructions answer that are not file text.
const (
	maxShownWarnings = 10 // per file; the rest are in instructions.json
	maxNextItems     = 4  // continuation entries a trailer names (1 when the budget is tight)
)

// instrRender streams the applicable files, imports expanded, into an
// answer that fits the budget. Lines are counted in batches of batchLines
// with read_file's fitLines; each line remembers where it came from, so a
// cut answer can say exactly what to read next.
type instrRender struct {
	s       *Server
	sn      *view
	ctx     context.Context
	applied []*instr.File
	loads   []fileLoad        // loads[i] is how applied[i] loads its imports
	shownAt map[string]string // staged text -> the path it was first shown under
	maxNext int               // continuation entries the trailer names

	room, used, batches int
	batch               []byte
	ends                []int
	origins             []origin
	kept                []byte
	keptEnds            []int
	keptOrigins         []origin
	cut                 bool
}

// fileLoad is one applied file's imports as it loads them and all its
// warnings, put together from the index (instr.Index.Load).
type fileLoad struct {
	imports  []instr.Import
	warnings []string
}

// frame is one file being rendered: a root instruction file or an import
// inside one. resume is the parent's line to go on from after this import.
type frame struct {
	path   string // staged path to read it from
	parent *frame
	resume int
	root   int // index in applied
}

// origin says where a line of the answer came from: if the answer is cut
// right before it, reading goes on from line of fr (nil between files), then
// with the applied files after fr's.
type origin struct {
	fr     *frame
	line   int
	header bool // the line names the file; none of its text is shown yet
	done   int  // applied files shown in full before this line
}

func (r *instrRender) run(p, agent string, budget int, res *InstructionsResult) (answer, error) {
	r.maxNext = maxNextItems
	if r.room = budget - r.worstTrailer(p, agent); r.room <= minBudgetTokens/4 {
		r.maxNext = 1 // a tight budget: name only the first thing to read next
		r.room = budget - r.worstTrailer(p, agent)
	}
	if r.room <= 0 {
		return answer{}, fmt.Errorf("%w: budget_tokens %d cannot hold this answer's trailer; raise it", ErrBadRequest, budget)
	}
	if len(r.applied) == 0 {
		where := p
		if where == "" {
			where = "the repository root"
		}
		r.emit("No instruction file applies to "+where+".", origin{})
	}
	for i, f := range r.applied {
		if err := r.file(i, f); err != nil {
			return answer{}, err
		}
		if r.cut {
			break
		}
	}
	if !r.cut && len(res.OnRequest) > 0 {
		var names []string
		for _, o := range res.OnRequest {
			n := o.Path
			if o.Description != "" {
				n += " (" + strconv.Quote(o.Description) + ")"
			}
			names = append(names, n)
		}
		r.emit("Loaded only on request: "+strings.Join(names, ", ")+".", origin{done: len(r.applied)})
	}
	r.flush()

	text := string(r.kept) + r.trailer(p, agent)
	seams := r.batches + 2
	if r.used+tokens.Count(r.trailer(p, agent))+4*seams > budget {
		// Batch counts add up to about the whole count; near the limit count
		// the whole answer and drop lines until it fits, as read_file does.
		n := tokens.Count(text)
		for n > budget && len(r.keptEnds) > 0 {
			r.trimLast()
			text = string(r.kept) + r.trailer(p, agent)
			n = tokens.Count(text)
		}
		if n > budget {
			return answer{}, fmt.Errorf("%w: budget_tokens %d too small for this answer; raise it", ErrBadRequest, budget)
		}
		r.used = n
	} else {
		r.used += tokens.Count(r.trailer(p, agent))
	}
	res.Tokens, res.Cut, res.Next = r.used, r.cut, r.next()
	res.Files = r.results()
	return answer{text: text, out: *res}, nil
}

// file renders one applicable instruction file.
func (r *instrRender) file(i int, f *instr.File) error {
	fr := &frame{path: f.Source, root: i}
	head := origin{fr: fr, line: f.BodyLine, header: true, done: i}
	same, seen := r.shownAt[f.Source]
	var b strings.Builder
	fmt.Fprintf(&b, "=== %s · %s · applies to %s", f.Path, describe(f), scopeOf(f))
	switch {
	case f.Source == "":
	case seen:
		fmt.Fprintf(&b, " · same text as %s above", same)
	case f.LinkTarget != "":
		fmt.Fprintf(&b, " · symlink to %s", f.Source)
	case f.Source != f.Path:
		fmt.Fprintf(&b, " · duplicate of %s", f.Source)
	}
	b.WriteString(" ===")
	if !r.emit(b.String(), head) {
		return nil
	}
	shown := 0
	warnings := r.loads[i].warnings
	for k, w := range warnings {
		if strings.HasPrefix(w, "line ") {
			continue // an import's warning: said where the import is, in the text
		}
		if shown == maxShownWarnings {
			if !r.emit(fmt.Sprintf("⚠ and %d more warnings in instructions.json", len(warnings)-k), head) {
				return nil
			}
			break
		}
		shown++
		if !r.emit("⚠ "+w, head) {
			return nil
		}
	}
	if f.Source != "" && !seen {
		r.shownAt[f.Source] = f.Path
		if err := r.text(fr, f.BodyLine, r.loads[i].imports); err != nil {
			return err
		}
	}
	if !r.cut {
		r.emit("", origin{done: i + 1})
	}
	return nil
}

// text streams the staged file fr.path from line first on, expanding each
// import after the line that names it.
func (r *instrRender) text(fr *frame, first int, imports []instr.Import) error {
	f, _, err := r.sn.open(fr.path)
	if err != nil {
		return readError(fr.path, err)
	}
	defer f.Close()
	lr := newLineReader(f, r.s.opts.MaxLineChars)
	next := 0 // the first import not yet expanded
	for line := 1; ; line++ {
		if line%batchLines == 0 {
			if err := r.ctx.Err(); err != nil {
				return err
			}
		}
		text, cutChars, ok, err := lr.next()
		if err != nil {
			return fmt.Errorf("read %s: %w", fr.path, err)
		}
		if !ok {
			break
		}
		if line < first {
			continue
		}
		l := string(text)
		if cutChars > 0 {
			l += fmt.Sprintf(" […line cut: %d more characters]", cutChars)
		}
		if !r.emit(l, origin{fr: fr, line: line, done: fr.root}) {
			return nil
		}
		for ; next < len(imports) && imports[next].Line <= line; next++ {
			if err := r.importAt(fr, line, &imports[next]); err != nil || r.cut {
				return err
			}
		}
	}
	return nil
}

// importAt renders one import found on line of fr: its text between two
// marker lines, or a line saying why it was not imported.
func (r *instrRender) importAt(fr *frame, line int, im *instr.Import) error {
	after := origin{fr: fr, line: line + 1, done: fr.root}
	if im.Status != instr.ImportOK {
		r.emit(fmt.Sprintf("[@%s not imported: %s]", im.Spec, im.Detail), after)
		return nil
	}
	if first, ok := r.shownAt[im.Source]; ok {
		r.emit(fmt.Sprintf("[@%s: same text as %s, shown above]", im.Spec, first), after)
		return nil
	}
	r.shownAt[im.Source] = im.Path
	child := &frame{path: im.Source, parent: fr, resume: line + 1, root: fr.root}
	if !r.emit(fmt.Sprintf("--- @%s (%s) ---", im.Spec, im.Path), origin{fr: child, line: 1, header: true, done: fr.root}) {
		return nil
	}
	if err := r.text(child, 1, im.Imports); err != nil || r.cut {
		return err
	}
	r.emit(fmt.Sprintf("--- end of @%s ---", im.Spec), after)
	return nil
}

// emit adds one line; it reports false once the budget is spent.
func (r *instrRender) emit(line string, o origin) bool {
	if r.cut {
		return false
	}
	r.batch = append(r.batch, line...)
	r.batch = append(r.batch, '\n')
	r.ends = append(r.ends, len(r.batch))
	r.origins = append(r.origins, o)
	if len(r.ends) == batchLines {
		r.flush()
	}
	return !r.cut
}

// flush counts the batch and keeps the lines that fit.
func (r *instrRender) flush() {
	if len(r.ends) == 0 {
		return
	}
	r.batches++
	k, n := fitLines(r.s.counter, r.batch, r.ends, r.room-r.used)
	base := len(r.kept)
	if k > 0 {
		r.kept = append(r.kept, r.batch[:r.ends[k-1]]...)
		for j := range k {
			r.keptEnds = append(r.keptEnds, base+r.ends[j])
			r.keptOrigins = append(r.keptOrigins, r.origins[j])
		}
		r.used += n
	}
	if k < len(r.ends) {
		r.cut = true
		r.keptOrigins = append(r.keptOrigins, r.origins[k]) // the first line left out, popped by next()
		r.keptEnds = append(r.keptEnds, -1)
	}
	r.batch, r.ends, r.origins = r.batch[:0], r.ends[:0], r.origins[:0]
}

// trimLast drops the last kept line.
func (r *instrRender) trimLast() {
	n := len(r.keptEnds)
	if r.cut { // drop the marker of the first line left out, then the line
		r.keptEnds, r.keptOrigins = r.keptEnds[:n-1], r.keptOrigins[:n-1]
		n--
	}
	if n == 0 {
		return
	}
	start := 0
	if n > 1 {
		start = r.keptEnds[n-2]
	}
	r.kept = r.kept[:start]
	r.keptEnds = r.keptEnds[:n-1] // the dropped line's origin stays: it is now the first left out
	r.keptEnds = append(r.keptEnds, -1)
	r.cut = true
}

// cutAt is the origin of the first line left out, when the answer is cut.
func (r *instrRender) cutAt() (origin, bool) {
	if !r.cut || len(r.keptOrigins) == 0 {
		return origin{}, false
	}
	return r.keptOrigins[len(r.keptOrigins)-1], true
}

// next lists what to read to see the rest of a cut answer: the files being
// expanded at the cut, innermost first, then the files not reached.
func (r *instrRender) next() []InstructionsRange {
	o, ok := r.cutAt()
	if !ok {
		return nil
	}
	var out []InstructionsRange
	for fr, line := o.fr, o.line; fr != nil && fr.path != ""; fr, line = fr.parent, fr.resume {
		out = append(out, InstructionsRange{Path: fr.path, FromLine: max(line, 1)})
	}
	root := o.done
	if o.fr != nil {
		root = o.fr.root + 1
	}
	for _, f := range r.applied[min(root, len(r.applied)):] {
		if f.Source != "" {
			out = append(out, InstructionsRange{Path: f.Source, FromLine: f.BodyLine})
		}
	}
	// A text named twice (AGENTS.md is CLAUDE.md) is read once, from the
	// first place named.
	seen := map[string]bool{}
	return slices.DeleteFunc(out, func(n InstructionsRange) bool {
		dup := seen[n.Path]
		seen[n.Path] = true
		return dup
	})
}

// trailer ends every answer, like read_file's.
func (r *instrRender) trailer(p, agent string) string {
	var b strings.Builder
	if p == "" {
		p = "."
	}
	fmt.Fprintf(&b, "[instructions: %s | agent: %s | applied: %d %s", p, agent, len(r.applied), plural(len(r.applied), "file", "files"))
	o, cut := r.cutAt()
	if !cut {
		b.WriteString("]")
		return b.String()
	}
	fmt.Fprintf(&b, ", %d shown in full | cut: token budget", o.done)
	writeNext(&b, r.next(), r.maxNext)
	b.WriteString("]")
	return b.String()
}

func writeNext(b *strings.Builder, next []InstructionsRange, maxItems int) {
	if len(next) == 0 {
		return
	}
	b.WriteString(" | next: read_file ")
	for i, n := range next {
		if i == maxItems {
			fmt.Fprintf(b, ", and %d more", len(next)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n.Path)
		if n.FromLine > 1 {
			fmt.Fprintf(b, " from line %d", n.FromLine)
		}
	}
}

// worstTrailer bounds the trailer's tokens, so the text never crowds it out.
func (r *instrRender) worstTrailer(p, agent string) int {
	var next []InstructionsRange
	for _, f := range r.applied {
		path := f.Source
		if path == "" {
			path = f.Path
		}
		next = append(next, InstructionsRange{Path: path, FromLine: 999_999_999}, InstructionsRange{Path: path, FromLine: 999_999_999})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[instructions: %s | agent: %s | applied: 999999 files, 999999 shown in full | cut: token budget", p, agent)
	writeNext(&b, next, r.maxNext)
	b.WriteString("]")
	return tokens.Count(b.String()) + 16
}

// results describes each applied file and how much of it was shown.
func (r *instrRender) results() []AppliedFile {
	o, cut := r.cutAt()
	out := make([]AppliedFile, 0, len(r.applied))
	seen := map[string]string{}
	for i, f := range r.applied {
		a := AppliedFile{Path: f.Path, Agent: f.Agent, Kind: f.Kind, Scope: scopeOf(f), Source: f.Source,
			Chars: f.Chars, Tokens: f.Tokens, TotalChars: f.TotalChars, TotalTokens: f.TotalTokens, Warnings: r.loads[i].warnings}
		if first, ok := seen[f.Source]; ok && f.Source != "" {
			a.SameAs = first
		} else if f.Source != "" {
			seen[f.Source] = f.Path
		}
		a.Imports = expanded(r.loads[i].imports, nil)
		switch {
		case !cut || i < o.done:
			a.Shown = "all"
		case o.fr != nil && i == o.fr.root && !(o.header && o.fr.parent == nil):
			a.Shown = "part"
		default:
			a.Shown = "none"
		}
		out = append(out, a)
	}
	return out
}

// expanded lists the paths of the imports that were followed, depth first.
func expanded(imps []instr.Import, out []string) []string {
	for _, im := range imps {
		if im.Status == instr.ImportOK {
			out = append(out, im.Path)
			out = expanded(im.Imports, out)
		}
	}
	return out
}
