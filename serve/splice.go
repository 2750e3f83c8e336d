package serve

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/repoprep/repoprep/internal/jsonstr"
)

// Over stdio, a tool result's large parts are encoded once, here, instead
// of by the SDK: the SDK marshals a CallToolResult with encoding/json and
// then compacts the bytes again at each of three levels (the result's
// MarshalJSON, the response's result, the message), which for a read of
// 500 lines (its text twice, as content and as structuredContent) was
// half of the server's CPU per call. The handler encodes the text and the
// structured content itself (as json.Marshal does, which is what the SDK
// runs on them), holds them under a token, and hands the SDK the same
// result with the token in place of each; lineConn.write finds the tokens
// in the message the SDK encoded and writes the held bytes in their place.
// For such a request the SDK still runs everything else (session state,
// cancellation, middleware, the envelope its protocol version wants):
// only the bytes of the two values are made here. The envelope of its
// answer is also what the express lane learns (stdio_express.go), which
// answers the session's later plain calls of that tool without the SDK.
// Other transports (HTTP, in-memory) get the SDK's encoding as before.

// splicer holds encoded results until the stdio connection writes them.
// Safe for concurrent use.
type splicer struct {
	prefix string // `"repoprep-splice-<random hex>-`: no text a snapshot holds can guess it
	mu     sync.Mutex
	next   uint64
	held   map[uint64]heldResult
	// spliced, when set, hears of each response spliced: its id, the
	// SDK's encoding of it with the tokens, and where they are (the
	// express lane learns the SDK's envelope from it).
	spliced func(id jsonrpc.ID, envelope []byte, spans []span)
}

// span is where a token lies in an encoded message, and which part it
// stands for: "t" the text, "s" the structured content.
type span struct {
	start, end int
	part       string
}

// heldResult is one result's large parts, encoded as JSON values.
type heldResult struct {
	text       []byte // the text content's string
	structured []byte // structuredContent; nil: none
}

// maxHeldResults bounds the results a splicer holds: one is left behind
// only when the SDK drops a response (a cancelled request), and the
// oldest go first.
const maxHeldResults = 256

// maxPlaceholderBytes bounds a result that can hold placeholders: the
// SDK's envelope around two tokens (its _meta, resultType), never a real
// answer.
const maxPlaceholderBytes = 4 << 10

func newSplicer() *splicer {
	var secret [16]byte
	rand.Read(secret[:])
	return &splicer{prefix: `"repoprep-splice-` + hex.EncodeToString(secret[:]) + "-", held: map[uint64]heldResult{}}
}

// hold encodes a successful tool result's text and structured content
// (nil: none) as the SDK would, keeps them, and returns the result to hand
// the SDK in their place: the same result with a token for each.
func (sp *splicer) hold(text string, structured any) (*mcp.CallToolResult, error) {
	h, err := encodeResult(text, structured)
	if err != nil {
		return nil, err
	}
	sp.mu.Lock()
	id := sp.next
	sp.next++
	sp.held[id] = h
	if len(sp.held) > maxHeldResults {
		for old := range sp.held {
			if old+maxHeldResults < id {
				delete(sp.held, old)
			}
		}
	}
	sp.mu.Unlock()
	token := sp.prefix[1:] + strconv.FormatUint(id, 10)
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: token + "-t"}}}
	if structured != nil {
		res.StructuredContent = json.RawMessage(`"` + token + `-s"`)
	}
	return res, nil
}

// encodeResult encodes a successful tool result's text and structured
// content (nil: none) as the SDK would; the bytes come from spliceBufs.
func encodeResult(text string, structured any) (heldResult, error) {
	var h heldResult
	var err error
	rr, isRead := structured.(ReadFileResult)
	var cuts []int
	consecutive := false
	if isRead {
		cuts, consecutive = readResultCuts(&rr, text)
	}
	switch {
	case consecutive: // read_file: the text escaped once (splice_encode.go)
		var ends []int
		h.text, ends = jsonstr.AppendCuts(getSpliceBuf(len(text)+len(text)/8+64), text, true, cuts, make([]int, 0, len(cuts)))
		h.structured = appendReadResult(getSpliceBuf(len(h.text)+256*len(cuts)+256), &rr, h.text, ends)
	default:
		if h.text, err = encodeJSON(text, len(text)); err != nil {
			return h, err
		}
		if structured != nil {
			if h.structured, err = encodeJSON(structured, len(text)); err != nil {
				return h, err
			}
		}
	}
	return h, nil
}

