package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Over stdio, the SDK's handling of a tools/call request was a fifth of
// the read server's CPU a call, around the tool's own work: it decodes the
// params twice, each time through a fresh 32 KiB buffer, checks the
// request's _meta, runs the middleware, starts a goroutine whose stack
// grows in the decoder, and encodes the response's envelope. The express
// lane answers a session's plain calls itself: a request whose params are
// exactly a tool's name and its arguments, of a tool the SDK has already
// answered once in the session with a result. From that answer (splice.go
// hears of it) the lane learns the SDK's envelope of a successful result
// for the session's protocol version: the result's bytes around the
// tokens that stand for the text and the structured content. A later call
// of that tool is decoded and checked as the SDK path does (tool.prepare),
// run on its own goroutine under the same limits (Server.call), and
// answered with the envelope around the encoded parts: the bytes the SDK
// would have written (TestExpressSameBytes). Everything else goes to the
// SDK: any other method, params with anything more (_meta, a progress
// token), an unknown tool, arguments that do not check (the SDK answers
// in its words), and a call whose run fails (busy, timed out): the SDK
// runs that one again, so the access log shows it twice. A cancellation
// of a call answered here cancels its run; like the SDK, the lane still
// answers it.

// express is one stdio session's express lane.
type express struct {
	s      *Server
	ctx    context.Context // the runs', cancelled when the session closes
	cancel context.CancelFunc
	wg     sync.WaitGroup // the runs under way

	mu        sync.Mutex
	envelopes map[string]envelope           // tool → the SDK's successful result, cut at its tokens
	learning  map[string]string             // request id (idKey) → tool, of calls the SDK answers
	inflight  map[string]context.CancelFunc // request id → its run's cancel, of calls answered here
}

// envelope is a tool's successful result as the SDK encodes it, cut at its
// tokens: parts[0], the part kinds[0] names, parts[1], ... parts[n].
type envelope struct {
	parts [][]byte
	kinds []string // "t": the text; "s": the structured content
}

// expressRunning and expressAnswered, when set, hear of a call the lane
// runs (before the run, with its context) and of each answer it writes:
// tests hold a run back and tell the lane's answers from the SDK's.
// stdioConnected, when set, runs in ServeStdio between the SDK's Connect
// and the session's registration: a test widens that window.
var (
	expressRunning  func(ctx context.Context)
	expressAnswered func()
	stdioConnected  func()
)

// maxLearning bounds the calls the lane waits to learn from: one the SDK
// answers with an error is never heard of again.
const maxLearning = 64

func newExpress(s *Server) *express {
	ctx, cancel := context.WithCancel(context.Background())
	return &express{s: s, ctx: ctx, cancel: cancel, envelopes: map[string]envelope{},
		learning: map[string]string{}, inflight: map[string]context.CancelFunc{}}
}

// idKey is a request id as a map key: the SDK holds a number id as a
// float64, so 1 and 1.0 are one id, and "1" another.
func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

// plainCall returns the tool's name and arguments of tools/call params that
// hold those two fields and nothing else, the name a plain string.
func plainCall(params json.RawMessage) (name string, args []byte, ok bool) {
	var rawName []byte
	seen := 0
	ok = topLevelFields(params, func(key, value []byte) bool {
		switch {
		case string(key) == "name" && seen&1 == 0:
			rawName, seen = value, seen|1
		case string(key) == "arguments" && seen&2 == 0:
			args, seen = value, seen|2
		default:
			return false
		}
		return true
	})
	if !ok || seen != 3 || !plainString(rawName) {
		return "", nil, false
	}
	return string(rawName[1 : len(rawName)-1]), args, true
}

