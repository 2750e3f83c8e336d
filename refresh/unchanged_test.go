package refresh

import (
	"reflect"
	"testing"

	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/stages"
)

// TestScanDigestCoversEntry: every field of a files.json entry the scan
// may set is in ScanDigest, so a scan decision that moves any of them
// (a link target, a category, an ignore reason) tells the refresh that
// something changed; a field added to snapshot.Entry fails here until
// appendEntry writes it.
func TestScanDigestCoversEntry(t *testing.T) {
	typ := reflect.TypeFor[snapshot.Entry]()
	if typ.NumField() != entryFields {
		t.Fatalf("snapshot.Entry has %d fields, appendEntry writes %d: add the new ones", typ.NumField(), entryFields)
	}
	base := ScanDigest([]*stages.Record{stages.NewRecord("a", "a", 1)}, nil)
	for i := range typ.NumField() {
		f := typ.Field(i)
		t.Run(f.Name, func(t *testing.T) {
			rec := stages.NewRecord("a", "a", 1)
			v := reflect.ValueOf(&rec.Entry).Elem().Field(i)
			switch v.Kind() {
			case reflect.String:
				v.SetString(v.String() + "x")
			case reflect.Int, reflect.Int64:
				v.SetInt(v.Int() + 7)
			case reflect.Bool:
				v.SetBool(!v.Bool())
			default:
				t.Fatalf("a %v field: teach this test and appendEntry", v.Kind())
			}
			if ScanDigest([]*stages.Record{rec}, nil) == base {
				t.Errorf("changing %s leaves the digest as it was", f.Name)
			}
		})
	}
	pruned := []stages.Pruned{{Path: "node_modules", Reason: "excluded-dir", Files: 3}}
	withPruned := ScanDigest([]*stages.Record{stages.NewRecord("a", "a", 1)}, pruned)
	pruned[0].Files = 4
	if withPruned == base || ScanDigest([]*stages.Record{stages.NewRecord("a", "a", 1)}, pruned) == withPruned {
		t.Error("the pruned directories and their file counts are not in the digest")
	}
}

// TestTreeChildren: what each directory of tree/ must hold, from the
// staged entries alone.
func TestTreeChildren(t *testing.T) {
	m := &snapshot.Manifest{Files: []snapshot.Entry{
		{Path: "a/b/c.go", Staged: true}, {Path: "a/b/d.go", Staged: true}, {Path: "a/e.go", Staged: true},
		{Path: "f.go", Staged: true}, {Path: "g/dup.go", DuplicateOf: "f.go"}, {Path: "h/bin", Staged: false},
	}}
	got := treeChildren(m)
	want := map[string]map[string]bool{
		"":    {"a": true, "f.go": true},
		"a":   {"b": true, "e.go": true},
		"a/b": {"c.go": true, "d.go": true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("treeChildren = %v, want %v", got, want)
	}
	if dirs := treeDirs(m); !reflect.DeepEqual(dirs, []string{"", "a/b", "a"}) && !reflect.DeepEqual(dirs, []string{"", "a", "a/b"}) {
		t.Errorf("treeDirs = %q", dirs)
	}
}
