package serve

import "strings"

// normalizePath tidies how a caller wrote a relative path before it is
// validated, as a shell or an editor would read it: "./a.txt" is "a.txt",
// "a//b.txt" is "a/b.txt" and "src/../src/a.txt" is "src/a.txt". "." and
// empty segments before the last go; ".." takes back the segment before it,
// on the name alone (as path.Clean reads it), never through the file system,
// so no link in the tree can make it mean anything else. Anything else is
// left for validation to refuse, the name as the caller wrote it: a ".."
// that climbs out of the snapshot, a name that tidies to nothing (the root),
// a leading "/", a trailing "/" or "/." (a directory), look-alikes and
// encodings.
func normalizePath(name string) string {
	if name == "" || name[0] == '/' || !(strings.Contains(name, "//") || strings.HasPrefix(name, "./") ||
		strings.Contains(name, "/./") || strings.Contains(name, "..")) {
		return name
	}
	segs := strings.Split(name, "/")
	kept := segs[:0:0]
	for i, seg := range segs {
		last := i == len(segs)-1
		switch {
		case seg == "..":
			if len(kept) == 0 {
				return name // leaves the snapshot
			}
			kept = kept[:len(kept)-1]
		case !last && (seg == "." || seg == ""):
		default:
			kept = append(kept, seg)
		}
	}
	if len(kept) == 0 {
		return name // the snapshot's root: not a file
	}
	return strings.Join(kept, "/")
}
