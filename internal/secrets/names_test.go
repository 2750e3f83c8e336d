package secrets

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// ScanName finds a credential in a path, nothing in a plain one, and
// answers an empty name (most records' link target) at once with nothing.
func TestScanName(t *testing.T) {
	s := defaultScanner(t)
	rng := rand.New(rand.NewPCG(11, 12))
	key := "AKIA" + randString(rng, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16) // generated, never a real key
	if fs := s.ScanName("config/"+key+".json", nil); len(fs) != 1 || !strings.HasPrefix(fs[0].Rule, "aws-") {
		t.Errorf("ScanName of a path holding %s = %+v, want one aws finding", key, fs)
	}
	if fs := s.ScanName("src/net/http/server.go", nil); len(fs) != 0 {
		t.Errorf("a plain path: %+v", fs)
	}
	if fs := s.ScanName("", nil); fs != nil {
		t.Errorf("an empty name: %+v", fs)
	}
}
