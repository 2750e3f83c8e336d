//go:build !linux

package snapshot

// openNoATime: no O_NOATIME here.
const openNoATime = 0
