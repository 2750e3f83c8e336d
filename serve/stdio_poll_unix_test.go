//go:build unix

package serve

import (
	"bufio"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestServeStdioPipe: over a real pipe, as MCP clients give a server its
// stdin, ServeStdio reads through the poller, answers, returns promptly
// when its context ends while a read waits, and leaves the pipe blocking
// as it found it.
func TestServeStdioPipe(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{})
	// A blocking pipe, as a client's spawn gives it (os.Pipe's are
	// non-blocking already).
	var fds [2]int
	if err := unix.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	inR, inW := os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "stdin-w")
	defer inR.Close()
	defer inW.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(ctx, inR, outW) }()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"files":[{"path":"nonl.txt"}]}}}`+"\n")
	br := bufio.NewReader(outR)
	for range 2 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(line, `"id":2`) && !strings.Contains(line, `   2 | two\n`) {
			t.Errorf("read_file over a pipe: %s", line)
		}
	}
	cancel() // a read is waiting on the pipe: it must not hold ServeStdio
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeStdio = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStdio did not return after its context ended")
	}
	flags, err := unix.FcntlInt(uintptr(fds[0]), unix.F_GETFL, 0)
	if err != nil || flags&unix.O_NONBLOCK != 0 {
		t.Errorf("stdin left non-blocking (flags %#x, %v)", flags, err)
	}
}
