//go:build !unix

package pipeline

import "errors"

// setNoFile: there is no descriptor limit to set here; the tests that
// starve a run of descriptors skip (see their callers).
func setNoFile(uint64) error { return errors.ErrUnsupported }

// haveRlimit: setNoFile does not work here.
const haveRlimit = false
