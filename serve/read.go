package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/tokens"
	"github.com/repoprep/repoprep/snapshot"
)

// ReadFileArgs is read_file's input, the same for MCP and POST /v1/read_file.
type ReadFileArgs struct {
	Files        []FileRequest `json:"files"`
	BudgetTokens int           `json:"budget_tokens,omitempty"`
}

// FileRequest names one file and, optionally, the lines wanted from it.
type FileRequest struct {
	Path   string  `json:"path"`
	Ranges [][]int `json:"ranges,omitempty"` // [start, end], 1-based, inclusive
}

// ReadFileResult is read_file's structured output beside the text.
type ReadFileResult struct {
	Files        []FileResult `json:"files"`
	BudgetTokens int          `json:"budget_tokens"`
	Tokens       int          `json:"tokens"`           // o200k tokens charged for the text
	Cut          bool         `json:"cut"`              // the budget cut the answer
	Failed       int          `json:"failed,omitempty"` // files answered with an error instead of lines
}

// FileResult is one file's part of the answer: its text, and what its
// trailer says as fields.
type FileResult struct {
	Path        string  `json:"path"`
	DuplicateOf string  `json:"duplicate_of,omitempty"` // canonical copy served for a duplicate
	TotalLines  int     `json:"total_lines"`
	Shown       [][]int `json:"shown"`          // [start, end] ranges shown
	Next        int     `json:"next,omitempty"` // line to continue from
	Cut         string  `json:"cut,omitempty"`  // "token budget" when the budget cut this file
	NotRead     bool    `json:"not_read,omitempty"`
	Error       string  `json:"error,omitempty"`    // why this file could not be read; the others were
	Encoding    string  `json:"encoding,omitempty"` // what the source was decoded from, when not UTF-8
	// Text is this file's numbered lines and trailer exactly as the text
	// answer shows them: the files' texts joined are that answer, so a
	// client that passes on structured output passes on the lines.
	Text string `json:"text"`
}

// maxSegmentCap bounds the room a segment's text is given up front.
const maxSegmentCap = 1 << 20

// batchLines is how many lines are counted at once. Counting is the cost of
// a read (o200k runs at ~8 MB/s); 64 keeps the binary search in the last
// batch to six counts of at most 64 lines.
const batchLines = 64

// fileRead is one file's read in progress, rendered once all are done.
type fileRead struct {
	req     FileRequest
	entry   *snapshot.Entry // the canonical (staged) entry
	canon   string
	ranges  [][2]int
	asked   bool // ranges came from the caller, not the MaxLines default
	width   int
	total   int
	segs    []segment
	pastEnd [][2]int // requested ranges that start after the last line
	tooBig  string   // why nothing fit, when the first line alone exceeds the budget
	cut     bool
	notRead bool
	failed  string // this file's error, shown in place of its lines
	err     error  // the same, for errors.Is when every file failed
	batches int    // token counts taken, for the seam allowance
	// inexact: some shown line's cost is not known on its own (its batch
	// was counted whole), so the answer's count is taken by counting it.
	inexact bool
}

// segment is a run of consecutive numbered lines, already formatted, and
// what each line costs when that is known (see linecost.go).
type segment struct {
	start, n int
	text     []byte
	costs    []int
}

