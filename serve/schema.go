package serve

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Tool descriptions: what a model reads before its first call, so each one
// states the limits it will run into.
const (
	readFileDoc = `Read up to %[1]d files from the repository snapshot, with numbered lines.
Each file is {"path": "a/b.go"} for its first %[2]d lines, or {"path": "a/b.go", "ranges": [[10, 50], [90, 120]]} for those lines (1-based, inclusive; overlapping or adjacent ranges are merged).
Lines come back as "  10 | text"; lines longer than %[3]d characters are cut with a marker.
The whole answer fits budget_tokens (o200k tokens, default %[4]d, max %[5]d): reading stops at the last whole line that fits.
Each file ends with a trailer such as [file: a/b.go | total: 812 lines | shown: 1-500 | next: start 501]; continue with ranges [[501, 1000]]. "cut: token budget" means the budget stopped it; no "next" means the end was reached.
Oversize files (marked by list_files) are served by range only. A duplicate path is served from its canonical copy and the trailer says so.
Paths are relative to the repository root with "/" separators, exactly as list_files prints them.`

	listFilesDoc = `List the readable files of the repository snapshot in path order, each with size in bytes, lines and o200k tokens, so you can budget reads.
All arguments are optional: prefix ("src/api/"), glob ("**/*.go"; "*" stays within a directory, "**" crosses directories, a glob without "/" matches the file name), category (source, text, document, data, junk), test (true: only tests and fixtures; false: none of them).
Paged: limit (default %d, max %d) and offset; the last line gives the next offset.`

	searchDoc = `Search the staged files with an RE2 regular expression (case-sensitive; start it with (?i) to ignore case; matched line by line).
Answers grep-style: "path:line:text" for matching lines, "path-line-text" for context lines, "--" between groups.
path_glob restricts the files (same syntax as list_files' glob); context_lines (0-%d) adds lines around each match; max_results (1-%d, default %d) caps the matching lines shown.
The answer is also capped at %d tokens. The last line says how many matches were left out and how to narrow the search.`

	repoMapDoc = `The repository map (REPO_MAP.md): top-level modules with file counts and main language, where tests live, entry points, agent instruction files, how to read more.
A few hundred tokens; read it first.`
)

// readFileSchema is read_file's input schema: inferred from ReadFileArgs,
// then given the bounds and descriptions inference cannot know.
func readFileSchema(o Options) (*jsonschema.Schema, error) {
	sc, err := jsonschema.For[ReadFileArgs](nil)
	if err != nil {
		return nil, err
	}
	files := sc.Properties["files"]
	files.Description = fmt.Sprintf("Files to read, 1 to %d.", o.MaxFiles)
	files.MinItems, files.MaxItems = ptr(1), ptr(o.MaxFiles)
	notNull(files, "array")
	file := files.Items
	path := file.Properties["path"]
	path.Description = `Path relative to the repository root, e.g. "src/app/main.go".`
	path.MinLength, path.MaxLength = ptr(1), ptr(maxPathBytes)
	ranges := file.Properties["ranges"]
	ranges.Description = fmt.Sprintf("Optional line ranges [start, end], 1-based and inclusive, at most %d. Without ranges the first %d lines are read.", maxRangesPerFile, o.MaxLines)
	ranges.MaxItems = ptr(maxRangesPerFile)
	notNull(ranges, "array")
	pair := ranges.Items
	pair.MinItems, pair.MaxItems = ptr(2), ptr(2)
	notNull(pair, "array")
	pair.Items.Minimum = ptr(1.0)
	budget := sc.Properties["budget_tokens"]
	budget.Description = fmt.Sprintf("Token budget (o200k) for the whole answer, default %d, max %d.", o.DefaultBudget, o.MaxBudget)
	budget.Minimum, budget.Maximum = ptr(float64(minBudgetTokens)), ptr(float64(o.MaxBudget))
	budget.Default = mustJSON(o.DefaultBudget)
	return sc, nil
}

func listFilesSchema() (*jsonschema.Schema, error) {
	sc, err := jsonschema.For[ListFilesArgs](nil)
	if err != nil {
		return nil, err
	}
	p := sc.Properties
	p["prefix"].Description = `Only paths starting with this, e.g. "src/" (plain string prefix).`
	p["prefix"].MaxLength = ptr(maxPathBytes)
	p["glob"].Description = `Only paths matching this glob, e.g. "**/*_test.go" or "*.md".`
	p["glob"].MaxLength = ptr(maxPatternBytes)
	p["category"].Description = "Only this category."
	p["category"].Enum = []any{}
	for _, c := range categories {
		p["category"].Enum = append(p["category"].Enum, c)
	}
	p["test"].Description = "true: only test files and fixtures; false: leave them out."
	notNull(p["test"], "boolean")
	p["offset"].Description = "Files to skip, for paging."
	p["offset"].Minimum = ptr(0.0)
	p["limit"].Description = fmt.Sprintf("Files per page, default %d, max %d.", defaultListLimit, maxListLimit)
	p["limit"].Minimum, p["limit"].Maximum = ptr(1.0), ptr(float64(maxListLimit))
	p["limit"].Default = mustJSON(defaultListLimit)
	return sc, nil
}

