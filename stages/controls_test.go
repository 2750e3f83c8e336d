package stages

import (
	"bytes"
	"strings"
	"testing"
)

// TestFewControlsStillText: a text file with a control byte or two in
// its head (a ^C in a Lisp string, ^V in a vim keymap, ^_ markers in an
// rc file) is read as text, where mimetype's WHATWG rule made it
// application/octet-stream and triage then dropped it as binary unless its
// name promised text (xyzzy's lisp/life.l, winfile's rc files). Binary
// data, and text thick with controls, stay binary.
func TestFewControlsStillText(t *testing.T) {
	lisp := strings.Repeat("(defun life-step (board)\n  (let ((next (copy-board board)))\n    next))\n", 40)
	rc := strings.Repeat("IDS_OPEN \"Open\"\nIDS_CLOSE \"Close\"\n", 60)
	tests := []struct {
		name    string
		content []byte
		staged  bool
	}{
		{"life.l", []byte(lisp[:1500] + "\"\x03\"" + lisp[1500:]), true},
		{"w31.rc", []byte("\x1e\x1f" + rc), true},
		{"keymap.xx", []byte(strings.Repeat("map \x16<C-a> a\n", 3) + lisp), true},
		{"blob.dat", bytes.Repeat([]byte{0x03, 0x41, 0x1f, 0x42}, 1024), false},
		{"zeros.l", append([]byte(lisp), 0, 1, 2), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, staged, err := normalizeOne(t, tt.name, tt.content, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Staged != tt.staged {
				t.Fatalf("staged = %v (%s/%s, %s), want %v", rec.Staged, rec.Category, rec.Reason, rec.Mime, tt.staged)
			}
			if tt.staged && staged != string(tt.content) {
				t.Errorf("staged text differs from the ASCII source")
			}
		})
	}
}