// readFile is the read_file tool on one pinned snapshot.
func (s *Server) readFile(ctx context.Context, sn *view, args ReadFileArgs) (answer, error) {
	budget, err := s.budget(args.BudgetTokens)
	if err != nil {
		return answer{}, err
	}
	if len(args.Files) == 0 {
		return answer{}, fmt.Errorf("%w: files is empty; name at least one path", ErrBadRequest)
	}
	if len(args.Files) > s.opts.MaxFiles {
		return answer{}, fmt.Errorf("%w: %d files asked, at most %d a call", ErrBadRequest, len(args.Files), s.opts.MaxFiles)
	}
	// Plan every file before reading any. One bad path does not sink the
	// others: it gets an error line in its place. Only when every path is
	// bad does the call fail, so a single-file read keeps its status code.
	reads := make([]*fileRead, 0, len(args.Files))
	var errs []error
	for _, req := range args.Files {
		req.Path = normalizePath(req.Path)
		fr, err := s.planRead(sn, req)
		if err != nil {
			errs = append(errs, err)
			fr = &fileRead{req: req, failed: err.Error(), err: err}
		}
		reads = append(reads, fr)
	}
	if len(errs) == len(reads) {
		return answer{}, errors.Join(errs...)
	}

	// The trailers alone must fit, or the answer could only break the budget.
	// Each count is taken once: a failed file's trailer, a later file's
	// trailer as not read, the first file's worst.
	notReadCost := make([]int, len(reads)) // failed: its error's trailer
	worst := make([]int, len(reads))       // -1: not counted yet
	need := 0
	for i, fr := range reads {
		worst[i] = -1
		switch {
		case fr.failed != "":
			notReadCost[i] = tokens.Count(trailer(fr))
			need += notReadCost[i]
		case i == 0:
			worst[i] = worstTrailer(fr)
			need += worst[i]
		default:
			notReadCost[i] = tokens.Count(trailer(&fileRead{req: fr.req, notRead: true}))
			need += notReadCost[i]
		}
	}
	if need > budget {
		return answer{}, fmt.Errorf("%w: budget_tokens %d cannot hold even the trailers of %d files (%d tokens); raise it or read fewer files",
			ErrBadRequest, budget, len(reads), need)
	}

	used := 0
	stopped := false // the budget ran out: later files are not read
	for i, fr := range reads {
		if fr.failed != "" {
			used += notReadCost[i]
			continue
		}
		later := 0
		for _, c := range notReadCost[i+1:] {
			later += c
		}
		if worst[i] < 0 {
			worst[i] = worstTrailer(fr)
		}
		room := budget - used - later - worst[i]
		if room <= 0 || stopped {
			fr.notRead = true
		} else {
			n, err := s.readOne(ctx, sn, fr, room)
			switch {
			case err == nil:
			case ctx.Err() != nil:
				return answer{}, err
			case !errors.Is(readError("", err), ErrRefused) && s.stale(sn):
				return answer{}, err // a new snapshot replaced this one: withSnapshot reruns the call
			default:
				// Listed in files.json but unreadable on disk (removed,
				// swapped, tampered with): this file's error, not the call's.
				fr.err = readError(fr.req.Path, err)
				fr.failed, fr.segs, fr.cut, fr.tooBig, fr.pastEnd = fr.err.Error(), nil, false, "", nil
				n = 0
			}
			used += n
		}
		stopped = stopped || fr.cut || fr.notRead
		used += tokens.Count(trailer(fr))
	}

	text, ends := render(reads)
	// Batch counts add up to about the whole text's count but BPE gives no
	// strict guarantee at the seams, so near the limit count the whole answer
	// and drop lines until it fits: no answer ever exceeds the budget.
	seams := 2*len(reads) + 1
	for _, fr := range reads {
		seams += fr.batches
	}
	if used+4*seams > budget {
		used = answerTokens(reads, text)
		for used > budget && trimLast(reads) {
			text, ends = render(reads)
			used = answerTokens(reads, text)
		}
		if used > budget { // nothing left to trim: drop the "line N alone needs" detail
			for _, fr := range reads {
				fr.tooBig = ""
			}
			text, ends = render(reads)
			used = answerTokens(reads, text)
		}
		if used > budget { // unreachable given the check on need above; never serve past the budget
			return answer{}, fmt.Errorf("%w: budget_tokens %d too small for this answer; raise it", ErrBadRequest, budget)
		}
	}
	releaseSegments(reads) // rendered into text: their buffers serve the next read
	var failed []error
	for _, fr := range reads {
		if fr.err != nil {
			failed = append(failed, fr.err)
		}
	}
	if len(failed) == len(reads) { // nothing was read: the call failed
		return answer{}, errors.Join(failed...)
	}
	res := ReadFileResult{BudgetTokens: budget, Tokens: used, Files: make([]FileResult, len(reads))}
	start := 0
	for i, fr := range reads {
		res.Files[i] = fr.result()
		res.Files[i].Text = text[start:ends[i]] // a slice of the answer: shared, not copied
		start = ends[i]
		res.Cut = res.Cut || fr.cut || fr.notRead
		res.Failed += btoi(fr.failed != "")
	}
	return answer{text: text, out: res}, nil
}

func (s *Server) budget(asked int) (int, error) {
	switch {
	case asked == 0:
		return s.opts.DefaultBudget, nil
	case asked < minBudgetTokens || asked > s.opts.MaxBudget:
		return 0, fmt.Errorf("%w: budget_tokens %d outside %d..%d", ErrBadRequest, asked, minBudgetTokens, s.opts.MaxBudget)
	}
	return asked, nil
}

