package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// maxEcho is how many bytes of a caller's value an error quotes: enough to
// recognise it, never enough to turn a 10 MB argument into a 10 MB answer.
const maxEcho = 80

// echo quotes s for an error message, cut to maxEcho bytes at a character
// boundary with its full size after the cut.
func echo(s string) string {
	if len(s) <= maxEcho {
		return strconv.Quote(s)
	}
	cut := maxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…(" + strconv.Itoa(len(s)) + " bytes)"
}

// echoRaw is echo for a JSON literal (a number as the caller wrote it).
func echoRaw(lit string) string {
	if len(lit) <= maxEcho {
		return lit
	}
	return lit[:maxEcho] + "…(" + strconv.Itoa(len(lit)) + " bytes)"
}

// decodeArgs turns a tool's raw arguments into In, the same way for MCP and
// the JSON API: absent or null arguments mean {}; a null optional argument
// means absent; the value is checked against the tool's input schema in this
// server's own words (the schema library's messages quote its internals);
// integers are compared exactly as written, never through float64; then
// defaults are filled in and the result decoded.
func decodeArgs[In any](sc *jsonschema.Schema, raw []byte) (In, error) {
	var in In
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return in, fmt.Errorf("%w: arguments are not valid JSON%s", ErrBadRequest, syntaxAt(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return in, fmt.Errorf("%w: arguments hold more than one JSON value", ErrBadRequest)
	}
	v, err := checkValue(v, sc, "arguments")
	if err != nil {
		return in, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return in, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		// checkValue accepted it, so this is a schema that does not match In.
		return in, fmt.Errorf("decode checked arguments: %v", err)
	}
	return in, nil
}

func syntaxAt(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return " (syntax error at byte " + strconv.FormatInt(se.Offset, 10) + ")"
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return " (ends early)"
	}
	return ""
}

// checkValue checks v against sc and returns it with defaults filled in and
// integers rewritten in plain form. where names v for the message
// ("files[0].path"). It covers the part of JSON Schema this server's input
// schemas use: type, properties, required, additionalProperties, items,
// min/max items, min/max length, minimum/maximum and enum.
func checkValue(v any, sc *jsonschema.Schema, where string) (any, error) {
	if sc == nil {
		return v, nil
	}
	types := sc.Types
	if sc.Type != "" {
		types = []string{sc.Type}
	}
	if v == nil {
		if slices.Contains(types, "null") || len(types) == 0 {
			return nil, nil
		}
		return nil, fmt.Errorf("%s is null; want %s", where, article(types))
	}
	kind := jsonKind(v)
	if len(types) > 0 && !slices.Contains(types, kind) && !(kind == "integer" && slices.Contains(types, "number")) {
		if kind == "number" && slices.Contains(types, "integer") {
			return nil, fmt.Errorf("%s: %s is not a whole number", where, echoRaw(string(v.(json.Number))))
		}
		return nil, fmt.Errorf("%s is %s; want %s", where, article([]string{kind}), article(types))
	}
	if len(sc.Enum) > 0 && !slices.ContainsFunc(sc.Enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
		opts := make([]string, len(sc.Enum))
		for i, e := range sc.Enum {
			opts[i] = fmt.Sprint(e)
		}
		return nil, fmt.Errorf("%s: %s is not one of %s", where, echo(fmt.Sprint(v)), strings.Join(opts, ", "))
	}
	switch x := v.(type) {
	case map[string]any:
		return checkObject(x, sc, where)
	case []any:
		if sc.MinItems != nil && len(x) < *sc.MinItems {
			return nil, fmt.Errorf("%s has %d %s; want at least %d", where, len(x), plural(len(x), "item", "items"), *sc.MinItems)
		}
		if sc.MaxItems != nil && len(x) > *sc.MaxItems {
			return nil, fmt.Errorf("%s has %d items; want at most %d", where, len(x), *sc.MaxItems)
		}
		for i := range x {
			var err error
			if x[i], err = checkValue(x[i], sc.Items, where+"["+strconv.Itoa(i)+"]"); err != nil {
				return nil, err
			}
		}
	case string:
		n := utf8.RuneCountInString(x)
		if sc.MinLength != nil && n < *sc.MinLength {
			return nil, fmt.Errorf("%s is empty", where)
		}
		if sc.MaxLength != nil && n > *sc.MaxLength {
			return nil, fmt.Errorf("%s is %d characters long; want at most %d", where, n, *sc.MaxLength)
		}
	case json.Number:
		if kind == "integer" {
			n, err := checkInt(string(x), sc, where)
			if err != nil {
				return nil, err
			}
			return json.Number(strconv.FormatInt(n, 10)), nil
		}
	}
	return v, nil
}

