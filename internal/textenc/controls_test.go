package textenc

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"
)

// TestValidUTF8WithControlsStaged: valid UTF-8 thick with control bytes
// (vim's croatian_utf-8.vim maps keys to literal ^V) is staged as written;
// it was refused as binary. The same bytes in a legacy charset still are.
func TestValidUTF8WithControlsStaged(t *testing.T) {
	text := strings.Repeat("lmap \x16č č\nlmap \x16ć ć\n", 40)
	var out bytes.Buffer
	res, err := Normalize(strings.NewReader(text), &out)
	if err != nil || out.String() != text || res.Encoding != "utf-8" {
		t.Fatalf("valid UTF-8 with controls: %v, %q, staged as written: %v", err, res.Encoding, out.String() == text)
	}
	legacy, _ := charmap.Windows1250.NewEncoder().String(strings.Repeat("\x16\x16č\x16\n", 40))
	if _, err := Normalize(strings.NewReader(legacy), &bytes.Buffer{}); !errors.Is(err, ErrBinary) {
		t.Errorf("windows-1250 thick with controls: %v, want ErrBinary", err)
	}
}
