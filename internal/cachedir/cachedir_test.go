package cachedir

import (
	"path/filepath"
	"testing"
)

func TestDir(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/home/u/.cache")
	t.Setenv("HOME", "/home/u")
	tests := []struct{ env, want string }{
		{"", filepath.Join("/home/u/.cache", "repoprep", "things")},
		{"/tmp/elsewhere", "/tmp/elsewhere"},
		{"off", ""},
	}
	for _, tt := range tests {
		t.Setenv("REPOPREP_TEST_CACHE", tt.env)
		if got := Dir("REPOPREP_TEST_CACHE", "things"); got != tt.want {
			t.Errorf("REPOPREP_TEST_CACHE=%q: Dir = %q, want %q", tt.env, got, tt.want)
		}
	}
}
