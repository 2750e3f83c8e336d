package rules

import "fmt"

// Shipped is defaults/shipped.toml: the directories that hold trees a
// repository ships as data (project templates, test fixtures, playground
// projects), inside which an editor or build-output directory is content,
// not pruned. Read-only after Load.
type Shipped struct {
	trees          Globs
	keepDirs       map[string]bool
	keepOutputDirs bool
}

// IsTree reports whether a directory with this base name holds a shipped
// tree: everything below it is shipped.
func (s *Shipped) IsTree(name string) bool { return s.trees.Index(name) >= 0 }

// Keeps reports whether, inside a shipped tree, a directory that the
// exclude dirs (isExcludeDir) or the output dirs (isOutputDir) would prune
// is walked instead.
func (s *Shipped) Keeps(name string, isExcludeDir, isOutputDir bool) bool {
	return isExcludeDir && s.keepDirs[name] || !isExcludeDir && isOutputDir && s.keepOutputDirs
}

func loadShipped() (Shipped, error) {
	var f struct {
		Trees          []string `toml:"trees"`
		KeepDirs       []string `toml:"keep_dirs"`
		KeepOutputDirs bool     `toml:"keep_output_dirs"`
	}
	if err := decodeTOML("defaults/shipped.toml", mustRead("defaults/shipped.toml"), &f); err != nil {
		return Shipped{}, err
	}
	trees, err := NewGlobs(f.Trees)
	if err != nil {
		return Shipped{}, fmt.Errorf("rules: defaults/shipped.toml: %w", err)
	}
	keep := map[string]bool{}
	for _, d := range f.KeepDirs {
		keep[d] = true
	}
	return Shipped{trees: trees, keepDirs: keep, keepOutputDirs: f.KeepOutputDirs}, nil
}
