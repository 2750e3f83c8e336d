package repoprep_test

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/snapshot"
)

// The rooms of the house and what each may import, as CONTRIBUTING.md
// draws them: cmd → serve / corpus → pipeline → refresh → stages, repomap,
// report, instructions → snapshot → internal → rules. A room is a
// package path below the module, or a folder of packages ending in "/".
// Test files are not rooms: they may import what they test with.
var rooms = []struct {
	room string
	may  []string // rooms it may import; its own folder's packages always
}{
	{"rules", nil},
	{"schema", nil},
	{"internal/", []string{"rules"}},
	{"snapshot", []string{"internal/", "rules"}},
	{"snapshot/", []string{"snapshot", "internal/", "rules"}},
	{"instructions", []string{"snapshot", "internal/", "rules"}},
	{"instructions/", []string{"instructions", "snapshot", "internal/", "rules"}},
	{"report", []string{"snapshot", "internal/", "rules"}},
	{"repomap", []string{"report", "instructions", "snapshot", "internal/", "rules"}},
	{"stages", []string{"snapshot", "internal/", "rules"}},
	{"refresh", []string{"stages", "report", "snapshot", "internal/", "rules"}},
	{"pipeline", []string{"refresh", "stages", "repomap", "report", "instructions", "snapshot", "internal/", "rules"}},
	{"serve", []string{"instructions", "snapshot", "internal/", "rules"}},
	// corpus runs pipeline once per repository and reads what it published.
	{"corpus", []string{"pipeline", "snapshot", "internal/", "rules"}},
	{"cmd/", []string{"corpus", "pipeline", "serve", "report", "snapshot", "instructions", "internal/", "rules"}},
}

// never: what the readers of a snapshot must not depend on at all, even
// through another package: the run's orchestration and the stages.
var never = map[string][]string{
	"serve":   {"pipeline", "stages", "refresh"},
	"repomap": {"pipeline", "stages", "refresh", "serve"},
	"report":  {"pipeline", "stages", "refresh", "serve", "repomap"},
}

const module = "github.com/repoprep/repoprep"

// pkg is what `go list -deps -json` says of one package of the module.
type pkg struct {
	ImportPath string
	Imports    []string // direct, test files aside
	Deps       []string // transitive, test files aside
}

// roomOf is the room rel (a path below the module) belongs to: the
// longest room that is it or, for a folder room, holds it.
func roomOf(rel string) (string, bool) {
	best := ""
	for _, r := range rooms {
		folder := strings.HasSuffix(r.room, "/")
		if rel == r.room || folder && strings.HasPrefix(rel, r.room) {
			if len(r.room) > len(best) {
				best = r.room
			}
		}
	}
	return best, best != ""
}

// houseViolations checks the module's packages against rooms and never.
func houseViolations(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		rel, ok := strings.CutPrefix(p.ImportPath, module+"/")
		if !ok {
			continue // the module's root: tests only
		}
		room, ok := roomOf(rel)
		if !ok {
			out = append(out, rel+": in no room; add it to CONTRIBUTING.md's map and to rooms")
			continue
		}
		i := slices.IndexFunc(rooms, func(r struct {
			room string
			may  []string
		}) bool {
			return r.room == room
		})
		for _, imp := range p.Imports {
			irel, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			iroom, _ := roomOf(irel)
			same := iroom == room
			if !same && !slices.Contains(rooms[i].may, iroom) {
				out = append(out, rel+" imports "+irel+": "+room+" may not import "+iroom)
			}
		}
		for _, dep := range p.Deps {
			drel, ok := strings.CutPrefix(dep, module+"/")
			if !ok {
				continue
			}
			for _, bad := range never[rel] {
				if drel == bad || strings.HasPrefix(drel, bad+"/") {
					out = append(out, rel+" depends on "+drel+": a reader of snapshots must not depend on "+bad)
				}
			}
		}
	}
	return out
}

// TestHouse: every package sits in a room and imports only what its room
// may; serve, REPO_MAP and the audit depend on neither the run's
// orchestration nor the stages.
func TestHouse(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	// -pgo=off: cmd/repoprep's profile would list its dependencies again
	// as variants ("rules [.../cmd/repoprep]").
	cmd := exec.Command("go", "list", "-pgo=off", "-deps", "-json", "./...")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list gave %d packages", len(pkgs))
	}
	for _, v := range houseViolations(pkgs) {
		t.Error(v)
	}
}

