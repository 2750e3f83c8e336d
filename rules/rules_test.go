package rules

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeRules(t testing.TB, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rules.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadDefaults(t *testing.T) {
	s, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".git", "node_modules", "__pycache__", ".idea", ".vscode", ".gradle", ".cache"} {
		if !s.ExcludeDirs[d] {
			t.Errorf("default exclude dirs lack %s (docs/triage.md names it)", d)
		}
	}
	for _, d := range []string{"dist", "build", "target"} {
		if !s.OutputDirs[d] {
			t.Errorf("default output dirs lack %s (docs/triage.md names it)", d)
		}
	}
	for _, m := range []string{"package.json", "Cargo.toml", "pom.xml", "App.csproj", "vite.config.ts"} {
		if !s.IsManifest(m) {
			t.Errorf("%s is not a build manifest", m)
		}
	}
	for _, m := range []string{"main.go", "package.json.bak", "App.csproj.user", "README.md"} {
		if s.IsManifest(m) {
			t.Errorf("%s is a build manifest", m)
		}
	}
	tests := []struct {
		name, category, reason string
	}{
		{"dump.sql", "data", "dump"},
		{"db.ibd", "data", "database"},
		{"t.frm", "data", "database"},
		{"site.tar.gz", "data", "archive"},
		{"x.bak", "data", "backup"},
		{"spec.pdf", "document", "pdf"},
		{"deck.PPTX", "document", "office"},
		{"logo.png", "junk", "binary-media"},
		{"a.woff2", "junk", "font"},
		{"lib.so", "junk", "compiled"},
		{"README.md", "text", ""},
	}
	for _, tt := range tests {
		c, ok := s.ByExt(tt.name)
		if !ok || c.Category != tt.category || c.Reason != tt.reason {
			t.Errorf("ByExt(%q) = %+v, %v; want %s/%s", tt.name, c, ok, tt.category, tt.reason)
		}
	}
	if c, ok := s.ByMime("image/svg+xml"); !ok || c.Reason != "media-text" || c.Content != "text" {
		t.Errorf("svg: exact MIME must beat the image/ prefix (media in text), got %+v", c)
	}
	if c, ok := s.ByMime("image/webp; charset=binary"); !ok || c.Reason != "binary-media" {
		t.Errorf("image/webp = %+v, want binary-media", c)
	}
	if r, ok := s.JunkReason(".DS_Store"); !ok || r != "system-file" {
		t.Errorf(".DS_Store = %q %v", r, ok)
	}
}

// TestDefaultExtensionsUnique: an extension in two default classes would
// make the second one silently dead.
func TestDefaultExtensionsUnique(t *testing.T) {
	s, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, c := range s.Classes {
		for _, e := range c.Extensions {
			if prev, dup := seen[e]; dup {
				t.Errorf("%s is in %s and in %s/%s", e, prev, c.Category, c.Reason)
			}
			seen[e] = c.Category + "/" + c.Reason
		}
	}
}

func TestLoadUserRules(t *testing.T) {
	p := writeRules(t, `
exclude_dirs = ["generated_docs"]
include_dirs = ["build"]

[[junk]]
glob = "*.snap"
reason = "snapshot"

[[class]]
category = "source"
reason = ""
content = "text"
extensions = [".sql"]

[[secrets]]
id = "cn-mobile"
disabled = true
`)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !s.ExcludeDirs["generated_docs"] || s.OutputDirs["build"] || !s.OutputDirs["dist"] || !s.ExcludeDirs["node_modules"] {
		t.Errorf("exclude dirs not merged: generated_docs=%v build=%v dist=%v node_modules=%v",
			s.ExcludeDirs["generated_docs"], s.OutputDirs["build"], s.OutputDirs["dist"], s.ExcludeDirs["node_modules"])
	}
	if r, ok := s.JunkReason("ui.snap"); !ok || r != "snapshot" {
		t.Errorf("user junk glob: %q %v", r, ok)
	}
	if c, _ := s.ByExt("schema.sql"); c.Category != "source" {
		t.Errorf("user class must win over the default for .sql, got %+v", c)
	}
	for _, r := range s.Secrets {
		if r.ID == "cn-mobile" {
			t.Error("disabled secret rule still present")
		}
	}
}

func TestLoadUserRulesErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"syntax", "exclude_dirs = [", "rules.toml"},
		{"unknown key", "exlude_dirs = [\"x\"]", `unknown key "exlude_dirs"`},
		{"bad category", "[[class]]\ncategory = \"code\"\ncontent = \"text\"\n", `category "code"`},
		{"bad content", "[[class]]\ncategory = \"junk\"\ncontent = \"maybe\"\n", `content "maybe"`},
		{"bad extension", "[[class]]\ncategory = \"junk\"\ncontent = \"any\"\nextensions = [\"PNG\"]\n", `extension "PNG"`},
		{"bad glob", "[[junk]]\nglob = \"[\"\nreason = \"x\"\n", `bad glob "["`},
		{"junk without reason", "[[junk]]\nglob = \"*.x\"\n", "reason is required"},
		{"nested exclude", "exclude_dirs = [\"a/b\"]\n", "base name"},
		{"bad secret regex", "[[secrets]]\nid = \"x\"\nregex = '('\nkeywords = [\"x\"]\n", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeRules(t, tt.text)
			_, err := Load(p)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load = %v, want an error containing %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.toml")); err == nil {
		t.Error("a missing rules file must be an error")
	}
}

// FuzzLoad: any rules file either loads or fails with an error; it never
// panics and never yields a class outside the five categories.
func FuzzLoad(f *testing.F) {
	f.Add("exclude_dirs = [\"x\"]\n")
	f.Add("[[class]]\ncategory = \"junk\"\ncontent = \"any\"\nextensions = [\".x\"]\nmimes = [\"a/\"]\n")
	f.Add("[[junk]]\nglob = \"*\"\nreason = \"r\"\n")
	f.Add("include = [\"vendor/\"]\nexclude = [\"docs/*\", \"!docs/api/\"]\nnot_vendored = [\"third_party/x/\"]\n")
	f.Add("[[override]]\npaths = [\"db/**/*.sql\"]\ncategory = \"source\"\nreason = \"schema\"\n")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text string) {
		p := filepath.Join(dir, "r.toml")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Load(p)
		if err != nil {
			return
		}
		for _, c := range s.Classes {
			if err := c.check(); err != nil {
				t.Fatalf("loaded an invalid class: %v", err)
			}
		}
		for _, o := range s.Paths.Overrides {
			if !slices.Contains(Categories, o.Category) || o.Globs.Len() == 0 {
				t.Fatalf("loaded an invalid override: %+v", o)
			}
			o.Globs.Match("a/b/c", false) // must not panic
		}
	})
}

// TestDefaultContentRules: the data behind the content and shipped-tree rules loads
// and says what docs/triage.md says.
func TestDefaultContentRules(t *testing.T) {
	s, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		"__init__.py": true, "__init__.pyi": true, "py.typed": true, ".gitkeep": true, ".keep": true, ".nojekyll": true,
		"empty.txt": false, "__init__.py.bak": false, "setup.py": false,
	} {
		if got := s.IsMeaningfulEmpty(name); got != want {
			t.Errorf("IsMeaningfulEmpty(%q) = %v", name, got)
		}
	}
	for name, want := range map[string]bool{
		"template": true, "templates": true, "template-vue": true, "fixtures": true, "__fixtures__": true,
		"testdata": true, "playground": true, "src": false, "examples": false, "tests": false, "vendor": false,
	} {
		if got := s.Shipped.IsTree(name); got != want {
			t.Errorf("Shipped.IsTree(%q) = %v", name, got)
		}
	}
	for _, tc := range []struct {
		name                string
		isExclude, isOutput bool
		kept                bool
	}{
		{".vscode", true, false, true}, {".idea", true, false, true}, {"node_modules", true, false, false},
		{"__pycache__", true, false, false}, {"dist", false, true, true}, {"out", false, true, true},
	} {
		if got := s.Shipped.Keeps(tc.name, tc.isExclude, tc.isOutput); got != tc.kept {
			t.Errorf("Shipped.Keeps(%q) = %v", tc.name, got)
		}
	}
	for name, want := range map[string]bool{"asn1.key": true, "Deck.KEY": true, "a.pages": false, "key": false} {
		if got := s.Triage.ZipOnlyExt(name); got != want {
			t.Errorf("ZipOnlyExt(%q) = %v", name, got)
		}
	}
	if c, ok := s.ByExt("logo.svg"); !ok || c.Category != "junk" || c.Reason != "media-text" {
		t.Errorf("ByExt(logo.svg) = %+v, want junk/media-text", c)
	}
}
