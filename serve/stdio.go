package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxMessageDepth bounds how deeply one JSON-RPC message may nest. MCP
// messages nest a handful of levels; the SDK's own decoder stops at 1000 and
// then ends the session.
const maxMessageDepth = 64

// lineTransport is MCP over newline-delimited JSON on a pair of streams,
// like the SDK's IOTransport, except that a bad line never ends the session:
// the SDK ends it on the first line it cannot decode (invalid JSON, an
// object id, a missing "jsonrpc", a batch after 2025-06-18, a frame over its
// limit), so one garbled write from a client took the server down. Here each
// line is checked before the SDK sees it; a bad one is answered with a
// JSON-RPC error when its id can be read, otherwise skipped with a log line.
type lineTransport struct {
	in      io.ReadCloser
	out     io.WriteCloser
	maxLine int // bytes per line; a longer line is refused unread
	log     *slog.Logger
	splice  *splicer // results encoded by the handlers, written in place of their placeholders; nil: none
	express *express // plain tool calls answered without the SDK (stdio_express.go); nil: none
	// ready, when set, holds the reader back until it is closed: the
	// session's splicer is registered only once Connect has returned, and
	// a call handled before that would be answered unspliced, so the
	// express lane would not learn from it.
	ready <-chan struct{}
}

// Connect starts the reader; the connection is the SDK's from then on.
func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{t: t, incoming: make(chan jsonrpc.Message), closed: make(chan struct{})}
	go c.readLoop()
	return c, nil
}

type lineConn struct {
	t         *lineTransport
	writeMu   sync.Mutex // one message per write, whole
	incoming  chan jsonrpc.Message
	readErr   error // why incoming was closed; set before closing it
	closed    chan struct{}
	closeOnce sync.Once
}

// readLoop reads lines until the stream ends, handing good messages to Read
// and answering bad ones itself.
func (c *lineConn) readLoop() {
	defer close(c.incoming)
	if c.t.express != nil {
		defer c.t.express.wg.Wait() // a call it hands back (forward) still reaches the SDK
	}
	if c.t.ready != nil {
		select {
		case <-c.t.ready:
		case <-c.closed:
			return
		}
	}
	br := bufio.NewReaderSize(c.t.in, 64<<10)
	for {
		line, size, err := readLine(br, c.t.maxLine)
		if len(bytes.TrimSpace(line)) > 0 || size > len(line) {
			if msg := c.check(line, size); msg != nil && (c.t.express == nil || !c.t.express.take(c, msg)) {
				select {
				case c.incoming <- msg:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			c.readErr = err
			return
		}
	}
}

// readLine returns the next line without its end, at most limit bytes of it,
// and its full size; a longer line is consumed whole but not kept.
func readLine(br *bufio.Reader, limit int) (line []byte, size int, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		size += len(chunk)
		if room := limit - len(line); room > 0 {
			line = append(line, chunk[:min(room, len(chunk))]...)
		}
		switch {
		case err == nil:
			size--
			line = bytes.TrimSuffix(line, []byte("\n"))
			return line, size, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return line, size, err
		}
	}
}

// check validates one line and returns the message for the SDK, or nil
// when the line was answered or skipped here.
func (c *lineConn) check(line []byte, size int) jsonrpc.Message {
	line = bytes.TrimSpace(line)
	if size > c.t.maxLine {
		c.refuse(line, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message of %d bytes is over the %d-byte limit", size, c.t.maxLine), size)
		return nil
	}
	if !json.Valid(line) {
		c.refuse(line, jsonrpc.CodeParseError, "not valid JSON", size)
		return nil
	}
	if d := jsonDepth(line); d > maxMessageDepth {
		c.refuse(line, jsonrpc.CodeInvalidRequest, fmt.Sprintf("nests %d levels deep, more than %d", d, maxMessageDepth), size)
		return nil
	}
	if line[0] == '{' {
		// The common line, a request of plain fields, in one pass; any
		// other goes through the checks below.
		if req, ok := decodeRequest(line); ok {
			return req
		}
	}
	switch line[0] {
	case '{':
	case '[':
		var batch []json.RawMessage
		json.Unmarshal(line, &batch)
		if len(batch) == 0 {
			c.refuse(nil, jsonrpc.CodeInvalidRequest, "empty batch", size)
		}
		for _, m := range batch {
			c.refuse(m, jsonrpc.CodeInvalidRequest, "batches are not supported (MCP 2025-06-18 removed them); send one message per line", len(m))
		}
		return nil
	default:
		c.refuse(nil, jsonrpc.CodeInvalidRequest, "not a JSON-RPC message object", size)
		return nil
	}
	var head struct {
		Version *string `json:"jsonrpc"`
	}
	json.Unmarshal(line, &head)
	if head.Version == nil || *head.Version != "2.0" {
		c.refuse(line, jsonrpc.CodeInvalidRequest, `"jsonrpc" must be "2.0"`, size)
		return nil
	}
	if _, st := messageID(line); st == idBad {
		c.refuse(nil, jsonrpc.CodeInvalidRequest, "id must be a string or an integer", size)
		return nil
	}
	msg, err := decodeMessage(line)
	if err != nil {
		c.refuse(line, jsonrpc.CodeInvalidRequest, "not a JSON-RPC request, notification or response", size)
		return nil
	}
	return msg
}

// refuse answers a bad line with a JSON-RPC error when its id can be read
// and logs it either way.
func (c *lineConn) refuse(line []byte, code int64, why string, size int) {
	id, state := messageID(line)
	answered := state == idOK
	c.t.log.Warn("stdio: bad message", "why", why, "bytes", size, "answered", answered)
	if !answered {
		return
	}
	resp := &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: why}}
	c.write(resp)
}