// take answers msg on the lane and reports true, or leaves it to the SDK
// (noting what to learn from its answer) and reports false.
func (e *express) take(c *lineConn, msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return false
	}
	if req.Method == "notifications/cancelled" && !req.ID.IsValid() {
		e.cancelled(req.Params)
		return false // the SDK hears of it too, and knows no such call
	}
	if req.Method != "tools/call" || !req.ID.IsValid() {
		return false
	}
	name, args, ok := plainCall(req.Params)
	if !ok {
		return false
	}
	t := e.s.tools[name]
	if t == nil || t.prepare == nil {
		return false
	}
	key := idKey(req.ID)
	e.mu.Lock()
	env, learned := e.envelopes[name]
	_, running := e.inflight[key]
	if !learned {
		if len(e.learning) >= maxLearning {
			clear(e.learning)
		}
		e.learning[key] = name
	}
	e.mu.Unlock()
	if !learned || running {
		return false // the SDK answers (and the lane learns), or judges the repeated id
	}
	head, ok := responseHead(req.ID)
	if !ok {
		return false
	}
	run, err := t.prepare(args)
	if err != nil {
		return false // the SDK answers it, in its words
	}
	ctx, cancel := context.WithCancel(e.ctx)
	e.mu.Lock()
	e.inflight[key] = cancel
	e.mu.Unlock()
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		// The id is freed before the answer goes out, by the lane or by
		// the SDK: a client may send the id again once it has its answer.
		freed := false
		free := func() {
			if !freed {
				freed = true
				e.mu.Lock()
				delete(e.inflight, key)
				e.mu.Unlock()
				cancel()
			}
		}
		defer func() {
			// A panic past the run's own recovery (encoding the result):
			// logged, and the SDK answers the call as it answers one.
			if r := recover(); r != nil {
				free()
				e.s.logPanic(ctx, "mcp", name, r)
				c.forward(msg)
			}
		}()
		if expressRunning != nil {
			expressRunning(ctx)
		}
		ans, err := run(ctx, "mcp")
		if err == nil {
			var structured any
			if t.output != nil {
				structured = ans.out
			}
			if h, herr := encodeResult(ans.text, structured); herr == nil {
				ok := env.fits(h)
				if ok {
					line := env.fill(head, h)
					free()
					if expressAnswered != nil {
						expressAnswered()
					}
					c.writeRaw(line)
				}
				putSpliceBuf(h.text)
				putSpliceBuf(h.structured)
				if ok {
					return
				}
			}
		}
		free()
		c.forward(msg) // the SDK runs it again and answers in its words
	}()
	return true
}

// cancelled cancels the run of the call a notifications/cancelled names,
// if the lane answers it.
func (e *express) cancelled(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil || !id.IsValid() {
		return
	}
	e.mu.Lock()
	cancel := e.inflight[idKey(id)]
	e.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// learn takes the envelope of a successful result the SDK encoded for a
// call it was handed to learn from (splicer.spliced).
func (e *express) learn(id jsonrpc.ID, message []byte, spans []span) {
	key := idKey(id)
	e.mu.Lock()
	name, ok := e.learning[key]
	delete(e.learning, key)
	e.mu.Unlock()
	if !ok {
		return
	}
	head, ok := responseHead(id)
	if !ok || len(message) < len(head)+1 || string(message[:len(head)]) != string(head) || message[len(message)-1] != '}' {
		return
	}
	env := envelope{}
	prev := len(head)
	for _, s := range spans {
		if s.start < prev {
			return
		}
		env.parts = append(env.parts, append([]byte(nil), message[prev:s.start]...))
		env.kinds = append(env.kinds, s.part)
		prev = s.end
	}
	env.parts = append(env.parts, append([]byte(nil), message[prev:len(message)-1]...))
	e.mu.Lock()
	e.envelopes[name] = env
	e.mu.Unlock()
}

// fits reports whether h has exactly the parts the envelope has tokens for.
func (env envelope) fits(h heldResult) bool {
	var t, s int
	for _, k := range env.kinds {
		switch k {
		case "t":
			t++
		case "s":
			s++
		}
	}
	return t == 1 && (s == 1) == (h.structured != nil) && s <= 1
}

// fill returns the response line: head, the envelope around h's parts,
// the closing brace and the newline. The bytes come from spliceBufs.
func (env envelope) fill(head []byte, h heldResult) []byte {
	n := len(head) + len(h.text) + len(h.structured) + 2
	for _, p := range env.parts {
		n += len(p)
	}
	b := append(getSpliceBuf(n), head...)
	for i, p := range env.parts {
		b = append(b, p...)
		if i < len(env.kinds) {
			if env.kinds[i] == "t" {
				b = append(b, h.text...)
			} else {
				b = append(b, h.structured...)
			}
		}
	}
	return append(b, '}', '\n')
}

// responseHead is a response's bytes up to its result: the SDK's encoding
// of a response with id and the result 0, without the 0 and the closing
// brace.
func responseHead(id jsonrpc.ID) ([]byte, bool) {
	probe, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: json.RawMessage("0")})
	if err != nil || len(probe) < 2 || string(probe[len(probe)-2:]) != "0}" {
		return nil, false
	}
	return probe[:len(probe)-2], true
}
