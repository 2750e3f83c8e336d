//go:build !linux && !darwin

package serve

import "errors"

// exchangeDirs: no atomic swap of two names here (Windows publishes with
// two renames); the tests that need one skip.
func exchangeDirs(a, b string) error { return errors.ErrUnsupported }
