package testkit

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// SchemaDescribes checks that the JSON Schema document root describes
// exactly what encoding/json writes for typ: every field a property and
// every property a field, a field required exactly when it is not
// omitempty, every object closed, the JSON type of each Go kind (a type
// list such as ["string", "null"] may hold it), strings free to be an
// enum or a const, and $refs into $defs followed (once per type, so
// recursive types end). where names the document in messages.
func SchemaDescribes(t testing.TB, typ reflect.Type, root map[string]any, where string) {
	t.Helper()
	w := &schemaWalker{t: t, root: root, seen: map[string]bool{}}
	w.walk(typ, root, where)
}

type schemaWalker struct {
	t    testing.TB
	root map[string]any
	seen map[string]bool // type and $def pairs already walked
}

func (w *schemaWalker) resolve(node map[string]any, where string) (map[string]any, string) {
	for {
		ref, ok := node["$ref"].(string)
		if !ok {
			return node, where
		}
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		defs, _ := w.root["$defs"].(map[string]any)
		def, found := defs[name].(map[string]any)
		if !ok || !found {
			w.t.Fatalf("%s: unresolvable $ref %q", where, ref)
		}
		node, where = def, "$defs/"+name
	}
}

// schemaTypes is the JSON type each Go kind is written as.
var schemaTypes = map[reflect.Kind]string{
	reflect.Struct: "object", reflect.Map: "object", reflect.Slice: "array", reflect.Array: "array",
	reflect.String: "string", reflect.Bool: "boolean", reflect.Float64: "number",
	reflect.Int: "integer", reflect.Int64: "integer",
}

func (w *schemaWalker) walk(typ reflect.Type, node map[string]any, where string) {
	t := w.t
	t.Helper()
	ref, _ := node["$ref"].(string)
	node, where = w.resolve(node, where)
	if ref != "" {
		key := typ.String() + " " + ref
		if w.seen[key] {
			return
		}
		w.seen[key] = true
	}
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	wantType := schemaTypes[typ.Kind()]
	if wantType == "" {
		t.Fatalf("%s: Go kind %s has no schema mapping", where, typ.Kind())
	}
	var types []any
	switch ty := node["type"].(type) {
	case string:
		types = []any{ty}
	case []any:
		types = ty
	}
	_, isEnum := node["enum"]
	_, isConst := node["const"]
	if !slices.Contains(types, any(wantType)) && !(typ.Kind() == reflect.String && (isEnum || isConst)) {
		t.Errorf("%s: schema type %v for Go %s, want %q", where, node["type"], typ, wantType)
	}
	switch typ.Kind() {
	case reflect.Struct:
		w.object(typ, node, where)
	case reflect.Slice:
		items, ok := node["items"].(map[string]any)
		if !ok {
			t.Errorf("%s: array without items", where)
			return
		}
		w.walk(typ.Elem(), items, where+"[]")
	case reflect.Array: // lines.json's [line, offset] pairs
		prefix, _ := node["prefixItems"].([]any)
		if len(prefix) != typ.Len() || node["minItems"] != float64(typ.Len()) || node["maxItems"] != float64(typ.Len()) {
			t.Errorf("%s: a [%d] array needs %d prefixItems, minItems and maxItems", where, typ.Len(), typ.Len())
		}
		for i, p := range prefix {
			w.walk(typ.Elem(), p.(map[string]any), fmt.Sprintf("%s[%d]", where, i))
		}
	case reflect.Map:
		vals, ok := node["additionalProperties"].(map[string]any)
		if !ok {
			t.Errorf("%s: map without an additionalProperties schema", where)
			return
		}
		w.walk(typ.Elem(), vals, where+"{}")
	}
}

// object checks a struct's fields, as encoding/json writes them, against
// a closed object's properties: an embedded struct without a name in its
// tag gives its fields to the object.
func (w *schemaWalker) object(typ reflect.Type, node map[string]any, where string) {
	t := w.t
	t.Helper()
	if node["additionalProperties"] != false {
		t.Errorf("%s: object for %s is not closed (additionalProperties false)", where, typ)
	}
	props, _ := node["properties"].(map[string]any)
	var required []string
	reqs, _ := node["required"].([]any)
	for _, r := range reqs {
		required = append(required, r.(string))
	}
	fields := map[string]bool{}
	for _, f := range reflect.VisibleFields(typ) {
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" || f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		fields[name] = true
		prop, ok := props[name].(map[string]any)
		if !ok {
			t.Errorf("%s: %s.%s is written as %q, which the schema does not describe", where, typ, f.Name, name)
			continue
		}
		if omit, req := strings.Contains(opts, "omitempty"), slices.Contains(required, name); omit == req {
			t.Errorf("%s: %q required = %v, and the field's omitempty = %v", where, name, req, omit)
		}
		w.walk(f.Type, prop, where+"."+name)
	}
	for name := range props {
		if !fields[name] {
			t.Errorf("%s: the schema describes %q, which %s does not write", where, name, typ)
		}
	}
}
