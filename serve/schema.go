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

func searchSchema() (*jsonschema.Schema, error) {
	sc, err := jsonschema.For[SearchArgs](nil)
	if err != nil {
		return nil, err
	}
	p := sc.Properties
	p["pattern"].Description = `RE2 regular expression, e.g. "func \\w+Handler" or "(?i)todo".`
	p["pattern"].MinLength, p["pattern"].MaxLength = ptr(1), ptr(maxPatternBytes)
	p["path_glob"].Description = `Only files matching this glob, e.g. "src/**/*.go".`
	p["path_glob"].MaxLength = ptr(maxPatternBytes)
	p["context_lines"].Description = fmt.Sprintf("Lines of context before and after each match, 0-%d.", maxContextLines)
	p["context_lines"].Minimum, p["context_lines"].Maximum = ptr(0.0), ptr(float64(maxContextLines))
	p["max_results"].Description = fmt.Sprintf("Most matching lines to show, 1-%d, default %d.", maxMaxResults, defaultMaxResults)
	p["max_results"].Minimum, p["max_results"].Maximum = ptr(1.0), ptr(float64(maxMaxResults))
	p["max_results"].Default = mustJSON(defaultMaxResults)
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
