package textenc

import (
	"errors"
	"io"
	"unicode/utf8"
)

// StreamTokens counts a staged text as the sink counted it while it
// decoded the source into that text: in the sink's flushes (each ends at
// the first rune boundary at or past flushBytes, as the sink's runes and
// ASCII runs fill it) handed to the same batching (countTokens). Where a
// text has no cut for over tokenMaxPendingBytes, a batch ends wherever the
// pending text happens to end, so a count taken in other pieces could
// differ by a token per batch; this one cannot. r must hold the staged
// text: valid UTF-8 with LF line ends, as the sink wrote it.
func StreamTokens(r io.Reader) (int, error) {
	return StreamBatches(r, nil)
}

// StreamBatches is StreamTokens with each batch counted by bc
// (Options.Batches), or by tokens.CountBytes when bc is nil.
func StreamBatches(r io.Reader, bc BatchCounter) (int, error) {
	var res Result
	s := &sink{res: &res, batches: bc}
	buf := make([]byte, 0, 2*flushBytes)
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		for len(buf) >= flushBytes {
			end := flushBytes
			for end < len(buf) && !utf8.RuneStart(buf[end]) {
				end++
			}
			if end == len(buf) && err == nil && len(buf) < cap(buf) {
				break // the rune that crosses flushBytes is not all read yet
			}
			s.countTokens(buf[:end], false)
			buf = append(buf[:0], buf[end:]...)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if len(buf) > 0 {
		s.countTokens(buf, false) // the sink's last flush, at close
	}
	s.countTokens(nil, true)
	return int(res.Tokens), nil
}
