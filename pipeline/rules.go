package pipeline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/rules"
)

// maxRepoConfigBytes bounds a repository's .repoprep.toml: it is the
// tree's own file, and a hostile tree must not exhaust memory with it.
const maxRepoConfigBytes = 1 << 20

// LoadRules merges the embedded defaults, the repository's own
// .repoprep.toml at root (if any) and the --rules file (if not ""), in that
// order, so the command line has the last word. The repository's file is
// read through an os.Root, without blocking on a FIFO, and only if it is a
// regular file.
func LoadRules(root, rulesFile string) (*rules.Set, error) {
	rs, _, err := loadRules(root, rulesFile)
	return rs, err
}

// loadRules is LoadRules that also returns a digest of the rule files it
// merged over the embedded defaults (which the build's own digest covers):
// a refresh reuses nothing from a snapshot made under other rules.
func loadRules(root, rulesFile string) (*rules.Set, string, error) {
	rs, srcs, err := readRules(root, rulesFile)
	if err != nil {
		return nil, "", err
	}
	h := blake3.New()
	for _, s := range srcs {
		fmt.Fprintf(h, "%t %d\n", s.Repo, len(s.Data)) // not the name: --rules a.toml and --rules ./a.toml are one rule set
		h.Write(s.Data)
	}
	return rs, fmt.Sprintf("%x", h.Sum(nil)), nil
}

func readRules(root, rulesFile string) (*rules.Set, []rules.Source, error) {
	var srcs []rules.Source
	data, err := readRepoConfig(root)
	if err != nil {
		return nil, nil, err
	}
	if data != nil {
		srcs = append(srcs, rules.Source{Name: rules.RepoConfig, Data: data, Repo: true})
	}
	if rulesFile != "" {
		data, err := os.ReadFile(rulesFile)
		if err != nil {
			return nil, nil, fmt.Errorf("rules: %w", err)
		}
		srcs = append(srcs, rules.Source{Name: rulesFile, Data: data})
	}
	rs, err := rules.LoadSources(srcs...)
	return rs, srcs, err
}

// readRepoConfig returns root's .repoprep.toml, or nil when there is none.
func readRepoConfig(root string) ([]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.OpenFile(rules.RepoConfig, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("rules: %s: %w", rules.RepoConfig, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("rules: %s: %w", rules.RepoConfig, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("rules: %s: not a regular file", rules.RepoConfig)
	}
	if info.Size() > maxRepoConfigBytes {
		return nil, fmt.Errorf("rules: %s: %d bytes, over the %d-byte limit", rules.RepoConfig, info.Size(), maxRepoConfigBytes)
	}
	return io.ReadAll(io.LimitReader(f, maxRepoConfigBytes))
}
