package secrets

import (
	"bytes"
	"slices"
)

// AckMarker is the inline marker that acknowledges a finding (WithInlineAcks).
const AckMarker = "repoprep:allow"

// commentOpeners start a comment in the languages a finding's line is likely in: shell,
// Python, YAML and TOML (#), C-like (// and /*), HTML and XML (<!--), SQL and Lua (--).
var commentOpeners = [][]byte{[]byte("#"), []byte("//"), []byte("/*"), []byte("<!--"), []byte("--")}

// acknowledges reports whether rest, what follows a finding on its line, holds a comment
// with AckMarker as a whole word: `# repoprep:allow`, `/* repoprep:allow */`. A marker
// in a string, in prose or glued to other text (repoprep:allowed) is not one.
func acknowledges(rest []byte) bool {
	start := -1
	for _, o := range commentOpeners {
		if i := bytes.Index(rest, o); i >= 0 && (start < 0 || i < start) {
			start = i
		}
	}
	if start < 0 {
		return false
	}
	words := bytes.Fields(rest[start:])
	return slices.ContainsFunc(words, func(w []byte) bool {
		for _, o := range commentOpeners {
			w = bytes.TrimPrefix(w, o)
		}
		w = bytes.TrimSuffix(bytes.TrimSuffix(w, []byte("*/")), []byte("-->"))
		return string(w) == AckMarker
	})
}
