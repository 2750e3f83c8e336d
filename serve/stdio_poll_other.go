//go:build !unix

package serve

import "io"

// pollable returns in unchanged: see stdio_poll_unix.go.
func pollable(in io.ReadCloser) (io.ReadCloser, func()) { return in, func() {} }
