package snapshot

import (
	"fmt"

	"github.com/repoprep/repoprep/internal/numfmt"
)

// TooLargeError is a file of OUT refused for its size (by ReadFile's caps
// or ReadFileMax's): nothing of it
// was read when its size said so, at most Max+1 bytes when it grew past
// Max while it was read.
type TooLargeError struct {
	Name      string
	Size, Max int64 // Size: what fstat said, or (Grew) the bytes read
	Grew      bool
}

// Is makes a TooLargeError an ErrTooLarge, the refusal ReadFile's own caps
// give: one test for a file of OUT refused for its size.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

func (e *TooLargeError) Error() string {
	if e.Grew {
		return fmt.Sprintf("%s grew past %s bytes while it was read: %v", e.Name, numfmt.Int(e.Max), ErrTooLarge)
	}
	return fmt.Sprintf("%s is %s bytes, over the %s it may hold: %v", e.Name, numfmt.Int(e.Size), numfmt.Int(e.Max), ErrTooLarge)
}

// ReadFileMax reads the regular file name inside OUT whole, as ReadFile
// does, when it holds at most max bytes: a larger one is refused
// (*TooLargeError) from its fstat, before a byte is read, so a sparse file
// of terabytes planted in OUT costs one stat; one that grows past max while
// it is read is refused after max+1 bytes. A caller that must authenticate
// a file before trusting it thus never holds more than max bytes of it.
func (s *Snapshot) ReadFileMax(name string, max int64) ([]byte, error) {
	return s.readAtMost(name, func(int64) int64 { return max })
}
