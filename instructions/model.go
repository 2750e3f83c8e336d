// Package instructions owns instructions.json: the index of the files coding
// agents read as instructions (CLAUDE.md and its imports, CLAUDE.local.md,
// .claude/rules, AGENTS.md, .cursorrules, .cursor/rules, Copilot's
// instructions), built from a published snapshot at publish time and read by
// the server to answer "which instructions apply to this path?".
//
// It is a leaf below pipeline and serve: the pipeline builds and writes the
// index, the server reads it and never needs the pipeline. docs/instructions.md
// says where each agent family's rules come from.
package instructions

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Schema is written into instructions.json; Parse refuses any other. v2
// stores each text once: a file's own @imports beside it, every imported
// text once in Index.Imported, and each file's chain as paths into them
// (v1 repeated every imported text's imports under every file loading it).
const Schema = "repoprep.instructions/v2"

// Limits every agent-facing answer repeats.
const (
	// WarnChars is where Claude Code warns that a memory file is large
	// ("Large CLAUDE.md will impact performance (… chars > 40.0k)").
	WarnChars = 40_000
	// MaxHops is how deep @imports are followed: an import at depth six is
	// refused, as Claude Code refuses it.
	MaxHops = 5
)

// Agent families, in the order an answer lists files of one directory.
const (
	AgentClaude  = "claude"
	AgentAgents  = "agents"
	AgentCursor  = "cursor"
	AgentCopilot = "copilot"
)

// Agents lists every family, for argument checks and documentation.
var Agents = []string{AgentClaude, AgentAgents, AgentCursor, AgentCopilot}

// Kinds of instruction file.
const (
	KindMemory        = "memory"               // CLAUDE.md or .claude/CLAUDE.md
	KindLocalMemory   = "local-memory"         // CLAUDE.local.md
	KindClaudeRule    = "rule"                 // .claude/rules/**/*.md
	KindAgentsMD      = "agents-md"            // AGENTS.md
	KindCursorRules   = "cursorrules"          // .cursorrules (legacy, one file)
	KindCursorRule    = "cursor-rule"          // .cursor/rules/**/*.mdc
	KindCopilot       = "copilot-instructions" // .github/copilot-instructions.md
	KindCopilotScoped = "copilot-path"         // .github/instructions/**/*.instructions.md
)

// Activations: when an agent loads a file on its own.
const (
	// Always: for every path under the file's directory.
	Always = "always"
	// Globs: for paths under the directory that match one of Globs.
	Globs = "globs"
	// OnRequest: never on its own; the agent or the user asks for it (a
	// Cursor rule with only a description, or none; a Copilot file
	// without applyTo).
	OnRequest = "on-request"
)

// Import statuses. A Ref, stored once with the text that holds it, is
// ImportOK, ImportOutside or ImportMissing: what the @path is wherever the
// text is loaded from. The others depend on the file loading the text, and
// Load gives them on an Import.
const (
	ImportOK      = "ok"       // expanded (a Ref: resolves to a text in the snapshot)
	ImportOutside = "outside"  // leaves the snapshot (absolute, ~, .., a symlink out): refused
	ImportMissing = "missing"  // not in the snapshot, or not readable there
	ImportCycle   = "cycle"    // imports a file already being expanded
	ImportTooDeep = "too-deep" // more than MaxHops imports away from the file
	ImportRepeat  = "repeat"   // already expanded earlier for the same file
	ImportTooMany = "too-many" // past maxImportsPerFile for one file
)

// Index is instructions.json: every instruction file of the snapshot, sorted
// by path, and every text their imports load, once. It holds no times and
// no absolute paths.
type Index struct {
	Schema string `json:"schema"`
	Files  []File `json:"files"`
	// Imported is every text some file's chain loads that Files does not
	// already hold with its imports (a Claude file with a Source), sorted
	// by path.
	Imported []Text `json:"imported"`
	// Warnings are about the index as a whole: the size bound was reached,
	// and whose imports were left out.
	Warnings []string `json:"warnings,omitempty"`

	texts map[string]*node // by path: what Load follows; set by Build and Parse
}

