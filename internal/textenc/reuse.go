package textenc

import (
	"bufio"
	"io"
	"unicode/utf8"
)

// maxKeptBytes bounds the buffers a Normalizer keeps between files: one
// that grew for an unusual file (a token batch of a long line) is dropped
// rather than held for the rest of the run.
const maxKeptBytes = 2 << 20

// Normalizer is Normalize for a worker that normalizes one file after
// another: it keeps its buffers (the 64 KiB read-ahead, the sink's output
// and token batch, the read chunk) from one call to the next, where
// Normalize allocates about 200 KiB for every file. The zero value is
// ready to use. Not safe for concurrent use: one per goroutine.
type Normalizer struct {
	br      *bufio.Reader
	out     []byte
	pending []byte
	chunk   []byte
}

// Normalize streams src to dst as Normalize does, with n's buffers and
// what opts says of the file.
func (n *Normalizer) Normalize(src io.Reader, dst io.Writer, opts Options) (Result, error) {
	if n.br == nil {
		n.br = bufio.NewReaderSize(src, sampleBytes)
		n.out = make([]byte, 0, flushBytes+utf8.UTFMax+1)
		n.chunk = make([]byte, chunkBytes)
	} else {
		n.br.Reset(src)
	}
	defer n.br.Reset(nil) // hold no reference to src between calls
	res := Result{Encoding: "utf-8"}
	out := &sink{dst: dst, res: &res, out: n.out[:0], pending: n.pending[:0], chunk: n.chunk, skipTokens: opts.NoTokens, batches: opts.Batches}
	err := normalize(n.br, out, &res, opts)
	if err == nil {
		err = out.close()
	}
	if cap(out.out) <= maxKeptBytes {
		n.out = out.out[:0]
	}
	if cap(out.pending) <= maxKeptBytes {
		n.pending = out.pending[:0]
	}
	return res, err
}