// searchSchema is search's input schema; exampleGlob is a path_glob that
// fits the snapshot served at start (view.exampleGlob), so the example
// speaks the repository's language.
func searchSchema(exampleGlob string) (*jsonschema.Schema, error) {
	sc, err := jsonschema.For[SearchArgs](nil)
	if err != nil {
		return nil, err
	}
	p := sc.Properties
	p["pattern"].Description = `RE2 regular expression, e.g. "func \\w+Handler" or "(?i)todo".`
	p["pattern"].MinLength, p["pattern"].MaxLength = ptr(1), ptr(maxPatternBytes)
	p["path_glob"].Description = fmt.Sprintf("Only files matching this glob, e.g. %q.", exampleGlob)
	p["path_glob"].MaxLength = ptr(maxPatternBytes)
	p["context_lines"].Description = fmt.Sprintf("Lines of context before and after each match, 0-%d.", maxContextLines)
	p["context_lines"].Minimum, p["context_lines"].Maximum = ptr(0.0), ptr(float64(maxContextLines))
	p["max_results"].Description = fmt.Sprintf("Most matching lines to show, 1-%d, default %d.", maxMaxResults, defaultMaxResults)
	p["max_results"].Minimum, p["max_results"].Maximum = ptr(1.0), ptr(float64(maxMaxResults))
	p["max_results"].Default = mustJSON(defaultMaxResults)
	return sc, nil
}

// readFileOutputSchema is read_file's outputSchema: inferred from
// ReadFileResult, then narrowed to what the server sends (arrays are never
// null, a cut has one reason) and described, since a client may show the
// model this structured result instead of the text.
func readFileOutputSchema() (*jsonschema.Schema, error) {
	sc, err := jsonschema.For[ReadFileResult](nil)
	if err != nil {
		return nil, err
	}
	sc.Description = "The answer as fields: each file's text (numbered lines and trailer) and what its trailer says. The files' texts joined are the text content."
	p := sc.Properties
	p["files"].Description = "One entry per file asked for, in the order asked."
	notNull(p["files"], "array")
	p["budget_tokens"].Description = "The token budget the answer was held to."
	p["tokens"].Description = "o200k tokens the text content costs."
	p["cut"].Description = "The budget stopped the answer before every range asked for was shown."
	p["failed"].Description = "Files answered with an error instead of lines."
	f := p["files"].Items.Properties
	f["path"].Description = "The path as asked for, tidied (./a.txt is a.txt)."
	f["duplicate_of"].Description = "The canonical copy served for a duplicate path."
	f["total_lines"].Description = "Lines in the file."
	f["shown"].Description = "The [start, end] line ranges shown, 1-based and inclusive."
	notNull(f["shown"], "array")
	notNull(f["shown"].Items, "array")
	f["shown"].Items.MinItems, f["shown"].Items.MaxItems = ptr(2), ptr(2)
	f["next"].Description = "The line to continue from; absent when the read reached the end."
	f["cut"].Description = "Why this file's lines stop short."
	f["cut"].Enum = []any{"token budget"}
	f["not_read"].Description = "The budget was spent before this file: read it in another call."
	f["error"].Description = "Why this file could not be read; the other files were."
	f["encoding"].Description = "The encoding the source was decoded from, when it was not UTF-8; the text is UTF-8."
	f["text"].Description = `This file's part of the answer: its lines as "  10 | text", then its trailer line.`
	return sc, nil
}

// searchOutputSchema is search's outputSchema, narrowed and described like
// read_file's.
func searchOutputSchema() (*jsonschema.Schema, error) {
	sc, err := jsonschema.For[SearchResult](nil)
	if err != nil {
		return nil, err
	}
	sc.Description = "The answer as fields: every line the text shows, the files that could not be searched, the summary line, the counts."
	p := sc.Properties
	p["lines"].Description = `The lines shown, in order: matches and the context around them. The text shows a match as path:line:text, context as path-line-text, and "--" where a file or a run of lines starts.`
	notNull(p["lines"], "array")
	l := p["lines"].Items.Properties
	l["path"].Description = "The file."
	l["line"].Description = "The line number, 1-based."
	l["line"].Minimum = ptr(1.0)
	l["text"].Description = "The line as shown: a long line is cut around its match."
	l["match"].Description = "true for a matching line, false for context."
	p["matches"].Description = "Matching lines shown."
	p["total_matches"].Description = "Matching lines found."
	p["files"].Description = "Files with at least one match."
	p["files_searched"].Description = "Files in scope of path_glob."
	p["left_out"].Description = "Matching lines found but not shown."
	p["cut"].Description = "What stopped the output."
	p["cut"].Enum = []any{"max_results", "token budget"}
	p["incomplete"].Description = "Counting stopped at its limit: total_matches is a floor."
	p["failed"].Description = "Files that could not be searched."
	p["errors"].Description = "Why, for the first few of them."
	notNull(p["errors"], "array")
	p["summary"].Description = "The text's last line: what the search covered, what it left out and how to narrow it."
	return sc, nil
}

// notNull narrows a type jsonschema inferred as nullable (from a slice or
// pointer) to typ: a null there is a mistake worth reporting, not an absence.
func notNull(sc *jsonschema.Schema, typ string) {
	sc.Types, sc.Type = nil, typ
}

func ptr[T any](v T) *T { return &v }

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called on ints
	}
	return b
}
