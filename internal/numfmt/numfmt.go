// Package numfmt formats numbers for people, the one way REPO_MAP.md, the
// audit and the refresh summary write them: 12,345 files, 7%, 1.5 KiB.
package numfmt

import "fmt"

// Int formats n with thousands separators: 1,234,567.
func Int[N int | int64](n N) string {
	if n < 0 {
		return "-" + Int(-n)
	}
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Pct is part/whole as a whole percentage, "<1%" when small but present.
func Pct[N int | int64](part, whole N) string {
	if whole <= 0 {
		return "0%"
	}
	p := part * 100 / whole
	if p == 0 && part > 0 {
		return "<1%"
	}
	return fmt.Sprintf("%d%%", p)
}

// Plural is one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Bytes formats a byte count in binary units: 512 B, 1.5 KiB, 12.3 MiB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, suffix := float64(n)/unit, "KiB"
	for _, s := range []string{"MiB", "GiB", "TiB"} {
		if v < unit {
			break
		}
		v, suffix = v/unit, s
	}
	return fmt.Sprintf("%.1f %s", v, suffix)
}
