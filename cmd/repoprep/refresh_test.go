package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/repoprep/repoprep/refresh"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/serve"
)

// TestRefreshAudit: the audit says in one line what a run reused, and
// --full reuses nothing.
func TestRefreshAudit(t *testing.T) {
	src := smallRepo(t, nil)
	out := filepath.Join(t.TempDir(), "o")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "none: no previous snapshot"},
		{nil, " of 2 from the previous snapshot"},
		{[]string{"--full"}, "none: --full"},
	} {
		args := append([]string{"run", "--progress", "never", "-o", out}, tt.args...)
		code, stdout, stderr := runCmd(t, append(args, src)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", tt.args, code, stderr)
		}
		line := ""
		for l := range strings.SplitSeq(stdout, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "reused") {
				line = l
			}
		}
		if !strings.Contains(line, tt.want) {
			t.Errorf("%v: audit line %q, want %q\n%s", tt.args, line, tt.want, stdout)
		}
	}
}

// TestServeThroughRefresh: a server keeps answering while a refresh runs
// and publishes, and afterwards /healthz names the new files.json and
// read_file serves the new text.
//
// The whole pass stages 200 files and lets the tree age past
// refresh.RacyWindow with a real sleep. Under -short (make test's race
// pass) it stages 50 and sets the window to zero instead of sleeping (as
// pipeline's refresh tests do): the refresh still reuses every unchanged
// file while the readers run.
func TestServeThroughRefresh(t *testing.T) {
	nFiles := 200 // a multiple of 10: pkg0 to pkg9 hold nFiles/10 each
	if testing.Short() {
		nFiles = 50
	}
	files := map[string]string{"notes.md": "first version\n"}
	for i := range nFiles {
		files[fmt.Sprintf("pkg%d/f%d.go", i%10, i)] = fmt.Sprintf("package pkg\n\n// F%d is number %d.\nfunc F%d() int { return %d }\n", i, i, i, i)
	}
	src := smallRepo(t, files)
	// A file changed within two seconds of a run is read again by the next
	// (the previous run may have read it mid-tick): let the tree age, or
	// under -short close that window for this test.
	if testing.Short() {
		racy := refresh.RacyWindow
		refresh.RacyWindow = 0
		t.Cleanup(func() { refresh.RacyWindow = racy })
	} else {
		time.Sleep(2100 * time.Millisecond)
	}
	out := filepath.Join(t.TempDir(), "o")
	if code, _, stderr := runCmd(t, "run", "-q", "-o", out, src); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	srv, err := serve.New(out, serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()

	health := func() serve.Health {
		resp, err := http.Get(hs.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var h serve.Health
		if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || resp.StatusCode != 200 {
			t.Fatalf("healthz: %d %v", resp.StatusCode, err)
		}
		return h
	}
	read := func(path string) (string, error) {
		body := fmt.Sprintf(`{"files":[{"path":%q}]}`, path)
		resp, err := http.Post(hs.URL+"/v1/read_file", "application/json", strings.NewReader(body))
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			return "", fmt.Errorf("read_file %s: %d %s", path, resp.StatusCode, b)
		}
		return string(b), nil
	}
	sum := func() string {
		b, err := os.ReadFile(filepath.Join(out, "files.json"))
		if err != nil {
			t.Fatal(err)
		}
		s := sha256.Sum256(b)
		return hex.EncodeToString(s[:])
	}
	before := health()
	if before.FilesJSONHash != sum() {
		t.Fatalf("healthz %s, files.json %s", before.FilesJSONHash, sum())
	}

	// Readers all through the refresh.
	var stop atomic.Bool
	var reads atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := range 4 {
		wg.Go(func() {
			for n := 0; !stop.Load(); n++ {
				if _, err := read(fmt.Sprintf("pkg%d/f%d.go", (i+n)%10, (i+n)%10+10*(n%(nFiles/10)))); err != nil {
					errs <- err
					return
				}
				reads.Add(1)
			}
		})
	}
	if err := os.WriteFile(filepath.Join(src, "notes.md"), []byte("second version\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(t, "run", "--json", "--progress", "never", "-o", out, src)
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if code != exitOK {
		t.Fatalf("refresh: exit %d: %s", code, stderr)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.Refresh == nil || rep.Refresh.Previous != "used" || rep.Refresh.Reused < nFiles {
		t.Fatalf("the second run did not refresh: %v %+v", err, rep.Refresh)
	}
	after := health()
	if after.FilesJSONHash != sum() || after.FilesJSONHash == before.FilesJSONHash {
		t.Errorf("healthz after the refresh names %s; files.json is %s (before: %s)", after.FilesJSONHash, sum(), before.FilesJSONHash)
	}
	text, err := read("notes.md")
	if err != nil || !strings.Contains(text, "second version") {
		t.Errorf("after the refresh: %v %s", err, text)
	}
	if reads.Load() == 0 {
		t.Error("no read ran during the refresh")
	}
	t.Logf("%d reads during the refresh", reads.Load())
	if bytes.Contains([]byte(stderr), []byte("warn")) {
		t.Errorf("stderr: %s", stderr)
	}
}
