//go:build !unix

package snapshot

import "errors"

// mapFile is not available here: the caller reads the file instead.
func mapFile(fd uintptr, size int64) ([]byte, func(), error) {
	return nil, nil, errors.ErrUnsupported
}
