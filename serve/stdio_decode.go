package serve

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// decodeMessage is jsonrpc.DecodeMessage for one line already checked
// (valid JSON, an object, "jsonrpc" "2.0", a usable id). The common line,
// a request or notification of plain fields, is taken apart here: the
// SDK's decoder sets up a 32 KiB buffer for each of the two values it
// decodes, which made the decoding of a 150-byte request the largest
// allocation of a read after the answer itself. Anything else (a
// response, another field, an escaped string) goes to the SDK.
func decodeMessage(line []byte) (jsonrpc.Message, error) {
	if req, ok := decodeRequest(line); ok {
		return req, nil
	}
	return jsonrpc.DecodeMessage(line)
}

// decodeRequest decodes a request or notification whose fields are
// "jsonrpc" ("2.0"), "method", "id" and "params" only, each at most once,
// with a method name and a string id free of escapes or an integer id
// within ±2^53; ok is false for any other line. A line it decodes passes
// every check lineConn.check makes after json.Valid and the depth.
func decodeRequest(line []byte) (req *jsonrpc.Request, ok bool) {
	var version, method, id, params []byte
	seen := 0
	okFields := topLevelFields(line, func(key, value []byte) bool {
		var slot *[]byte
		var bit int
		switch string(key) {
		case "jsonrpc":
			slot, bit = &version, 1
		case "method":
			slot, bit = &method, 2
		case "id":
			slot, bit = &id, 4
		case "params":
			slot, bit = &params, 8
		default:
			return false
		}
		if seen&bit != 0 {
			return false // a repeated field: the SDK's rules decide
		}
		seen |= bit
		*slot = value
		return true
	})
	if !okFields || string(version) != `"2.0"` || !plainString(method) {
		return nil, false
	}
	req = &jsonrpc.Request{Method: string(method[1 : len(method)-1])}
	switch {
	case id == nil || string(id) == "null":
	case id[0] == '"':
		if !plainString(id) {
			return nil, false
		}
		req.ID, _ = jsonrpc.MakeID(string(id[1 : len(id)-1]))
	default:
		// A plain integer the SDK's float64 holds exactly (messageID's
		// rule); any other number takes the long way, and its checks.
		n, err := strconv.ParseInt(string(id), 10, 64)
		if err != nil || n > 1<<53 || n < -(1<<53) {
			return nil, false
		}
		req.ID, _ = jsonrpc.MakeID(float64(n))
	}
	if params != nil {
		if string(params) == "null" {
			return nil, false
		}
		req.Params = bytes.Clone(params)
	}
	return req, true
}

// plainString reports whether v is a JSON string without escapes whose
// content is valid UTF-8: decoded, it is the bytes between the quotes.
func plainString(v []byte) bool {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return false
	}
	s := v[1 : len(v)-1]
	return bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s)
}

// topLevelFields calls fn with each field of the JSON object line (valid
// JSON) and its value's bytes, in order, until fn returns false; it
// reports false then, or when a key has an escape.
func topLevelFields(line []byte, fn func(key, value []byte) bool) bool {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	i++
	for {
		i = skipSpace(line, i)
		if i >= len(line) {
			return false
		}
		switch line[i] {
		case '}':
			return true
		case ',':
			i = skipSpace(line, i+1)
		}
		if i >= len(line) || line[i] != '"' {
			return false
		}
		end := stringEnd(line, i)
		if end < 0 {
			return false
		}
		key := line[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		i = skipSpace(line, end)
		if i >= len(line) || line[i] != ':' {
			return false
		}
		start := skipSpace(line, i+1)
		end = valueEnd(line, start)
		if end < 0 || !fn(key, line[start:end]) {
			return false
		}
		i = end
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the JSON string starting at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// valueEnd returns the index just past the JSON value starting at b[i].
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end := stringEnd(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}
