package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Build facts. A release build sets them with -ldflags "-X main.version=v1.2.3
// -X main.commit=<sha>"; any other build takes them from the information the
// go command stamps into every binary (module version for `go install
// …@v1.2.3`, VCS revision for a build inside a git checkout).
var (
	version = ""
	commit  = ""
)

// buildInfo is what `repoprep version` prints and report.json records.
type buildInfo struct {
	Version string // module version, "(devel)" for a source build without tags
	Commit  string // VCS revision, with "-dirty" when built from a modified tree; "" if unknown
	Go      string // Go toolchain that built the binary
}

// currentBuild combines the link-time variables with debug.ReadBuildInfo;
// the link-time values win because a release names its tag explicitly.
func currentBuild() buildInfo {
	b := buildInfo{Version: version, Commit: commit, Go: runtime.Version()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		if b.Version == "" {
			b.Version = "(devel)"
		}
		return b
	}
	if b.Version == "" {
		b.Version = info.Main.Version
	}
	if b.Version == "" {
		b.Version = "(devel)" // go test and go run leave Main.Version empty
	}
	if b.Commit == "" {
		var rev string
		var dirty bool
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" && dirty {
			rev += "-dirty"
		}
		b.Commit = rev
	}
	return b
}

// String is the one line `repoprep version` prints:
// "repoprep v1.2.3 commit 0123abc go1.26.8 linux/amd64".
func (b buildInfo) String() string {
	c := b.Commit
	if c == "" {
		c = "unknown"
	}
	return fmt.Sprintf("repoprep %s commit %s %s %s/%s", b.Version, c, b.Go, runtime.GOOS, runtime.GOARCH)
}
