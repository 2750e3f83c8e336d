package pipeline

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/snapshot"
)

// TestRefusalsBesideStagedFiles: directories holding both files that
// normalize refuses and files it stages, many workers at once. Removing a
// refused file's empty directory while another worker was about to write
// into it once failed whole runs (GOROOT's crypto/x509 testdata: DER and
// PEM .crt files side by side).
func TestRefusalsBesideStagedFiles(t *testing.T) {
	t.Parallel() // changes no package state: see TestMain

	var der strings.Builder // binary, as a DER certificate is: every byte value
	for b := range 256 {
		der.WriteByte(byte(b))
	}
	files := map[string]string{}
	for i := range 300 {
		dir := fmt.Sprintf("certs%03d", i%60)
		files[fmt.Sprintf("%s/der%03d.crt", dir, i)] = fmt.Sprintf("0\x82%03d", i) + der.String()
		files[fmt.Sprintf("%s/pem%03d.crt", dir, i)] = fmt.Sprintf("-----BEGIN CERTIFICATE-----\nMII%03d\n-----END CERTIFICATE-----\n", i)
	}
	src := t.TempDir()
	testkit.WriteTree(t, src, files)
	for range 3 {
		out := filepath.Join(t.TempDir(), "out")
		res := runFixture(t, src, out, func(o *Options) { o.Workers = 8 })
		if drifts, err := snapshot.Verify(t.Context(), out); err != nil || len(drifts) != 0 {
			t.Fatalf("verify: %v %v", drifts, err)
		}
		if res.Report.Staged != 300 {
			t.Fatalf("staged %d files, want the 300 PEM files", res.Report.Staged)
		}
	}
}
