package repomap

import (
	"maps"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// What the map reads of TOML manifests: Cargo.toml's package name,
// commands, library and workspace members, and pyproject.toml's name,
// scripts and uv workspace members. Input is cut at mapConfigBytes; lists
// keep at most maxManifestItems.

// cargoManifest is what the map uses of one Cargo.toml.
type cargoManifest struct {
	name                   string
	bins                   []manifestBin // [[bin]] name and path; path "" means Cargo's default
	autobins               bool          // src/main.rs and src/bin/*.rs are commands too
	lib                    string        // [lib] path, "" for Cargo's default src/lib.rs
	members                []string      // [workspace] members (globs)
	exclude                []string      // [workspace] exclude
	isWorkspace, isPackage bool
	parsed                 bool // set by wsScan's cache: the file was read and parsed
}

// parseCargoToml reads a Cargo.toml; ok is false when it is not TOML or
// its fields have the wrong types.
func parseCargoToml(data []byte) (m cargoManifest, ok bool) {
	var raw struct {
		Package *struct {
			Name     any   `toml:"name"`
			Autobins *bool `toml:"autobins"`
		} `toml:"package"`
		Bin []struct {
			Name any `toml:"name"`
			Path any `toml:"path"`
		} `toml:"bin"`
		Lib *struct {
			Path any `toml:"path"`
		} `toml:"lib"`
		Workspace *struct {
			Members []any `toml:"members"`
			Exclude []any `toml:"exclude"`
		} `toml:"workspace"`
	}
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return m, false
	}
	if raw.Package != nil {
		m.isPackage = true
		m.name, _ = raw.Package.Name.(string)
		m.autobins = raw.Package.Autobins == nil || *raw.Package.Autobins
	}
	for _, b := range raw.Bin {
		name, _ := b.Name.(string)
		p, _ := b.Path.(string)
		if name == "" && p == "" {
			continue
		}
		m.bins = append(m.bins, manifestBin{name: name, target: p})
		if len(m.bins) == maxManifestItems {
			break
		}
	}
	if raw.Lib != nil {
		m.lib, _ = raw.Lib.Path.(string)
	}
	if raw.Workspace != nil {
		m.isWorkspace = true
		m.members = tomlStrings(raw.Workspace.Members)
		m.exclude = tomlStrings(raw.Workspace.Exclude)
	}
	return m, true
}

// tomlStrings keeps the strings of a TOML array, at most maxManifestItems.
func tomlStrings(list []any) []string {
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok && s != "" {
			out = append(out, s)
			if len(out) == maxManifestItems {
				break
			}
		}
	}
	return out
}

// pyManifest is what the map uses of one pyproject.toml.
type pyManifest struct {
	name    string
	bins    []manifestBin // script name → "package.module:function"
	members []string      // [tool.uv.workspace] members (globs)
	exclude []string
	parsed  bool // set by wsScan's cache
}

// parsePyproject reads a pyproject.toml: PEP 621 `[project]` name,
// scripts and gui-scripts, Poetry's `[tool.poetry]` name and scripts (a
// string or a table with `callable`/`reference`), uv's workspace members.
func parsePyproject(data []byte) (m pyManifest, ok bool) {
	var raw struct {
		Project struct {
			Name       any            `toml:"name"`
			Scripts    map[string]any `toml:"scripts"`
			GUIScripts map[string]any `toml:"gui-scripts"`
		} `toml:"project"`
		Tool struct {
			Poetry struct {
				Name    any            `toml:"name"`
				Scripts map[string]any `toml:"scripts"`
			} `toml:"poetry"`
			UV struct {
				Workspace struct {
					Members []any `toml:"members"`
					Exclude []any `toml:"exclude"`
				} `toml:"workspace"`
			} `toml:"uv"`
		} `toml:"tool"`
	}
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return m, false
	}
	m.name, _ = raw.Project.Name.(string)
	if m.name == "" {
		m.name, _ = raw.Tool.Poetry.Name.(string)
	}
	for _, scripts := range []map[string]any{raw.Project.Scripts, raw.Project.GUIScripts, raw.Tool.Poetry.Scripts} {
		for _, name := range slices.Sorted(maps.Keys(scripts)) {
			if len(m.bins) == maxManifestItems {
				break
			}
			if ref := pyScriptRef(scripts[name]); ref != "" && name != "" {
				m.bins = append(m.bins, manifestBin{name: name, target: ref})
			}
		}
	}
	m.members = tomlStrings(raw.Tool.UV.Workspace.Members)
	m.exclude = tomlStrings(raw.Tool.UV.Workspace.Exclude)
	return m, true
}

// pyScriptRef is the "module:function" a script entry names.
func pyScriptRef(v any) string {
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v)
	case map[string]any:
		for _, k := range []string{"callable", "reference"} {
			if s, ok := v[k].(string); ok {
				return strings.TrimSpace(s)
			}
		}
	}
	return ""
}

// pyModuleFiles are the files that may hold a script's module
// ("click.cli:main" → click/cli.py or click/cli/__init__.py) below root:
// nil when the reference is not a dotted module path.
func pyModuleFiles(root, ref string) []string {
	mod, _, _ := strings.Cut(ref, ":")
	mod = strings.TrimSpace(mod)
	if mod == "" || len(mod) > 200 || strings.HasSuffix(mod, ".py") { // Poetry's `type = "file"` scripts
		return nil
	}
	for _, part := range strings.Split(mod, ".") {
		if part == "" || !isPyIdent(part) {
			return nil
		}
	}
	rel := strings.ReplaceAll(mod, ".", "/")
	var out []string
	for _, base := range []string{joinDir(root, "src"), root} {
		out = append(out, joinDir(base, rel+".py"), joinDir(base, rel+"/__init__.py"))
	}
	return out
}

func isPyIdent(s string) bool {
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// joinDir joins a directory ("" for the root) and a relative path.
func joinDir(dir, rel string) string {
	if dir == "" {
		return rel
	}
	return dir + "/" + rel
}
