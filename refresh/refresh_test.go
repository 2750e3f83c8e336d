package refresh

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/snapshot"
)

// TestKeyCoversInputs: the refresh key changes with every input that
// changes what a run publishes, and with the fingerprint key, and only
// with them.
func TestKeyCoversInputs(t *testing.T) {
	keys := NewKeys([]byte("a fingerprint key of 32 bytes..."))
	base := Inputs{Version: "v1", Rules: "r", Secrets: "redact", PII: "redact", MaxTextBytes: 1 << 20, PreviewLines: 100, Root: t.TempDir(), Baseline: map[string]bool{"fp1": true}}
	key := func(k Keys, in Inputs) string {
		t.Helper()
		s, err := k.Key(in)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ref := key(keys, base)
	if !strings.HasPrefix(ref, "blake3:") || key(keys, base) != ref {
		t.Fatalf("key %q is not a stable BLAKE3 digest", ref)
	}
	for name, change := range map[string]func(*Inputs){
		"version":        func(in *Inputs) { in.Version = "v2" },
		"rules":          func(in *Inputs) { in.Rules = "r2" },
		"secrets mode":   func(in *Inputs) { in.Secrets = "report" },
		"pii mode":       func(in *Inputs) { in.PII = "off" },
		"max text bytes": func(in *Inputs) { in.MaxTextBytes++ },
		"preview lines":  func(in *Inputs) { in.PreviewLines++ },
		"no-ignore":      func(in *Inputs) { in.NoIgnore = true },
		"root":           func(in *Inputs) { in.Root = t.TempDir() },
		"baseline":       func(in *Inputs) { in.Baseline = map[string]bool{"fp2": true} },
	} {
		in := base
		change(&in)
		if key(keys, in) == ref {
			t.Errorf("changing the %s leaves the key as it was", name)
		}
	}
	if key(NewKeys([]byte("another fingerprint key, 32 bytes")), base) == ref {
		t.Error("another fingerprint key gives the same refresh key")
	}
}

// TestStateAuthenticated: a state file reads back with the key it was
// written with, and with no other; a byte changed in it, or a trailing
// byte, makes it unusable.
func TestStateAuthenticated(t *testing.T) {
	keys := testKeys
	p := pendingOut(t)
	m := &snapshot.Manifest{Schema: snapshot.FilesSchema, Files: []snapshot.Entry{{Path: "a.go", Staged: true}}}
	st := &State{Schema: stateSchema, Key: "blake3:k", StartedNs: 1, Values: []string{"v"}, Files: []stateEntry{{Path: "a.go", Size: 3}}}
	if err := st.Write(p, "files", "map", m, nil, keys); err != nil {
		t.Fatal(err)
	}
	if err := p.WriteJSON(snapshot.FilesJSON, m); err != nil {
		t.Fatal(err)
	}
	read := func(k Keys) (*State, error) {
		snap, err := snapshot.Open(p.Dir())
		if err != nil {
			t.Fatal(err)
		}
		defer snap.Close()
		return readState(snap, k.mac)
	}
	got, err := read(keys)
	if err != nil || got.Key != st.Key || len(got.Files) != 1 || got.Files[0].Path != "a.go" || got.FilesJSON != "files" || got.Manifest == nil {
		t.Fatalf("read back: %+v, %v", got, err)
	}
	if _, err := read(NewKeys([]byte("another fingerprint key, 32 bytes"))); err == nil {
		t.Error("a state read with another key")
	}
	name := p.Path(snapshot.StateFile)
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	for what, bad := range map[string][]byte{
		"a byte changed": append(bytes.Clone(data[:len(data)-1]), data[len(data)-1]^1),
		"a byte added":   append(bytes.Clone(data), 0),
		"no mac line":    data[bytes.IndexByte(data, '\n')+1:],
	} {
		if err := os.WriteFile(name, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := read(keys); err == nil {
			t.Errorf("%s: the state still reads", what)
		}
	}
}
