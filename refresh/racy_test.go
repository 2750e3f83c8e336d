package refresh

import (
	"testing"
	"time"
)

// TestRacyWindowFitsTimestamps: the window in which a file is read again
// fits the timestamps its file system keeps. Sub-second stamps (ext4,
// XFS, btrfs, tmpfs) get two kernel ticks; whole-second stamps (FAT's
// two seconds, ext3's one) keep the two-second window. A fixed two
// seconds re-read every file saved in the two seconds before a run.
func TestRacyWindowFitsTimestamps(t *testing.T) {
	const started = int64(1_700_000_000) * int64(time.Second)
	sec, ms := int64(time.Second), int64(time.Millisecond)
	tests := []struct {
		name         string
		mtime, ctime int64
		racy         bool
	}{
		{"ns stamps, a second before", started - sec + 123, started - sec + 456, false},
		{"ns stamps, 50 ms before", started - 50*ms + 7, started - 50*ms + 7, false},
		{"ns stamps, 5 ms before", started - 5*ms + 7, started - 5*ms + 7, true},
		{"ns stamps, after the start", started + 3*ms + 1, started + 3*ms + 1, true},
		{"ns ctime only, 5 ms before", started - 5*sec, started - 5*ms + 1, true},
		{"whole seconds, a second before", started - sec, started - sec, true},
		{"whole seconds, three seconds before", started - 3*sec, started - 3*sec, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := racy(tt.mtime, tt.ctime, started); got != tt.racy {
				t.Errorf("racy = %v, want %v (window %v)", got, tt.racy, time.Duration(racyWindow(tt.mtime, tt.ctime)))
			}
		})
	}
}
