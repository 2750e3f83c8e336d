package numfmt

import (
	"math"
	"testing"
)

func TestInt(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0", 7: "7", 999: "999", 1000: "1,000", 12345: "12,345", 1234567: "1,234,567",
		-1234: "-1,234", math.MaxInt64: "9,223,372,036,854,775,807",
	} {
		if got := Int(n); got != want {
			t.Errorf("Int(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPct(t *testing.T) {
	for _, c := range []struct {
		part, whole int
		want        string
	}{{0, 0, "0%"}, {1, 0, "0%"}, {0, 10, "0%"}, {1, 1000, "<1%"}, {1, 3, "33%"}, {5, 5, "100%"}} {
		if got := Pct(c.part, c.whole); got != c.want {
			t.Errorf("Pct(%d, %d) = %q, want %q", c.part, c.whole, got, c.want)
		}
	}
}

func TestPlural(t *testing.T) {
	if Plural(1, "file", "files") != "file" || Plural(0, "file", "files") != "files" || Plural(2, "file", "files") != "files" {
		t.Error("Plural picks the wrong form")
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 5 << 20: "5.0 MiB", 3 << 30: "3.0 GiB", 2 << 40: "2.0 TiB", 5 << 50: "5120.0 TiB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
