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

// Schema is written into instructions.json; Parse refuses any other.
const Schema = "repoprep.instructions/v1"

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

// Import statuses.
const (
	ImportOK      = "ok"       // expanded
	ImportOutside = "outside"  // leaves the snapshot (absolute, ~, ..): refused
	ImportMissing = "missing"  // not in the snapshot, or not readable there
	ImportCycle   = "cycle"    // imports a file already being expanded
	ImportTooDeep = "too-deep" // more than MaxHops imports away from the file
	ImportRepeat  = "repeat"   // already expanded earlier for the same file
	ImportTooMany = "too-many" // past maxImportsPerFile for one file
)

// Index is instructions.json: every instruction file of the snapshot, sorted
// by path. It holds no times and no absolute paths.
type Index struct {
	Schema string `json:"schema"`
	Files  []File `json:"files"`
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
	// TotalChars and TotalTokens add every import expanded once.
	TotalChars  int      `json:"total_chars"`
	TotalTokens int      `json:"total_tokens"`
	Imports     []Import `json:"imports,omitempty"`
	Warnings    []string `json:"warnings,omitempty"`
}

// Import is one @path reference and, when it was followed, its own imports.
type Import struct {
	Line    int      `json:"line"`             // in the importing file, 1-based
	Spec    string   `json:"spec"`             // as written after '@'
	Path    string   `json:"path,omitempty"`   // resolved in the snapshot
	Source  string   `json:"source,omitempty"` // staged path holding its text
	Status  string   `json:"status"`
	Detail  string   `json:"detail,omitempty"` // why, when Status is not ImportOK
	Chars   int      `json:"chars,omitempty"`
	Tokens  int      `json:"tokens,omitempty"`
	Imports []Import `json:"imports,omitempty"`
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
	return &idx, nil
}