// encodeJSON is json.Marshal: HTML characters escaped, as the SDK's
// json.Marshal of a result escapes them. sizeHint is about how many bytes
// of text v holds; the bytes come from spliceBufs.
func encodeJSON(v any, sizeHint int) ([]byte, error) {
	b := bytes.NewBuffer(getSpliceBuf(sizeHint + sizeHint/8 + 512))
	if err := json.NewEncoder(b).Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// spliceBufs keeps the buffers results are encoded and spliced into, so
// that a read's tens of kilobytes are not garbage on every call.
var spliceBufs sync.Pool

// maxPooledSpliceBytes bounds a buffer kept for reuse.
const maxPooledSpliceBytes = 4 << 20

// getSpliceBuf returns an empty buffer of at least size bytes' capacity.
func getSpliceBuf(size int) []byte {
	if bp, ok := spliceBufs.Get().(*[]byte); ok && cap(*bp) >= size {
		return (*bp)[:0]
	}
	return make([]byte, 0, size)
}

// putSpliceBuf gives b back for reuse; b is not used again.
func putSpliceBuf(b []byte) {
	if cap(b) > 0 && cap(b) <= maxPooledSpliceBytes {
		b = b[:0]
		spliceBufs.Put(&b)
	}
}

// spliceMessage returns msg encoded as jsonrpc.EncodeMessage does, with
// the held parts in place of their tokens; ok is false when msg carries
// none, and the caller encodes it. data comes from spliceBufs: give it
// back with putSpliceBuf once written.
func (sp *splicer) spliceMessage(msg jsonrpc.Message) (data []byte, ok bool, err error) {
	resp, isResp := msg.(*jsonrpc.Response)
	if !isResp || resp.Error != nil || len(resp.Result) > maxPlaceholderBytes || !bytes.Contains(resp.Result, []byte(sp.prefix)) {
		return nil, false, nil
	}
	envelope, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return nil, false, err
	}
	// The tokens, each a JSON string: `"<prefix><id>-t"` for the text,
	// `"<prefix><id>-s"` for the structured content, of one id.
	var spans []span
	var id uint64
	for off := 0; ; {
		at := bytes.Index(envelope[off:], []byte(sp.prefix))
		if at < 0 {
			break
		}
		start := off + at
		i := start + len(sp.prefix)
		n := bytes.IndexByte(envelope[i:], '"')
		if n < 0 || len(spans) == 2 {
			return nil, false, nil
		}
		digits, part, _ := strings.Cut(string(envelope[i:i+n]), "-")
		tokenID, perr := strconv.ParseUint(digits, 10, 64)
		if perr != nil || (len(spans) > 0 && tokenID != id) || (part != "t" && part != "s") {
			return nil, false, nil
		}
		id = tokenID
		spans = append(spans, span{start, i + n + 1, part})
		off = i + n + 1
	}
	if len(spans) == 0 {
		return nil, false, nil
	}
	sp.mu.Lock()
	h, found := sp.held[id]
	delete(sp.held, id)
	sp.mu.Unlock()
	if !found {
		return nil, false, nil
	}
	if sp.spliced != nil {
		sp.spliced(resp.ID, envelope, spans)
	}
	defer func() {
		putSpliceBuf(h.text)
		putSpliceBuf(h.structured)
	}()
	data = getSpliceBuf(len(envelope) + len(h.text) + len(h.structured) + 1)
	prev := 0
	for _, s := range spans {
		data = append(data, envelope[prev:s.start]...)
		if s.part == "t" {
			data = append(data, h.text...)
		} else {
			data = append(data, h.structured...)
		}
		prev = s.end
	}
	return append(data, envelope[prev:]...), true, nil
}

// splicerFor returns the splicer of the stdio session ss, or nil.
func (s *Server) splicerFor(ss *mcp.ServerSession) *splicer {
	if ss == nil {
		return nil
	}
	s.spliceMu.Lock()
	defer s.spliceMu.Unlock()
	return s.splicers[ss]
}
