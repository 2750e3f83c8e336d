package serve

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// ListFilesArgs is list_files' input; every field is optional.
type ListFilesArgs struct {
	Prefix   string `json:"prefix,omitempty"`
	Glob     string `json:"glob,omitempty"`
	Category string `json:"category,omitempty"`
	Test     *bool  `json:"test,omitempty"`
	Offset   int    `json:"offset,omitempty"`
	Limit    int    `json:"limit,omitempty"`
}

// ListFilesResult is one page of readable files.
type ListFilesResult struct {
	Files      []ListedFile `json:"files"`
	Total      int          `json:"total"` // files matching the filters
	Offset     int          `json:"offset"`
	NextOffset int          `json:"next_offset,omitempty"` // 0 on the last page
}

// ListedFile is one readable path with what it costs to read.
type ListedFile struct {
	Path        string `json:"path"`
	Size        int64  `json:"size"`
	Lines       int    `json:"lines"`
	Tokens      int    `json:"tokens"`
	Category    string `json:"category"`
	Test        bool   `json:"test,omitempty"`
	Oversize    bool   `json:"oversize,omitempty"`
	DuplicateOf string `json:"duplicate_of,omitempty"`
}

var categories = []string{"source", "text", "document", "data", "junk"}

// listFiles is the list_files tool: readable paths (staged files and their
// duplicates) filtered and paged in path order.
func (s *Server) listFiles(_ context.Context, sn *view, args ListFilesArgs) (answer, error) {
	limit := args.Limit
	switch {
	case limit == 0:
		limit = defaultListLimit
	case limit < 1 || limit > maxListLimit:
		return answer{}, fmt.Errorf("%w: limit %d outside 1..%d", ErrBadRequest, limit, maxListLimit)
	}
	if args.Offset < 0 {
		return answer{}, fmt.Errorf("%w: offset %d is negative", ErrBadRequest, args.Offset)
	}
	var match *regexp.Regexp
	if args.Glob != "" {
		var err error
		if match, err = compileGlob(args.Glob); err != nil {
			return answer{}, err
		}
	}
	res := ListFilesResult{Files: []ListedFile{}, Offset: args.Offset}
	var b strings.Builder
	for _, e := range sn.readable {
		if !strings.HasPrefix(e.Path, args.Prefix) ||
			(match != nil && !match.MatchString(e.Path)) ||
			(args.Category != "" && e.Category != args.Category) ||
			(args.Test != nil && e.Test != *args.Test) {
			continue
		}
		res.Total++
		if res.Total <= args.Offset || len(res.Files) == limit {
			continue
		}
		lf := ListedFile{Path: e.Path, Size: e.Size, Lines: e.Lines, Tokens: e.Tokens,
			Category: e.Category, Test: e.Test, Oversize: e.Oversize}
		if c := sn.canonical(e); c != e.Path {
			lf.DuplicateOf = c
		}
		res.Files = append(res.Files, lf)
		fmt.Fprintf(&b, "%s | %d bytes | %d lines | %d tokens | %s", lf.Path, lf.Size, lf.Lines, lf.Tokens, lf.Category)
		if lf.Test {
			b.WriteString(" | test")
		}
		if lf.Oversize {
			b.WriteString(" | oversize: read by range")
		}
		if lf.DuplicateOf != "" {
			b.WriteString(" | duplicate of " + lf.DuplicateOf)
		}
		b.WriteByte('\n')
	}
	switch {
	case res.Total == 0:
		b.WriteString("[files: none match; loosen prefix, glob, category or test]\n")
	case len(res.Files) == 0:
		fmt.Fprintf(&b, "[files: offset %d is past the %d matching files]\n", args.Offset, res.Total)
	default:
		end := args.Offset + len(res.Files)
		fmt.Fprintf(&b, "[files: %d-%d of %d", args.Offset+1, end, res.Total)
		if end < res.Total {
			res.NextOffset = end
			fmt.Fprintf(&b, " | next: offset %d", end)
		}
		b.WriteString("]\n")
	}
	return answer{text: b.String(), out: res}, nil
}

// RepoMapResult is repo_map's structured output.
type RepoMapResult struct {
	Bytes int `json:"bytes"`
}

// repoMap is the repo_map tool: REPO_MAP.md as loaded with the snapshot.
func (s *Server) repoMap(_ context.Context, sn *view) (answer, error) {
	text := sn.repoMap
	if text == "" {
		text = "REPO_MAP.md is missing from this snapshot; use list_files to look around.\n"
	}
	return answer{text: text, out: RepoMapResult{Bytes: len(sn.repoMap)}}, nil
}

// compileGlob turns a path glob into an anchored regexp: '*' and '?' stay
// within one path segment, '**' spans segments ("src/**/*.go" matches
// src/a.go and src/x/y/a.go), and a glob without '/' matches the base name.
func compileGlob(glob string) (*regexp.Regexp, error) {
	if len(glob) > maxPatternBytes {
		return nil, fmt.Errorf("%w: glob longer than %d bytes", ErrBadRequest, maxPatternBytes)
	}
	var b strings.Builder
	if !strings.Contains(glob, "/") {
		b.WriteString(`^(?:.*/)?`)
	} else {
		b.WriteString(`^`)
	}
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch {
		case strings.HasPrefix(glob[i:], "**/"):
			b.WriteString(`(?:.*/)?`)
			i += 2
		case strings.HasPrefix(glob[i:], "**"):
			b.WriteString(`.*`)
			i++
		case c == '*':
			b.WriteString(`[^/]*`)
		case c == '?':
			b.WriteString(`[^/]`)
		case c == '[':
			j := strings.IndexByte(glob[i:], ']')
			if j < 2 {
				return nil, fmt.Errorf("%w: glob %q: unclosed or empty [", ErrBadRequest, glob)
			}
			class := glob[i+1 : i+j]
			if class[0] == '!' {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j
		case c == '{':
			j := strings.IndexByte(glob[i:], '}')
			if j < 0 {
				return nil, fmt.Errorf("%w: glob %q: unclosed {", ErrBadRequest, glob)
			}
			alts := strings.Split(glob[i+1:i+j], ",")
			for k, a := range alts {
				alts[k] = regexp.QuoteMeta(a)
			}
			b.WriteString("(?:" + strings.Join(alts, "|") + ")")
			i += j
		default:
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		}
	}
	b.WriteString(`$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("%w: glob %q: %v", ErrBadRequest, glob, err)
	}
	return re, nil
}