// TestHouseCatches: the check fails on a forbidden import, direct or
// through another package, and on a package in no room.
func TestHouseCatches(t *testing.T) {
	m := func(rel string) string { return module + "/" + rel }
	for _, tc := range []struct {
		name string
		pkgs []pkg
		want string
	}{
		{"serve imports pipeline", []pkg{{ImportPath: m("serve"), Imports: []string{m("pipeline")}, Deps: []string{m("pipeline")}}}, "serve may not import pipeline"},
		{"report reaches stages", []pkg{{ImportPath: m("report"), Imports: []string{m("snapshot")}, Deps: []string{m("snapshot"), m("stages")}}}, "report depends on stages"},
		{"stages imports refresh", []pkg{{ImportPath: m("stages"), Imports: []string{m("refresh")}}}, "stages may not import refresh"},
		{"internal imports snapshot", []pkg{{ImportPath: m("internal/tokens"), Imports: []string{m("snapshot")}}}, "internal/ may not import snapshot"},
		{"a new top-level package", []pkg{{ImportPath: m("newroom")}}, "newroom: in no room"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := houseViolations(tc.pkgs)
			if !slices.ContainsFunc(got, func(v string) bool { return strings.Contains(v, tc.want) }) {
				t.Errorf("violations %q, want one saying %q", got, tc.want)
			}
		})
	}
	ok := []pkg{{ImportPath: m("serve"), Imports: []string{m("snapshot"), m("internal/tokens")}, Deps: []string{m("snapshot"), m("internal/tokens")}}}
	if v := houseViolations(ok); len(v) > 0 {
		t.Errorf("an allowed import flagged: %v", v)
	}
}

// outNames are the names of OUT's files, which only package snapshot
// spells out.
var outNames = []string{
	snapshot.FilesJSON, snapshot.RepoMapMD, snapshot.OversizeJSON, snapshot.SecretsJSON, snapshot.SecretsSARIF,
	snapshot.ReportJSON, snapshot.ReportHTML, snapshot.InstructionsJSON, snapshot.SearchIndex, snapshot.LinesJSON, snapshot.TreeDir, snapshot.StateFile,
}

// TestOutNamesHaveOneOwner: outside package snapshot (tests aside) no
// string literal is the name of one of OUT's files: every other package
// takes the names from snapshot's constants.
func TestOutNamesHaveOneOwner(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == "snapshot" || strings.HasPrefix(d.Name(), ".") && p != "." || d.Name() == "testdata" {
				return fs.SkipDir
			}
			if _, err := os.Lstat(filepath.Join(p, "go.mod")); err == nil && p != "." {
				// Another module, as go's ./... sees it: the README's
				// `run -o ./staging .` leaves a copy of this tree there.
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && slices.Contains(outNames, s) {
				t.Errorf("%s: the literal %q: take it from package snapshot", fset.Position(lit.Pos()), s)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// outside matches what a clone of the repository cannot follow: a file
// named SPEC.md, issue numbers of a tracker that is not in the repository
// ("issue 14"; another project's are written "mimetype issue #81"), and
// paths of the machines the repository was written on.
var outside = regexp.MustCompile(`SPEC\.md|(?i:\bissues? [0-9]+\b)|\.\./shared\b|shared/corpora|NOTES\.md|/work/|/tmp/studio`)

// TestNoReferenceOutside: no tracked file points at anything a user of
// the repository does not have.
func TestNoReferenceOutside(t *testing.T) {
	out, err := exec.Command("git", "ls-files").Output()
	if err != nil {
		t.Skip("not a git checkout")
	}
	self := []string{"house_test.go", "house_speed_test.go"} // they spell the patterns out
	for _, name := range strings.Fields(string(out)) {
		if slices.Contains(self, name) || strings.HasSuffix(name, ".pgo") || strings.Contains(name, "testdata/") {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed in the work tree
			}
			t.Fatal(err)
		}
		if slices.Contains(data, 0) {
			continue // binary
		}
		// The regexp runs only on the lines that hold what every match of
		// it holds (on every line it took a minute of CPU under -race);
		// lowering keeps the lines in step, as it adds no newline.
		lower := strings.Split(strings.ToLower(string(data)), "\n")
		for i, line := range strings.Split(string(data), "\n") {
			if !mayPointOutside(line, lower[i]) {
				continue
			}
			if m := outside.FindString(line); m != "" {
				t.Errorf("%s:%d: %q points outside the repository", name, i+1, m)
			}
		}
	}
}

// mayPointOutside is false only for a line outside cannot match: each of
// its matches holds one of its literals, or "issue" in any case, which
// lowers to "issue" unless spelled with U+017F (ſ, an s under (?i)).
func mayPointOutside(line, lower string) bool {
	for _, lit := range []string{"SPEC.md", "../shared", "shared/corpora", "NOTES.md", "/work/", "/tmp/studio"} {
		if strings.Contains(line, lit) {
			return true
		}
	}
	return strings.Contains(lower, "issue") || strings.Contains(lower, "\u017f")
}
