package pipeline

import (
	"io/fs"
	"path/filepath"

	"github.com/repoprep/repoprep/instructions"
	"github.com/repoprep/repoprep/snapshot"
)

// writeInstructions builds instructions.json, the index of agent
// instruction files the server answers `instructions` from, out of the
// finished manifest and the staged (normalized, redacted) tree.
func writeInstructions(dir string, m *snapshot.Manifest, tree fs.FS) error {
	idx, err := instructions.Build(m, tree)
	if err != nil {
		return err
	}
	return writeJSONFile(filepath.Join(dir, "instructions.json"), idx)
}
