//go:build !unix

package serve

import "io/fs"

// openNoBlock is zero where FIFOs cannot be planted through a path open.
const openNoBlock = 0

// devIno is unknown here; snapshot changes are then seen through files.json's
// size and mtime only.
func devIno(fs.FileInfo) (dev, ino uint64) { return 0, 0 }

// linkCount is unknown here; os.SameFile still catches a swapped file.
func linkCount(fs.FileInfo) uint64 { return 1 }
