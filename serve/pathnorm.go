package serve

import "strings"

// normalizePath tidies how a caller wrote a relative path before it is
// validated: "./a.txt" is "a.txt" and "a//b.txt" is "a/b.txt", as a shell
// or an editor would read them. Only "." segments before the last and empty
// segments between others go; anything else ("..", a leading "/", a trailing
// "/" or "/.", look-alikes and encodings) is left for validation to refuse.
func normalizePath(name string) string {
	if name == "" || name[0] == '/' || !(strings.Contains(name, "//") || strings.HasPrefix(name, "./") || strings.Contains(name, "/./")) {
		return name
	}
	segs := strings.Split(name, "/")
	kept := segs[:0:0]
	for i, seg := range segs {
		last := i == len(segs)-1
		if !last && (seg == "." || seg == "") {
			continue
		}
		kept = append(kept, seg)
	}
	return strings.Join(kept, "/")
}