// File is one instruction file and everything an agent would load with it.
type File struct {
	Path       string   `json:"path"`
	Agent      string   `json:"agent"`
	Kind       string   `json:"kind"`
	Dir        string   `json:"dir"`        // the directory it governs; "" is the root
	Activation string   `json:"activation"` // Always, Globs or OnRequest
	Globs      []string `json:"globs,omitempty"`
	// Description is a Cursor or Copilot rule's description from its front matter.
	Description string `json:"description,omitempty"`
	// Source is the staged path holding the text: Path itself, the canonical
	// copy of a duplicate, or the file a symlink leads to inside the snapshot.
	// Empty when the text is not in the snapshot.
	Source     string `json:"source,omitempty"`
	LinkTarget string `json:"link_target,omitempty"` // as written, for a symlink
	// BodyLine is the first line after the front matter (1 without any).
	BodyLine int `json:"body_line"`
	Chars    int `json:"chars"`  // characters of the staged text
	Tokens   int `json:"tokens"` // o200k tokens of the staged text (files.json)
	// TotalChars and TotalTokens add every text of the chain, once each.
	TotalChars  int `json:"total_chars"`
	TotalTokens int `json:"total_tokens"`
	// Imports are the file's own @imports (Claude's files only), and
	// Chain every text loading the file loads, depth first in the order an
	// agent reads them: paths of Imported, or of Files for a Claude file.
	// Both are nil when the size bound left them out (Build).
	Imports []Ref    `json:"imports,omitempty"`
	Chain   []string `json:"chain,omitempty"`
	// Warnings are the file's own, its own imports' and those of its chain
	// that depend on it (cycles, chains past MaxHops, too many imports);
	// an imported text's broken @path is told once, on its Ref.
	Warnings []string `json:"warnings,omitempty"`
}

// Text is a text that imports load, stored once whatever number of files
// load it. Its imports resolve against Path, the path they were named by.
type Text struct {
	Path    string `json:"path"`
	Source  string `json:"source"` // staged path holding it
	Chars   int    `json:"chars"`
	Tokens  int    `json:"tokens"`
	Imports []Ref  `json:"imports,omitempty"`
}

// Ref is one @path written in a text, resolved against the text's path.
type Ref struct {
	Line int    `json:"line"`           // in the text, 1-based
	Spec string `json:"spec"`           // as written after '@'
	Path string `json:"path,omitempty"` // resolved in the snapshot
	// Source is the staged path holding its text when that is not Path (a
	// duplicate's canonical copy, a symlink's target); see Ref.Staged.
	Source string `json:"source,omitempty"`
	Status string `json:"status"`           // ImportOK, ImportOutside or ImportMissing
	Detail string `json:"detail,omitempty"` // why, when Status is not ImportOK
}

// Staged is the staged path holding the text r leads to, when Status is
// ImportOK.
func (r *Ref) Staged() string {
	if r.Source != "" || r.Status != ImportOK {
		return r.Source
	}
	return r.Path
}

// Import is one @path as one file loads it (Load): its status for that
// file and, when it was followed, its own imports. It is not stored.
type Import struct {
	Line    int
	Spec    string
	Path    string
	Source  string
	Status  string
	Detail  string // why, when Status is not ImportOK
	Chars   int
	Tokens  int
	Imports []Import
}

// Parse decodes instructions.json, refusing unknown schemas and fields.
func Parse(data []byte) (*Index, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var idx Index
	if err := dec.Decode(&idx); err != nil {
		return nil, fmt.Errorf("parse instructions.json: %w", err)
	}
	if idx.Schema != Schema {
		return nil, fmt.Errorf("parse instructions.json: schema %q, want %q", idx.Schema, Schema)
	}
	idx.texts = idx.lookup()
	return &idx, nil
}
