package repomap

import "testing"

// TestDirLanguageAndRole: a directory's language and role come from its
// prose and code together, not from one stray script (flask's
// docs/ was "Batchfile", arthas's site/ "JavaScript").
func TestDirLanguageAndRole(t *testing.T) {
	tests := []struct {
		name string
		dir  mapDir
		lang string
		role string
	}{
		{"flask docs/", mapDir{path: "docs", files: 82,
			srcLangs: map[string]int{"Python": 1, "Makefile": 1, "Batchfile": 1},
			txtLangs: map[string]int{"reStructuredText": 76, "SVG": 3}}, "reStructuredText", "documentation"},
		{"arthas site/", mapDir{path: "site", files: 192,
			srcLangs: map[string]int{"Vue": 18, "JavaScript": 12},
			txtLangs: map[string]int{"Markdown": 154, "JSON": 3, "SCSS": 1, "HTML": 1}}, "Markdown", "documentation"},
		{"frp web/", mapDir{path: "web", files: 110,
			srcLangs: map[string]int{"Vue": 60, "TypeScript": 30},
			txtLangs: map[string]int{"Markdown": 2, "JSON": 10}}, "Vue", "web front end"},
		{"code with a README each", mapDir{path: "engine", files: 30,
			srcLangs: map[string]int{"Go": 20},
			txtLangs: map[string]int{"Markdown": 10}}, "Go", ""},
		{"config only", mapDir{path: "deploy-conf", files: 6,
			txtLangs: map[string]int{"YAML": 5, "TOML": 1}}, "YAML", ""},
		{"guides without a name role", mapDir{path: "handbook", files: 12,
			txtLangs: map[string]int{"Markdown": 11}, srcLangs: map[string]int{"Shell": 1}}, "Markdown", "documentation"},
		// vite's playground/ (1,580 files of e2e apps) had no role.
		{"vite playground/", mapDir{path: "playground", files: 1580, tests: 120,
			srcLangs: map[string]int{"JavaScript": 700, "TypeScript": 300}, txtLangs: map[string]int{"HTML": 200}}, "JavaScript", "playground (e2e tests / demo apps)"},
		{"create-vite template-react/", mapDir{path: "packages/create-vite/template-react", files: 12,
			srcLangs: map[string]int{"TSX": 3}, txtLangs: map[string]int{"JSON": 4}}, "TSX", "template shipped to users"},
		{"templates/", mapDir{path: "templates", files: 40, srcLangs: map[string]int{"HTML": 40}}, "HTML", "templates shipped to users"},
		{"__fixtures__/", mapDir{path: "src/__fixtures__", files: 9, txtLangs: map[string]int{"JSON": 9}}, "JSON", "test fixtures"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.dir.language(); got != tt.lang {
				t.Errorf("language = %q, want %q", got, tt.lang)
			}
			if got := dirRole(&tt.dir); got != tt.role {
				t.Errorf("role = %q, want %q", got, tt.role)
			}
		})
	}
}
