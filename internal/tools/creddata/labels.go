package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// leftAsideCategory is the Category whose rows count neither way: a UUID is
// an identifier far more often than a secret, and repoprep does not report one.
const leftAsideCategory = "UUID"

// lineKey is one line of one file, the unit a finding lands on.
type lineKey struct {
	path string // slash path below CredData's data/, "<repo id>/<scope>/<file id><ext>"
	line int    // 1-based
}

// unit is one positive: a True single-line label (every True row on that
// line together), or a True multi-line label (LineStart..LineEnd), found
// when a finding lies on any of its lines.
type unit struct {
	path        string
	start, end  int
	categories  []string // the rows' Category values, sorted, each once
	isMultiline bool
}

// labels is what the meta CSVs say, once rows of files absent from the data
// directory are left out.
type labels struct {
	units   []unit
	isTrue  map[lineKey]bool // every line of a True label (UUID aside)
	isAside map[lineKey]bool // lines of UUID rows that no other True row claims
	isFalse map[lineKey]bool // lines of F and X labels
	repos   map[string]bool  // repository ids with rows kept

	totalRows, totalRepos      int // in meta
	rows, files                int // kept
	trueRows, multiT           int // kept True rows (UUID aside), and of them multi-line
	asideRows                  int // UUID rows kept but not counted
	leftRows, leftTrue         int // rows of absent files
	leftFiles                  map[string]bool
	leftByRepo, leftTrueByRepo map[string]int
}

// row is the part of a meta CSV row the score reads.
type row struct {
	path       string
	start, end int
	truth      string // T, F or X
	category   string
}

// readMeta reads every *.csv under dir. exists, when not nil, says whether a
// labelled file is on disk; rows of files it denies are left out and counted.
func readMeta(dir string, exists func(path string) bool) (*labels, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("read meta %s: no *.csv files", dir)
	}
	slices.Sort(names)
	l := &labels{
		isTrue: map[lineKey]bool{}, isAside: map[lineKey]bool{}, isFalse: map[lineKey]bool{},
		repos: map[string]bool{}, leftFiles: map[string]bool{},
		leftByRepo: map[string]int{}, leftTrueByRepo: map[string]int{},
	}
	var kept []row
	seenFile := map[string]bool{}
	present := map[string]bool{}
	for _, name := range names {
		rows, err := readCSV(name)
		if err != nil {
			return nil, err
		}
		l.totalRepos++
		for _, r := range rows {
			l.totalRows++
			isPresent, known := present[r.path]
			if !known {
				isPresent = exists == nil || exists(r.path)
				present[r.path] = isPresent
			}
			repo, _, _ := strings.Cut(r.path, "/")
			if !isPresent {
				l.leftRows++
				l.leftFiles[r.path] = true
				l.leftByRepo[repo]++
				if r.truth == "T" {
					l.leftTrue++
					l.leftTrueByRepo[repo]++
				}
				continue
			}
			l.rows++
			l.repos[repo] = true
			if !seenFile[r.path] {
				seenFile[r.path] = true
				l.files++
			}
			kept = append(kept, r)
		}
	}
	l.index(kept)
	return l, nil
}

// index turns rows into line sets and units. A True label covers every line
// from LineStart to LineEnd; a UUID row's lines count neither way unless
// another True row claims them.
func (l *labels) index(rows []row) {
	single := map[lineKey][]string{}
	type span struct {
		path       string
		start, end int
	}
	multi := map[span][]string{}
	var aside []row
	for _, r := range rows {
		if r.category == leftAsideCategory {
			l.asideRows++
			aside = append(aside, r)
			continue
		}
		switch r.truth {
		case "T":
			l.trueRows++
			for n := r.start; n <= r.end; n++ {
				l.isTrue[lineKey{r.path, n}] = true
			}
			if r.start == r.end {
				k := lineKey{r.path, r.start}
				single[k] = append(single[k], r.category)
			} else {
				l.multiT++
				s := span{r.path, r.start, r.end}
				multi[s] = append(multi[s], r.category)
			}
		default:
			for n := r.start; n <= r.end; n++ {
				l.isFalse[lineKey{r.path, n}] = true
			}
		}
	}
	for _, r := range aside {
		for n := r.start; n <= r.end; n++ {
			if k := (lineKey{r.path, n}); !l.isTrue[k] {
				l.isAside[k] = true
			}
		}
	}
	for k, cats := range single {
		l.units = append(l.units, unit{path: k.path, start: k.line, end: k.line, categories: uniq(cats)})
	}
	for s, cats := range multi {
		l.units = append(l.units, unit{path: s.path, start: s.start, end: s.end, categories: uniq(cats), isMultiline: true})
	}
	slices.SortFunc(l.units, func(a, b unit) int {
		if c := strings.Compare(a.path, b.path); c != 0 {
			return c
		}
		if a.start != b.start {
			return a.start - b.start
		}
		return a.end - b.end
	})
}

func uniq(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// readCSV reads one meta file by its header, so added columns do no harm.
func readCSV(name string) ([]row, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("read meta %s: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	for _, want := range []string{"FilePath", "LineStart", "LineEnd", "GroundTruth", "Category"} {
		if _, ok := col[want]; !ok {
			return nil, fmt.Errorf("read meta %s: no %s column", name, want)
		}
	}
	var rows []row
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read meta %s: %w", name, err)
		}
		get := func(k string) string {
			if i := col[k]; i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		start, err1 := strconv.Atoi(get("LineStart"))
		end, err2 := strconv.Atoi(get("LineEnd"))
		if err := errors.Join(err1, err2); err != nil || start < 1 || end < start {
			line, _ := r.FieldPos(0)
			return nil, fmt.Errorf("read meta %s:%d: bad LineStart/LineEnd %q/%q", name, line, get("LineStart"), get("LineEnd"))
		}
		rows = append(rows, row{
			path:     dataRel(get("FilePath")),
			start:    start,
			end:      end,
			truth:    get("GroundTruth"),
			category: get("Category"),
		})
	}
}

// dataRel is a meta FilePath ("data/<repo id>/...") below CredData's data
// directory, the form findings are matched in.
func dataRel(p string) string {
	p = filepath.ToSlash(p)
	p = strings.TrimPrefix(p, "./")
	return strings.TrimPrefix(p, "data/")
}

// onDisk says whether a labelled file is present under dataDir.
func onDisk(dataDir string) func(string) bool {
	return func(rel string) bool {
		_, err := os.Stat(filepath.Join(dataDir, filepath.FromSlash(rel)))
		return !errors.Is(err, fs.ErrNotExist)
	}
}