func checkObject(m map[string]any, sc *jsonschema.Schema, where string) (any, error) {
	name := func(k string) string {
		if where == "arguments" {
			return k
		}
		return where + "." + k
	}
	for _, k := range slices.Sorted(mapKeys(m)) {
		prop, known := sc.Properties[k]
		if !known && sc.AdditionalProperties != nil {
			return nil, fmt.Errorf("unknown argument %s in %s; known: %s", echo(k), where, strings.Join(slices.Sorted(mapKeys(sc.Properties)), ", "))
		}
		if m[k] == nil && !slices.Contains(sc.Required, k) {
			delete(m, k) // a null optional argument is an absent one
			continue
		}
		var err error
		if m[k], err = checkValue(m[k], prop, name(k)); err != nil {
			return nil, err
		}
	}
	for _, k := range sc.Required {
		if _, ok := m[k]; !ok {
			return nil, fmt.Errorf("%s is missing", name(k))
		}
	}
	for k, prop := range sc.Properties {
		if _, ok := m[k]; ok || len(prop.Default) == 0 {
			continue
		}
		var def any
		if err := json.Unmarshal(prop.Default, &def); err != nil {
			return nil, fmt.Errorf("default of %s: %v", name(k), err)
		}
		m[k] = def
	}
	return m, nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// checkInt checks an integer literal against the schema's bounds, exactly.
func checkInt(lit string, sc *jsonschema.Schema, where string) (int64, error) {
	n, ok := exactInt(lit)
	lo, hi := int64(-1<<63), int64(1<<63-1)
	if sc.Minimum != nil {
		lo = int64(*sc.Minimum)
	}
	if sc.Maximum != nil {
		hi = int64(*sc.Maximum)
	}
	rng := func() string {
		switch {
		case sc.Minimum != nil && sc.Maximum != nil:
			return fmt.Sprintf("from %d to %d", lo, hi)
		case sc.Minimum != nil:
			return fmt.Sprintf("at least %d", lo)
		case sc.Maximum != nil:
			return fmt.Sprintf("at most %d", hi)
		}
		return "that fits in 64 bits"
	}
	if !ok || n < lo || n > hi {
		return 0, fmt.Errorf("%s is %s; want a whole number %s", where, echoRaw(lit), rng())
	}
	return n, nil
}

// exactInt reports the value of a JSON number literal when it is a whole
// number that fits in an int64 ("1e2" and "100.0" are 100); it never goes
// through float64, so 9007199254740993 stays itself.
func exactInt(lit string) (int64, bool) {
	if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
		return n, true
	}
	neg := strings.HasPrefix(lit, "-")
	s := strings.TrimPrefix(lit, "-")
	mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	e := 0
	if exp != "" {
		exp = strings.TrimPrefix(exp, "+")
		if len(strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")) > 4 {
			// |exponent| >= 10^4: a whole number that large overflows, and
			// with a negative exponent only zero is whole.
			if strings.Trim(intPart+frac, "0") == "" {
				return 0, true
			}
			return 0, false
		}
		var err error
		if e, err = strconv.Atoi(exp); err != nil {
			return 0, false
		}
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	e -= len(frac)
	for strings.HasSuffix(digits, "0") {
		digits = digits[:len(digits)-1]
		e++
	}
	if digits == "" {
		return 0, true
	}
	if e < 0 || len(digits)+e > 19 {
		return 0, false
	}
	n, err := strconv.ParseInt(digits+strings.Repeat("0", e), 10, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// jsonKind names v's JSON type; a number literal that is a whole number is
// an "integer".
func jsonKind(v any) string {
	switch x := v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		if isWhole(string(x)) {
			return "integer"
		}
		return "number"
	}
	return "null"
}

// isWhole reports whether a number literal denotes a whole number, however
// large: no fraction digits left once the exponent is applied.
func isWhole(lit string) bool {
	if _, ok := exactInt(lit); ok {
		return true
	}
	s := strings.TrimPrefix(strings.ToLower(lit), "-")
	mant, exp, _ := strings.Cut(s, "e")
	_, frac, _ := strings.Cut(mant, ".")
	frac = strings.TrimRight(frac, "0")
	if frac == "" {
		return !strings.HasPrefix(exp, "-") || strings.Trim(mant, "0.") == ""
	}
	e, err := strconv.Atoi(strings.TrimPrefix(exp, "+"))
	return err == nil && e >= len(frac)
}

func article(types []string) string {
	var out []string
	for _, t := range types {
		if t == "null" {
			continue
		}
		switch t {
		case "array", "object", "integer":
			out = append(out, "an "+t)
		default:
			out = append(out, "a "+t)
		}
	}
	if len(out) == 0 {
		return "null"
	}
	return strings.Join(out, " or ")
}