type idState int

const (
	idNone idState = iota // absent or null: a notification, or unreadable
	idOK
	idBad // present but neither a string nor an exact integer
)

// messageID reads the top-level "id" of a message, even a truncated or
// invalid one, as long as the id comes before the damage.
func messageID(line []byte) (jsonrpc.ID, idState) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return jsonrpc.ID{}, idNone
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return jsonrpc.ID{}, idNone
		}
		if key != "id" {
			if skipValue(dec) != nil {
				return jsonrpc.ID{}, idNone
			}
			continue
		}
		tok, err := dec.Token()
		if err != nil {
			return jsonrpc.ID{}, idNone
		}
		switch v := tok.(type) {
		case nil:
			return jsonrpc.ID{}, idNone
		case string:
			id, _ := jsonrpc.MakeID(v)
			return id, idOK
		case json.Number:
			// The SDK carries ids through float64: only integers it can hold
			// exactly come back as they were sent.
			if n, ok := exactInt(string(v)); ok && n <= 1<<53 && n >= -(1<<53) {
				id, _ := jsonrpc.MakeID(float64(n))
				return id, idOK
			}
		}
		return jsonrpc.ID{}, idBad
	}
	return jsonrpc.ID{}, idNone
}

// skipValue consumes one value from dec, however nested.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// jsonDepth is the deepest nesting of arrays and objects in valid JSON.
func jsonDepth(b []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case msg, ok := <-c.incoming:
		if !ok {
			if c.readErr != nil && !errors.Is(c.readErr, io.EOF) {
				return nil, c.readErr
			}
			return nil, io.EOF
		}
		return msg, nil
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.write(msg)
}

func (c *lineConn) write(msg jsonrpc.Message) error {
	var data []byte
	var err error
	spliced := false
	if c.t.splice != nil {
		if data, spliced, err = c.t.splice.spliceMessage(msg); err != nil {
			return fmt.Errorf("encode message: %w", err)
		}
	}
	if !spliced {
		if data, err = jsonrpc.EncodeMessage(msg); err != nil {
			return fmt.Errorf("encode message: %w", err)
		}
	}
	data = append(data, '\n')
	c.writeMu.Lock()
	_, err = c.t.out.Write(data)
	c.writeMu.Unlock()
	if spliced {
		putSpliceBuf(data)
	}
	return err
}

// writeRaw writes one encoded message line, b, whole, and gives b back
// to spliceBufs.
func (c *lineConn) writeRaw(b []byte) error {
	c.writeMu.Lock()
	_, err := c.t.out.Write(b)
	c.writeMu.Unlock()
	putSpliceBuf(b)
	return err
}

// forward hands msg to the SDK, unless the connection is closed.
func (c *lineConn) forward(msg jsonrpc.Message) {
	select {
	case c.incoming <- msg:
	case <-c.closed:
	}
}

func (c *lineConn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		if c.t.express != nil {
			c.t.express.cancel() // the runs under way stop; readLoop waits for them
		}
		close(c.closed)
		err = errors.Join(c.t.in.Close(), c.t.out.Close())
	})
	return err
}

func (c *lineConn) SessionID() string { return "" }
