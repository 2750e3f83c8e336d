package repomap

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// What the map reads of JavaScript manifests: a package.json's name,
// scripts, commands (`bin`), library entry (`exports["."]`, `main`) and
// workspace globs, and pnpm-workspace.yaml's `packages:` globs. Every
// parser takes bytes already cut at mapConfigBytes and keeps at most
// maxManifestItems of any list, so a hostile manifest costs its size.

// maxManifestItems bounds each list the map keeps from one manifest
// (commands, workspace globs, modules); a real one has a handful.
const maxManifestItems = 64

// npmManifest is what the map uses of one package.json.
type npmManifest struct {
	name       string
	bins       []manifestBin     // command name → file as written, by name
	lib        string            // exports["."], else main, else module, as written
	workspaces []string          // globs, as written
	scripts    []string          // script names, the usual ones first
	cmds       map[string]string // what each script runs, on one line
}

// manifestBin is one command a manifest declares and the file (or
// Python module:function) that runs it, as written.
type manifestBin struct {
	name, target string
}

// scriptRank puts the scripts a reader runs first ahead of the rest.
var scriptRank = map[string]int{"dev": 1, "start": 2, "build": 3, "test": 4, "serve": 5, "preview": 6, "lint": 7}

// parsePackageJSON reads a package.json; ok is false when it is not a
// JSON object. Fields of the wrong type are left empty, not fatal: a
// `bin` that is neither a string nor an object says nothing.
func parsePackageJSON(data []byte) (m npmManifest, ok bool) {
	var raw struct {
		Name       json.RawMessage
		Bin        json.RawMessage
		Main       json.RawMessage
		Module     json.RawMessage
		Exports    json.RawMessage
		Workspaces json.RawMessage
		Scripts    map[string]json.RawMessage
	}
	if json.Unmarshal(data, &raw) != nil {
		// A wrong type in Scripts fails the whole decode; try without it.
		var noScripts struct {
			Name, Bin, Main, Module, Exports, Workspaces json.RawMessage
		}
		if json.Unmarshal(data, &noScripts) != nil {
			return m, false
		}
		raw.Name, raw.Bin, raw.Main, raw.Module, raw.Exports, raw.Workspaces =
			noScripts.Name, noScripts.Bin, noScripts.Main, noScripts.Module, noScripts.Exports, noScripts.Workspaces
		raw.Scripts = nil
	}
	m.name = jsonString(raw.Name)
	m.bins = npmBins(raw.Bin, m.name)
	m.lib = npmExportsRoot(raw.Exports, 0)
	if m.lib == "" {
		m.lib = jsonString(raw.Main)
	}
	if m.lib == "" {
		m.lib = jsonString(raw.Module)
	}
	m.workspaces = npmWorkspaces(raw.Workspaces)
	m.scripts, m.cmds = npmScripts(raw.Scripts)
	return m, true
}

func jsonString(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// npmBins reads `bin`: a string names one command after the package
// (without its scope), an object names each.
func npmBins(raw json.RawMessage, pkgName string) []manifestBin {
	if s := jsonString(raw); s != "" {
		name := pkgName
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		return []manifestBin{{name: name, target: s}}
	}
	var byName map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &byName) != nil {
		return nil
	}
	var out []manifestBin
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		if t := jsonString(byName[name]); t != "" && name != "" {
			out = append(out, manifestBin{name: name, target: t})
			if len(out) == maxManifestItems {
				break
			}
		}
	}
	return out
}

// exportConditions is the order in which npmExportsRoot picks among an
// export's conditions: what a reader of the source wants before what
// bundlers or type checkers want.
var exportConditions = []string{"source", "import", "node", "require", "default", "module", "browser"}

// maxExportDepth bounds how deep npmExportsRoot follows nested
// conditions; Node's own resolution has no limit, real files use two.
const maxExportDepth = 4

// npmExportsRoot is the file `exports` gives for the package itself
// ("."): a string, an object of subpaths holding ".", or an object of
// conditions (nested, or an array of fallbacks) for "." alone.
func npmExportsRoot(raw json.RawMessage, depth int) string {
	if len(raw) == 0 || depth > maxExportDepth {
		return ""
	}
	if s := jsonString(raw); s != "" {
		return s
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		for i, r := range list {
			if i == maxManifestItems {
				break
			}
			if s := npmExportsRoot(r, depth+1); s != "" {
				return s
			}
		}
		return ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return ""
	}
	if dot, ok := obj["."]; ok && depth == 0 {
		return npmExportsRoot(dot, depth+1)
	}
	for k := range obj {
		if strings.HasPrefix(k, ".") {
			return "" // subpaths without "." export no root
		}
	}
	for _, cond := range exportConditions {
		if s := npmExportsRoot(obj[cond], depth+1); s != "" {
			return s
		}
	}
	for _, cond := range slices.Sorted(maps.Keys(obj)) {
		if cond == "types" || cond == "typings" || slices.Contains(exportConditions, cond) {
			continue
		}
		if s := npmExportsRoot(obj[cond], depth+1); s != "" {
			return s
		}
	}
	return ""
}

// npmWorkspaces reads `workspaces`: an array of globs (npm, Yarn) or
// an object with `packages` (Yarn classic's form).
func npmWorkspaces(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		var obj struct{ Packages []json.RawMessage }
		if json.Unmarshal(raw, &obj) != nil {
			return nil
		}
		list = obj.Packages
	}
	var out []string
	for _, r := range list {
		if s := jsonString(r); s != "" {
			out = append(out, s)
			if len(out) == maxManifestItems {
				break
			}
		}
	}
	return out
}

// npmScripts lists script names, the usual ones first (scriptRank), and
// the command each runs on one line.
func npmScripts(scripts map[string]json.RawMessage) (names []string, cmds map[string]string) {
	names = slices.Collect(maps.Keys(scripts))
	cmds = map[string]string{}
	for name, raw := range scripts {
		if cmd := jsonString(raw); cmd != "" {
			cmds[name] = strings.Join(strings.Fields(cmd), " ") // one line, whatever the file held
		}
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := cmp100(scriptRank[names[i]]), cmp100(scriptRank[names[j]])
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	return names, cmds
}

// cmp100 ranks an unranked name (0) after every ranked one.
func cmp100(r int) int {
	if r == 0 {
		return 100
	}
	return r
}

// parsePnpmWorkspace reads pnpm-workspace.yaml's `packages:` globs.
func parsePnpmWorkspace(data []byte) []string {
	var ws struct {
		Packages []any `yaml:"packages"`
	}
	if yaml.Unmarshal(data, &ws) != nil {
		return nil
	}
	var out []string
	for _, p := range ws.Packages {
		if s, ok := p.(string); ok && s != "" {
			out = append(out, s)
			if len(out) == maxManifestItems {
				break
			}
		}
	}
	return out
}
