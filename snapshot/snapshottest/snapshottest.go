// Package snapshottest makes files.json models for tests of what is built
// on them (REPO_MAP.md, the audit, the server).
package snapshottest

import (
	"fmt"
	"sort"
	"strings"

	"github.com/repoprep/repoprep/snapshot"
)

// NewManifest is files.json holding files (sorted here by path) and pruned.
func NewManifest(files []snapshot.Entry, pruned []snapshot.Pruned) *snapshot.Manifest {
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return &snapshot.Manifest{Schema: snapshot.FilesSchema, Files: files, Pruned: pruned}
}

// Synth builds a monorepo-shaped manifest of n files: many
// top-level directories of uneven size, several languages, tests, junk,
// duplicates, oversize files and long, deep, non-ASCII paths.
func Synth(n int) *snapshot.Manifest {
	langs := []struct{ ext, lang string }{{".go", "Go"}, {".ts", "TypeScript"}, {".py", "Python"}, {".java", "Java"}, {".rs", "Rust"}, {".c", "C"}}
	tops := []string{"services", "libs", "apps", "tools", "docs", "infra", "third_party", "测试数据目录", strings.Repeat("very-long-directory-name-", 8)}
	m := &snapshot.Manifest{Schema: snapshot.FilesSchema}
	for i := range n {
		top := tops[i%len(tops)]
		if i%7 == 0 {
			top = fmt.Sprintf("team%03d", i%250)
		}
		l := langs[i%len(langs)]
		p := fmt.Sprintf("%s/pkg%d/sub%d/%s/file%d%s", top, i%97, i%13, strings.Repeat("深", i%5), i, l.ext)
		e := snapshot.Entry{Path: p, Size: int64(100 + i%5000), Category: "source", Language: l.lang, Lines: 10 + i%400, Tokens: (10 + i%400) * 7, Staged: true, Encoding: "utf-8"}
		switch {
		case i%10 == 0:
			e.Test = true
			e.Path = strings.Replace(p, "/sub", "/tests/sub", 1)
		case i%10 == 1:
			e.Category, e.Reason, e.Staged, e.Language = "junk", fmt.Sprintf("reason-%d", i%9), false, ""
		case i%10 == 2 && i > 2:
			e.Staged, e.DuplicateOf = false, m.Files[0].Path
		case i%97 == 3:
			e.Oversize = true
		}
		if i%1000 == 5 {
			e.Path = fmt.Sprintf("apps/app%d/CLAUDE.md", i)
			e.Size = 50_000
		}
		if i%500 == 6 {
			e.Path = fmt.Sprintf("services/svc%d/main.py", i)
		}
		if i%700 == 8 {
			e.Path = fmt.Sprintf("services/svc%d/package.json", i)
		}
		m.Files = append(m.Files, e)
	}
	for i := range 300 {
		m.Pruned = append(m.Pruned, snapshot.Pruned{Path: fmt.Sprintf("apps/app%d/node_modules", i), Reason: "excluded-dir"})
	}
	sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Path < m.Files[j].Path })
	return m
}
