package testkit

import (
	"os"
	"strconv"
	"strings"
)

// ReadBytes is what this process has read with read system calls
// (/proc/self/io's rchar), or -1 where the system keeps no such count: a
// test that a planted file is refused unread measures with it.
func ReadBytes() int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}
