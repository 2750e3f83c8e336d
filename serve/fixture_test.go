package serve

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// baseOut is baseSnap published once per test process, which most tests
// read: publishing builds its search index and counts its tokens, a few
// hundred milliseconds of CPU under the race detector, against a copy's
// few milliseconds. Each test still gets its own OUT (a copy), so a test
// may change what it was given.
var baseOut struct {
	once sync.Once
	dir  string // the template; "" until once has run
	ok   bool   // publish returned: the template is whole
}

// TestMain removes the template once every test has run.
func TestMain(m *testing.M) {
	code := m.Run()
	if baseOut.dir != "" {
		os.RemoveAll(baseOut.dir)
	}
	os.Exit(code)
}

// publishBase publishes baseSnap at out (which must not exist yet), as
// publish(t, out, baseSnap()) does: by copying the template, made on the
// first call. If the template could not be made, it publishes afresh.
func publishBase(t testing.TB, out string) {
	t.Helper()
	baseOut.once.Do(func() {
		dir, err := os.MkdirTemp("", "repoprep-serve-base-")
		if err != nil {
			return
		}
		baseOut.dir = dir
		publish(t, filepath.Join(dir, "out"), baseSnap()) // t.Fatal leaves ok false
		baseOut.ok = true
	})
	if !baseOut.ok {
		publish(t, out, baseSnap())
		return
	}
	if err := copyOut(filepath.Join(baseOut.dir, "out"), out); err != nil {
		t.Fatal(err)
	}
}

// copyOut copies the directories and regular files below from to to,
// with their permission bits; a published snapshot holds nothing else.
func copyOut(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, info.Mode().Perm())
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, info.Mode().Perm())
	})
}

// TestPublishBaseIsPublish: the template's copy holds what publishing
// baseSnap afresh writes, byte for byte and with the same permissions.
func TestPublishBaseIsPublish(t *testing.T) {
	fresh, copied := filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "out")
	publish(t, fresh, baseSnap())
	publishBase(t, copied)
	if !baseOut.ok {
		t.Fatal("the template was not made: every test publishes afresh")
	}
	read := func(root string) map[string]string {
		files := map[string]string{}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			files[rel] = info.Mode().String()
			if info.Mode().IsRegular() {
				data, err := os.ReadFile(p)
				files[rel] += " " + string(data)
				return err
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	want, got := read(fresh), read(copied)
	if len(got) != len(want) || len(want) < 10 {
		t.Errorf("%d names copied, %d published", len(got), len(want))
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: the copy differs from a fresh publish", name)
		}
	}
}