// planRead resolves one request: the path, the merged ranges, the rules on
// oversize files. It touches only the manifest.
func (s *Server) planRead(sn *view, req FileRequest) (*fileRead, error) {
	_, canon, err := sn.lookup(req.Path)
	if err != nil {
		return nil, err
	}
	ce := sn.byPath[canon]
	ranges, err := mergeRanges(req.Ranges)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadRequest, echo(req.Path), err)
	}
	if len(ranges) == 0 {
		if ce.Oversize {
			return nil, fmt.Errorf("%w: %s is oversize (%d bytes, %d lines): it is served by range only, e.g. \"ranges\": [[1, %d]]",
				ErrBadRequest, echo(req.Path), ce.Size, ce.Lines, s.opts.MaxLines)
		}
		ranges = [][2]int{{1, s.opts.MaxLines}}
	}
	maxLine := ranges[len(ranges)-1][1]
	if ce.Lines > 0 {
		maxLine = min(maxLine, ce.Lines)
	}
	return &fileRead{req: req, entry: ce, canon: canon, ranges: ranges, asked: len(req.Ranges) > 0, width: numberWidth(maxLine)}, nil
}

// mergeRanges checks [start, end] pairs and merges overlapping or adjacent
// ones, in order.
func mergeRanges(in [][]int) ([][2]int, error) {
	if len(in) > maxRangesPerFile {
		return nil, fmt.Errorf("%d ranges, at most %d", len(in), maxRangesPerFile)
	}
	rs := make([][2]int, 0, len(in))
	for _, r := range in {
		if len(r) != 2 {
			return nil, fmt.Errorf("range %v: want [start, end]", r)
		}
		if r[0] < 1 || r[1] < r[0] {
			return nil, fmt.Errorf("range [%d, %d]: lines are 1-based and start <= end", r[0], r[1])
		}
		rs = append(rs, [2]int{r[0], r[1]})
	}
	slices.SortFunc(rs, func(a, b [2]int) int { return a[0] - b[0] })
	var out [][2]int
	for _, r := range rs {
		if n := len(out); n > 0 && r[0] <= out[n-1][1]+1 {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

// readOne streams fr's file, keeping the numbered lines of its ranges that
// fit in room tokens, and returns the tokens they cost.
func (s *Server) readOne(ctx context.Context, sn *view, fr *fileRead, room int) (int, error) {
	f, fi, err := sn.open(fr.canon)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	// An oversize file's line marks let a range start by seeking, and its
	// line count comes with them; a file whose size changed since
	// publication is read from the top instead.
	marks := sn.lines[fr.canon]
	if marks != nil && marks.Size != fi.Size() {
		marks = nil
	}
	// Each line's cost comes from linetokens.index when it holds this
	// file's counts (checked against their sum and files.json); else each
	// batch is counted.
	var lc *lineCosts
	if sn.tokens != nil && fr.entry != nil {
		bp := countBufs.Get().(*[]byte)
		defer countBufs.Put(bp)
		data, err := sn.tokens.Counts(fr.canon, fi.Size(), fr.entry.Lines, *bp)
		*bp = data
		if err == nil {
			lc = &lineCosts{counts: lineindex.NewCounts(data)}
		}
	}
	lr := pooledLineReader(f, s.opts.MaxLineChars)
	defer lr.release()
	used, line, eof := 0, 0, false
	rb := readBatches.Get().(*readBatch)
	defer readBatches.Put(rb)
	// The batch of numbered lines being counted, where each ends in it, and
	// each one's cost while lc knows them; kept grown for the next read.
	batch, ends, costs := rb.text[:0], rb.ends[:0], rb.costs[:0]
	defer func() {
		if cap(batch) > maxPooledSegBytes { // a batch of very long lines: not worth keeping
			batch = nil
		}
		rb.text, rb.ends, rb.costs = batch[:0], ends[:0], costs[:0]
	}()
	batchStart := 0
	// A segment's text is given room up front for its range's lines, at
	// the file's mean line length plus the numbering, or for what the
	// tokens left take at a few bytes each, whichever is less.
	meanLine := fi.Size()/int64(max(fr.entry.Lines, 1)) + 12
	textCap := 0

	// flush counts the batch and keeps what fits; it reports false once the
	// budget is spent.
	flush := func() bool {
		if len(ends) == 0 {
			return true
		}
		defer func() { batch, ends, costs = batch[:0], ends[:0], costs[:0] }()
		fr.batches++
		known := lc != nil && len(costs) == len(ends)
		var k, n int
		if known {
			k, n = fitCosts(costs, room-used)
		} else {
			k, n = fitLines(s.counter, batch, ends, room-used)
		}
		if k < len(ends) {
			fr.cut = true
			if k == 0 && len(fr.segs) == 0 {
				first := 0
				if known {
					first = costs[0]
				} else {
					first = tokens.Count(string(batch[:ends[0]]))
				}
				fr.tooBig = fmt.Sprintf("line %d alone needs %d tokens, more than the %d left", batchStart, first, room-used)
			}
		}
		if k > 0 {
			kept := batch[:ends[k-1]]
			var keptCosts []int
			if known {
				keptCosts = costs[:k]
			} else {
				fr.inexact = true
			}
			if last := len(fr.segs) - 1; last >= 0 && fr.segs[last].start+fr.segs[last].n == batchStart {
				fr.segs[last].text = append(fr.segs[last].text, kept...)
				fr.segs[last].costs = append(fr.segs[last].costs, keptCosts...)
				fr.segs[last].n += k
			} else {
				// Room for the rest of the range at once, as far as the
				// budget can reach, so the text is not copied as it grows.
				text := getSegText(max(len(kept), min(textCap, 8*(room-used)+4096, maxSegmentCap)))
				fr.segs = append(fr.segs, segment{start: batchStart, n: k, text: append(text, kept...), costs: cloneCosts(keptCosts)})
			}
			used += n
		}
		return !fr.cut
	}

ranges:
	for _, r := range fr.ranges {
		textCap = int(min(meanLine*int64(r[1]-r[0]+1), 1<<30))
		if marks != nil {
			if at, off := marks.Seek(r[0]); at-1 > line {
				if _, err := f.Seek(off, io.SeekStart); err != nil {
					return 0, err
				}
				lr.reset(f)
				line = at - 1
			}
		}
		for skipped := 0; line < r[0]-1 && !eof; skipped++ {
			if skipped%4096 == 4095 {
				if err := ctx.Err(); err != nil {
					return 0, err
				}
			}
			ok, err := lr.skip()
			if err != nil {
				return 0, err
			}
			if ok {
				line++
			} else {
				eof = true
			}
		}
		if eof {
			if fr.asked {
				fr.pastEnd = append(fr.pastEnd, r)
			}
			continue
		}
		for line < r[1] {
			if len(ends) == 0 && line%batchLines == 0 {
				if err := ctx.Err(); err != nil {
					return 0, err
				}
			}
			text, cutChars, ok, err := lr.next()
			if err != nil {
				return 0, err
			}
			if !ok {
				eof = true
				if line < r[0] && fr.asked {
					fr.pastEnd = append(fr.pastEnd, r)
				}
				break
			}
			line++
			if len(ends) == 0 {
				batchStart = line
			}
			lineStart := len(batch)
			batch = appendNumbered(batch, line, fr.width, text, cutChars)
			ends = append(ends, len(batch))
			if lc != nil {
				length, count, ok := lc.at(line)
				switch {
				case !ok || (cutChars == 0 && length != int64(len(text))):
					lc = nil // not this text's counts after all: count the batches
				case cutChars == 0 && count >= 0:
					costs = append(costs, prefixTokens(fr.width, line)+count)
				default: // cut, or too long to have been counted: count what is shown
					costs = append(costs, tokens.Count(string(batch[lineStart:])))
				}
			}
			if len(ends) == batchLines && !flush() {
				break ranges
			}
		}
		if !flush() {
			break
		}
	}
	fr.total = line
	switch {
	case marks != nil:
		fr.total = max(line, marks.Lines)
	case lc != nil:
		// The counts were taken from this text (its hash, its size and
		// line count are files.json's), so files.json's count holds: the
		// rest of the file need not be read.
		fr.total = max(line, fr.entry.Lines)
	case !eof:
		rest, err := lr.countRest(ctx)
		if err != nil {
			return 0, err
		}
		fr.total += rest
	}
	return used, nil
}

// readError says in this server's words why a listed file could not be
// read: os.Root's errors name syscalls ("statat", "openat") and paths the
// caller never gave. A refusal stays ErrRefused.
func readError(name string, err error) error {
	var pe *fs.PathError
	switch {
	case errors.Is(err, ErrRefused):
		return err
	case errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes"):
		return fmt.Errorf("%w: %s leads outside the snapshot", ErrRefused, echo(name))
	case errors.Is(err, fs.ErrNotExist):
		return errors.New(echo(name) + " is listed in files.json but missing from the snapshot's tree")
	case errors.Is(err, fs.ErrPermission):
		return errors.New(echo(name) + " is not readable by the server (permission denied)")
	case errors.As(err, &pe):
		return errors.New(echo(name) + " could not be read: " + pe.Err.Error())
	}
	return errors.New(echo(name) + " could not be read: " + err.Error())
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// trimLast drops the last shown line of the answer; it reports false when
// nothing is left to drop.
func trimLast(reads []*fileRead) bool {
	for i := len(reads) - 1; i >= 0; i-- {
		fr := reads[i]
		if len(fr.segs) == 0 {
			continue
		}
		seg := &fr.segs[len(fr.segs)-1]
		cut := strings.LastIndexByte(string(seg.text[:len(seg.text)-1]), '\n') + 1
		seg.text = seg.text[:cut]
		if len(seg.costs) > 0 {
			seg.costs = seg.costs[:len(seg.costs)-1]
		}
		seg.n--
		if seg.n == 0 {
			fr.segs = fr.segs[:len(fr.segs)-1]
		}
		fr.cut = true
		return true
	}
	return false
}

func (fr *fileRead) shown() [][]int {
	out := [][]int{}
	for _, sg := range fr.segs {
		out = append(out, []int{sg.start, sg.start + sg.n - 1})
	}
	return out
}

// next is the line to continue from, or 0 when the read reached the end.
func (fr *fileRead) next() int {
	last := 0
	if n := len(fr.segs); n > 0 {
		last = fr.segs[n-1].start + fr.segs[n-1].n - 1
	} else if fr.cut && len(fr.ranges) > 0 {
		return fr.ranges[0][0] // nothing fit: start where it was asked
	}
	if last > 0 && fr.cut {
		// Cut by the budget right at the end of a requested range: go on
		// with the next range asked for, not the gap between them.
		for i, r := range fr.ranges {
			if last == r[1] && i+1 < len(fr.ranges) {
				return fr.ranges[i+1][0]
			}
		}
	}
	if last > 0 && last < fr.total {
		return last + 1
	}
	return 0
}

func (fr *fileRead) result() FileResult {
	if fr.failed != "" {
		return FileResult{Path: fr.req.Path, Shown: [][]int{}, Error: fr.failed}
	}
	r := FileResult{Path: fr.req.Path, TotalLines: fr.total, Shown: fr.shown(), NotRead: fr.notRead, Encoding: fr.decodedFrom()}
	if fr.canon != fr.req.Path {
		r.DuplicateOf = fr.canon
	}
	if !fr.notRead {
		r.Next = fr.next()
	}
	if fr.cut || fr.notRead {
		r.Cut = "token budget"
	}
	return r
}

// decodedFrom is the encoding files.json says the served text was decoded
// from, or "" when it was UTF-8 already (or not decoded: an extracted
// document).
func (fr *fileRead) decodedFrom() string {
	if fr.entry == nil || fr.entry.Encoding == "" || strings.EqualFold(fr.entry.Encoding, "utf-8") {
		return ""
	}
	return fr.entry.Encoding
}

// trailer is the line that ends each file, e.g.
// [file: a/b.go | total: 812 lines | shown: 1-500 | next: start 501], with
// "| encoding: windows-1252, shown as UTF-8" after the total when the
// source was not UTF-8 and "| masked: 2 secrets as [REDACTED:<rule>]" when
// the staged text has masked spans.
func trailer(fr *fileRead) string {
	if fr.failed != "" {
		return "[error: " + fr.failed + "]"
	}
	var b strings.Builder
	b.WriteString("[file: ")
	b.WriteString(fr.req.Path)
	if fr.canon != "" && fr.canon != fr.req.Path {
		b.WriteString(" | duplicate of: ")
		b.WriteString(fr.canon)
		b.WriteString(" (same content, served from there)")
	}
	if fr.notRead {
		b.WriteString(" | not read: token budget spent; read it in another call]")
		return b.String()
	}
	fmt.Fprintf(&b, " | total: %d %s", fr.total, plural(fr.total, "line", "lines"))
	if enc := fr.decodedFrom(); enc != "" {
		// Decoding changed every byte outside ASCII: an agent that writes
		// the file back must know the original is not UTF-8.
		fmt.Fprintf(&b, " | encoding: %s, shown as UTF-8", enc)
	}
	if fr.entry != nil && fr.entry.Masked > 0 {
		// The one change to the text beyond decoding: say it where it is read.
		fmt.Fprintf(&b, " | masked: %d %s as [REDACTED:<rule>]", fr.entry.Masked, plural(fr.entry.Masked, "secret", "secrets"))
	}
	b.WriteString(" | shown: ")
	if len(fr.segs) == 0 {
		b.WriteString("none")
	}
	for i, sg := range fr.segs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(sg.start))
		if sg.n > 1 {
			b.WriteString("-" + strconv.Itoa(sg.start+sg.n-1))
		}
	}
	for _, r := range fr.pastEnd {
		fmt.Fprintf(&b, " | past the end: %d-%d", r[0], r[1])
	}
	if n := fr.next(); n > 0 {
		fmt.Fprintf(&b, " | next: start %d", n)
	}
	if fr.cut {
		b.WriteString(" | cut: token budget")
		if fr.tooBig != "" {
			b.WriteString(" (" + fr.tooBig + "; raise budget_tokens or read fewer files)")
		}
	}
	b.WriteString("]")
	return b.String()
}

// worstTrailer bounds in tokens the trailer fr can end with, so the lines
// read never crowd it out. Numbers cost by their digit count (o200k splits
// them in groups of three), so each is taken as all nines with as many
// digits as the largest line number the file can show; each range adds one
// shown segment or one past-the-end note. The "line N alone needs" detail is
// left out: it only appears when no line was shown, and the final recount in
// readFile drops it if it would not fit. A file that failed costs its error.
func worstTrailer(fr *fileRead) int {
	if fr.failed != "" {
		return tokens.Count(trailer(fr))
	}
	top := 1
	if fr.entry != nil {
		top = max(top, fr.entry.Lines)
	}
	for _, r := range fr.ranges {
		top = max(top, r[1])
	}
	big := 9
	for n := top; n >= 10; n /= 10 {
		big = big*10 + 9
	}
	w := *fr
	w.total, w.cut, w.tooBig, w.segs, w.pastEnd = big, true, "", nil, nil
	for range fr.ranges {
		w.segs = append(w.segs, segment{start: big, n: 2})
		if fr.asked {
			w.pastEnd = append(w.pastEnd, [2]int{big, big})
		}
	}
	return tokens.Count(trailer(&w)) + tokens.Count(" | next: start "+strconv.Itoa(big)) + 4
}

// answerTokens is tokens.Count(text) for text = render(reads): by adding
// up the lines' costs and the trailers' counts when every shown line's
// cost is known (the parts meet at cuts, so the sum is exact), else by
// counting text.
func answerTokens(reads []*fileRead, text string) int {
	n := 0
	for _, fr := range reads {
		if fr.inexact {
			return tokens.Count(text)
		}
		for _, sg := range fr.segs {
			if len(sg.costs) != sg.n {
				return tokens.Count(text)
			}
			for _, c := range sg.costs {
				n += c
			}
		}
		n += tokens.Count(trailer(fr) + "\n")
	}
	return n
}

// render joins every file's lines and trailer into the answer text; ends[i]
// is where file i's part of it ends.
func render(reads []*fileRead) (text string, ends []int) {
	var b strings.Builder
	trailers := make([]string, len(reads))
	size := 0
	for i, fr := range reads {
		trailers[i] = trailer(fr)
		size += len(trailers[i]) + 1
		for _, sg := range fr.segs {
			size += len(sg.text)
		}
	}
	b.Grow(size)
	ends = make([]int, len(reads))
	for i, fr := range reads {
		for _, sg := range fr.segs {
			b.Write(sg.text)
		}
		b.WriteString(trailers[i])
		b.WriteByte('\n')
		ends[i] = b.Len()
	}
	return b.String(), ends
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ReadFile runs read_file outside MCP and HTTP, as `repoprep read` does:
// same validation, budget and answer, logged as via "cli".
func (s *Server) ReadFile(ctx context.Context, args ReadFileArgs) (string, ReadFileResult, error) {
	ans, err := s.call(ctx, "cli", "read_file", nil, func(ctx context.Context, sn *view) (answer, error) {
		return s.readFile(ctx, sn, args)
	})
	if err != nil {
		return "", ReadFileResult{}, err
	}
	return ans.text, ans.out.(ReadFileResult), nil
}
