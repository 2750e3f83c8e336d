package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// shutdownGrace is how long a cancelled server waits for requests in flight.
const shutdownGrace = 10 * time.Second

// Handler is the HTTP face of the server: MCP streamable HTTP at /mcp, the
// JSON API at POST /v1/<tool>, and GET /healthz.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(
		func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{
			// Every tool is a pure read: no session state is worth keeping.
			Stateless:           true,
			JSONResponse:        true,
			MaxRequestBodyBytes: s.opts.MaxBodyBytes,
			Logger:              s.log,
		}))
	mux.Handle("/v1/{tool}", localOnly(http.HandlerFunc(s.handleTool)))
	mux.HandleFunc("GET /healthz", s.handleHealth)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such endpoint; use POST /v1/<tool>, /mcp or GET /healthz")
	})
	return s.accessLog(s.recoverHTTP(canonicalOnly(s.limitBody(http.NewCrossOriginProtection().Handler(mux)))))
}

// Reading a refused body through, so its sender sees the 413: at most this
// much, for at most this long. A client that sends more, or more slowly,
// may meet a reset connection instead; one sending forever costs no more.
const (
	maxDrainBytes = 1 << 30
	drainTimeout  = 10 * time.Second
)

// limitBody answers a request body larger than MaxBodyBytes with 413 and a
// JSON error, on every endpoint (/mcp's SDK would answer in plain text). A
// body within the limit is read here and handed on from memory.
//
// Many clients send the whole body before they read the response. Answer
// one early and close, and the rest of its body arrives at a closed socket:
// the kernel resets the connection, the client's write fails, and the
// response it never read is lost with it (a 100 MB body met exactly that).
// So the 413 is sent, then the rest of the body is read and dropped (up to
// maxDrainBytes, within drainTimeout) before the connection closes. A client
// that asked to be told first (Expect: 100-continue) has sent nothing yet:
// it gets the 413 at once and no invitation to send.
func (s *Server) limitBody(h http.Handler) http.Handler {
	limit := s.opts.MaxBodyBytes
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
			h.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > limit {
			tooLarge(w, r, limit)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
		switch {
		case err != nil:
			writeError(w, http.StatusBadRequest, "request body could not be read")
			return
		case int64(len(body)) > limit: // a body of unknown length
			tooLarge(w, r, limit)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})
}

// tooLarge answers 413 and reads the rest of the body through (see
// limitBody), unless the client is waiting for 100 Continue.
func tooLarge(w http.ResponseWriter, r *http.Request, limit int64) {
	w.Header().Set("Connection", "close")
	waiting := strings.EqualFold(r.Header.Get("Expect"), "100-continue")
	rc := http.NewResponseController(w)
	// Without full duplex, net/http reads at most 256 KB of what the
	// handler left unread, then closes: the reset this avoids.
	duplex := !waiting && rc.EnableFullDuplex() == nil
	writeError(w, http.StatusRequestEntityTooLarge, "request body larger than "+itoa(limit)+" bytes; send less (the limit is --max-body)")
	if !duplex {
		return
	}
	rc.Flush()
	rc.SetReadDeadline(time.Now().Add(drainTimeout))
	io.CopyN(io.Discard, r.Body, maxDrainBytes)
}

// canonicalOnly answers 400 for a request path with ".", ".." or empty
// segments. net/http's ServeMux would redirect it to its cleaned form with
// an HTML 307 ("/../../etc/passwd" to "/etc/passwd"): nothing leaks that
// way, but a client probing the server should get the API's JSON refusal.
func canonicalOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if clean := path.Clean(p); p == "" || p[0] != '/' || clean != p && clean+"/" != p {
			writeError(w, http.StatusBadRequest, "request path "+echo(p)+" has '.', '..' or empty segments; use POST /v1/<tool>, /mcp or GET /healthz")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// recoverHTTP answers 500 with one log line when a handler panics, instead
// of net/http's reset connection and multi-line stack trace.
func (s *Server) recoverHTTP(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw, _ := w.(*statusWriter)
		defer func() {
			rec := recover()
			if rec == nil || rec == http.ErrAbortHandler {
				if rec != nil {
					panic(rec)
				}
				return
			}
			s.logPanic(r.Context(), "http", r.URL.Path, rec)
			if sw == nil || sw.status == 0 {
				writeError(w, http.StatusInternalServerError, errInternal.Error())
			}
		}()
		h.ServeHTTP(w, r)
	})
}

