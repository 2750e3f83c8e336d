package serve

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// sameAsSDK fails unless decodeMessage(line) is what jsonrpc.DecodeMessage
// makes of line.
func sameAsSDK(t *testing.T, line string) {
	t.Helper()
	got, gotErr := decodeMessage([]byte(line))
	want, wantErr := jsonrpc.DecodeMessage([]byte(line))
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%s: error %v, the SDK's %v", line, gotErr, wantErr)
	}
	if gotErr != nil {
		return
	}
	g, gok := got.(*jsonrpc.Request)
	w, wok := want.(*jsonrpc.Request)
	if gok != wok {
		t.Fatalf("%s: %T, the SDK's %T", line, got, want)
	}
	if !gok {
		return
	}
	if g.ID != w.ID || g.Method != w.Method || !bytes.Equal(g.Params, w.Params) || g.Extra != w.Extra {
		t.Fatalf("%s:\n%+v (params %s)\nthe SDK's\n%+v (params %s)", line, g, g.Params, w, w.Params)
	}
}

func TestDecodeMessageAsSDK(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"files":[{"path":"a.go"}]}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{ "params" : { "a" : [1, {"b": "}]"}] } , "method" : "x" , "id" : "abc" , "jsonrpc" : "2.0" }`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-0,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"\u0041","method":"ping"}`,
		`{"jsonrpc":"2.0","id":"é","method":"p\u0069ng"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","method":"other"}`,
		`{"jsonrpc":"2.0","id":1,"Method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"result":{"roots":[]}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","extra":true}`,
		`{"jsonrpc":"2.0","id":1,"method":"","params":[]}`,
		`{"jsonrpc":"2.0","id":1}`,
		"{\"jsonrpc\":\"2.0\",\t\"id\":7,\r\n\"method\":\"ping\",\"params\":{\"x\":\"a\\\"b\"}}",
	} {
		sameAsSDK(t, line)
	}
}

// FuzzDecodeMessage: on any line the stdio transport hands on (valid JSON),
// decodeMessage makes what the SDK's decoder makes.
func FuzzDecodeMessage(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"files":[{"path":"a.go"}]}}}`)
	f.Add(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`)
	f.Add(`{"id":"x","jsonrpc":"2.0","method":"ping","params":{}}`)
	f.Add(`{"jsonrpc":"2.0","id":2,"result":{}}`)
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 4096 || !json.Valid([]byte(line)) || jsonDepth([]byte(line)) > maxMessageDepth {
			return
		}
		if _, st := messageID([]byte(line)); st == idBad {
			return // refused before decoding
		}
		sameAsSDK(t, line)
	})
}
