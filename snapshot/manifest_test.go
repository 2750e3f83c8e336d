package snapshot

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseManifest(t *testing.T) {
	tests := []struct {
		name, in, err string
	}{
		{"minimal", `{"schema": "repoprep.files/v1", "files": [], "pruned": []}`, ""},
		{"wrong schema", `{"schema": "repoprep.files/v9", "files": []}`, "schema"},
		{"unknown field", `{"schema": "repoprep.files/v1", "files": [{"path": "a", "extra": 1}]}`, "unknown field"},
		{"not json", `{"schema":`, "parse files.json"},
		{"truncated", `{"schema": "repoprep.files/v1", "files": [{"path": "a"}`, "unexpected EOF"},
		{"second document", `{"schema": "repoprep.files/v1", "files": []} {"schema": "repoprep.files/v1"}`, "trailing data"},
		{"garbage after", "{\"schema\": \"repoprep.files/v1\", \"files\": []}\nxx", "trailing data"},
		{"trailing white space", "{\"schema\": \"repoprep.files/v1\", \"files\": []}\n\n  \t", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseManifest([]byte(tt.in))
			if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("ParseManifest = %v, want error containing %q", err, tt.err)
			}
		})
	}
}

// FuzzParseManifest: any input parses or fails cleanly, and what parses
// writes back to something that parses to the same manifest.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"schema": "repoprep.files/v1", "files": [{"path": "a/b.go", "size": 3, "staged": true}], "pruned": [{"path": "x", "reason": "ignored"}]}`))
	f.Add([]byte(`{"schema": "repoprep.files/v1", "files": null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := EncodeJSON(&buf, m); err != nil {
			t.Fatal(err)
		}
		m2, err := ParseManifest(buf.Bytes())
		if err != nil {
			t.Fatalf("re-encoded manifest does not parse: %v", err)
		}
		var buf2 bytes.Buffer
		EncodeJSON(&buf2, m2)
		if !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
			t.Fatal("manifest does not round-trip")
		}
	})
}

// TestWriteManifestMatchesEncodeJSON: the streaming writer gives the same
// bytes as encoding the whole manifest at once, for empty, nil and full
// lists and for paths JSON must escape.
func TestWriteManifestMatchesEncodeJSON(t *testing.T) {
	full := &Manifest{Schema: FilesSchema, Files: []Entry{
		{Path: "a<b>&c.go", Size: 3, Category: "source", Staged: true, Hash: "blake3:00"},
		{Path: "dir/\"quoted\"\\x.txt", Category: "junk", Reason: "unsafe-name", Err: "scan: x"},
		{Path: "l", Category: "junk", Reason: "symlink", LinkTarget: "../t"},
	}, Pruned: []Pruned{{Path: ".git", Reason: "excluded-dir"}, {Path: "node_modules", Reason: "excluded-dir"}}}
	for name, m := range map[string]*Manifest{
		"full":  full,
		"empty": {Schema: FilesSchema, Files: []Entry{}, Pruned: []Pruned{}},
		"nil":   {Schema: FilesSchema},
		"one":   {Schema: FilesSchema, Files: full.Files[:1], Pruned: []Pruned{}},
	} {
		var want, got bytes.Buffer
		if err := EncodeJSON(&want, m); err != nil {
			t.Fatal(err)
		}
		if err := WriteManifest(&got, m); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: WriteManifest gave\n%s\nEncodeJSON gives\n%s", name, got.String(), want.String())
		}
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "snap")
	src := filepath.Join(dir, "src")
	file := filepath.Join(dir, "file")
	for _, d := range []string{snap, src} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(snap, "files.json"), filepath.Join(src, "main.go"), file} {
		if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, dir, want string
	}{
		{"snapshot", snap, ""},
		{"source tree", src, "is not a repoprep snapshot (no files.json); create one with repoprep run"},
		{"missing", filepath.Join(dir, "nope"), "does not exist; create a snapshot there with: repoprep run SRC -o"},
		{"a file", file, "is a file, not a repoprep snapshot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.dir)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrNotSnapshot) || !strings.HasPrefix(err.Error(), tt.dir) {
				t.Errorf("Check(%s) = %v, want %q naming the directory and wrapping ErrNotSnapshot", tt.dir, err, tt.want)
			}
		})
	}
}