// handleTool runs one tool from a JSON body and answers
// {"text": ..., structured fields} or {"error": ...}.
func (s *Server) handleTool(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "use POST with the tool's arguments as a JSON body")
		return
	}
	t, ok := s.tools[r.PathValue("tool")]
	if !ok {
		names := make([]string, 0, len(s.tools))
		for n := range s.tools {
			names = append(names, n)
		}
		slices.Sort(names)
		writeError(w, http.StatusNotFound, "unknown tool "+echo(r.PathValue("tool"))+"; tools: "+strings.Join(names, ", "))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "request body larger than "+itoa(tooBig.Limit)+" bytes")
			return
		}
		writeError(w, http.StatusBadRequest, "request body could not be read")
		return
	}
	ans, err := t.run(r.Context(), "http", body)
	if err != nil {
		writeError(w, statusOf(err), err.Error())
		return
	}
	var buf bytes.Buffer
	buf.WriteString(`{"text":`)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ans.text); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	out, err := json.Marshal(ans.out)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if len(out) > 2 { // splice the structured fields after "text"
		buf.WriteByte(',')
		buf.Write(out[1:])
	} else {
		buf.WriteByte('}')
	}
	buf.WriteByte('\n')
	w.Header().Set("Content-Type", "application/json")
	w.Write(buf.Bytes())
}

// statusOf maps a tool error to its HTTP status.
func statusOf(err error) int {
	switch {
	case errors.Is(err, ErrBusy):
		return http.StatusTooManyRequests
	case errors.Is(err, ErrBadRequest), errors.Is(err, ErrRefused):
		return http.StatusBadRequest
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout
	case errors.Is(err, context.Canceled):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// Health is what GET /healthz answers: which snapshot is being served, so a
// cron job that just ran `repoprep run` can confirm the server took it.
type Health struct {
	Status        string `json:"status"`
	FilesJSONHash string `json:"files_json_sha256"` // as `sha256sum OUT/files.json` prints it
	Published     string `json:"published"`         // files.json's modification time, RFC 3339 UTC
	Files         int    `json:"files"`
	Readable      int    `json:"readable"`
	SearchIndex   bool   `json:"search_index"` // search narrows files with OUT/search.index
}

// handleHealth answers 200 with the snapshot's identity while one is loaded.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	s.refresh()
	s.mu.Lock()
	sn := s.cur
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if sn == nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"status":"no snapshot"}`+"\n")
		return
	}
	json.NewEncoder(w).Encode(Health{
		Status: "ok", FilesJSONHash: sn.listHash, Published: sn.stamp.Published().UTC().Format(time.RFC3339Nano),
		Files: len(sn.manifest.Files), Readable: len(sn.readable), SearchIndex: sn.trigrams != nil,
	})
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]string{"error": msg})
}

// localOnly refuses, like the MCP SDK does for /mcp, a request that reached
// a loopback listener under a non-loopback Host: a DNS-rebinding page in a
// browser must not read the snapshot.
func localOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && isLoopback(la.String()) && !isLoopback(r.Host) {
			writeError(w, http.StatusForbidden, "Host "+echo(r.Host)+" is not a loopback name")
			return
		}
		h.ServeHTTP(w, r)
	})
}

func isLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// statusWriter remembers the status and size for the access log.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += n
	return n, err
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// accessLog writes one line per HTTP request: method, path, status, size and
// time. Bodies are never logged.
func (s *Server) accessLog(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "http",
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", sw.status), slog.Int("bytes", sw.bytes),
			slog.Duration("took", time.Since(start)), slog.String("remote", r.RemoteAddr))
	})
}

// Serve serves the HTTP API on ln until ctx is done, then shuts down
// gracefully: no new connections, requests in flight get shutdownGrace.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       s.opts.RequestTimeout,
		WriteTimeout:      s.opts.RequestTimeout + 5*time.Second, // let a timed-out call still answer
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	s.log.Info("serving", "addr", ln.Addr().String(), "out", s.out)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	<-errc // http.ErrServerClosed once Shutdown began
	return err
}

// ListenAndServe listens on addr (e.g. "127.0.0.1:8080") and calls Serve.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
