package snapshot

import (
	"bytes"
	"fmt"
	"io"

	"github.com/repoprep/repoprep/internal/numfmt"
)

// TooLargeError is a file ReadFileMax refused for its size: nothing of it
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
		return fmt.Sprintf("%s grew past %s bytes while it was read", e.Name, numfmt.Int(e.Max))
	}
	return fmt.Sprintf("%s is %s bytes, over the %s it may hold", e.Name, numfmt.Int(e.Size), numfmt.Int(e.Max))
}

// ReadFileMax reads the regular file name inside OUT whole, as ReadFile
// does, when it holds at most max bytes: a larger one is refused
// (*TooLargeError) from its fstat, before a byte is read, so a sparse file
// of terabytes planted in OUT costs one stat; one that grows past max while
// it is read is refused after max+1 bytes. A caller that must authenticate
// a file before trusting it thus never holds more than max bytes of it.
func (s *Snapshot) ReadFileMax(name string, max int64) ([]byte, error) {
	f, err := s.OpenFile(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() > max {
		return nil, &TooLargeError{Name: name, Size: info.Size(), Max: max}
	}
	var b bytes.Buffer
	b.Grow(int(info.Size()) + bytes.MinRead)
	n, err := b.ReadFrom(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if n > max {
		return nil, &TooLargeError{Name: name, Size: n, Max: max, Grew: true}
	}
	return b.Bytes(), nil
}
