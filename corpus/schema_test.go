package corpus

import (
	"bytes"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/repoprep/repoprep/schema"
)

// TestManifestSchema: schema/repoprep.corpus/v1.json describes exactly
// the fields Manifest writes (every field a property and every property a
// field, required exactly when not omitempty, every object closed), and
// the manifests of a real corpus, Parquet with a failure and JSON Lines,
// validate against it. pipeline's schema tests cover the snapshot's
// files; this one the corpus's (pipeline's tests cannot import corpus).
func TestManifestSchema(t *testing.T) {
	data, err := fs.ReadFile(schema.FS, schema.File(ManifestSchema))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	root := doc.(map[string]any)
	if root["$id"] != schema.ID(ManifestSchema) {
		t.Errorf("$id %v, want %s", root["$id"], schema.ID(ManifestSchema))
	}
	if c, _ := root["properties"].(map[string]any)["schema"].(map[string]any); c["const"] != ManifestSchema {
		t.Errorf("properties.schema.const %v, want %s", c["const"], ManifestSchema)
	}
	describes(t, reflect.TypeFor[Manifest](), root, "manifest")

	c := jsonschema.NewCompiler()
	if err := c.AddResource(schema.ID(ManifestSchema), doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(schema.ID(ManifestSchema))
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{FormatParquet, FormatJSONL} {
		dir := wholeCorpus(t, format)
		data, err := os.ReadFile(manifestPath(dir))
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s manifest does not validate: %v\n%s", format, err, data)
		}
		if _, err := parseManifest(data); err != nil {
			t.Error(err)
		}
		if !strings.Contains(string(data), `"failures": [`) || !strings.Contains(string(data), `"license": null`) {
			t.Errorf("the fixture's manifest lacks a failure or a null licence:\n%s", data)
		}
	}
}

// describes checks one Go type against its schema node.
func describes(t *testing.T, typ reflect.Type, node map[string]any, where string) {
	t.Helper()
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	want := map[reflect.Kind]string{
		reflect.Struct: "object", reflect.Slice: "array", reflect.String: "string", reflect.Bool: "boolean",
		reflect.Float64: "number", reflect.Int: "integer", reflect.Int64: "integer",
	}[typ.Kind()]
	_, enum := node["enum"]
	_, isConst := node["const"]
	var types []any
	switch ty := node["type"].(type) {
	case string:
		types = []any{ty}
	case []any:
		types = ty
	}
	if !slices.Contains(types, any(want)) && !(typ.Kind() == reflect.String && (enum || isConst)) {
		t.Errorf("%s: schema type %v for Go %s", where, node["type"], typ)
	}
	switch typ.Kind() {
	case reflect.Struct:
		if node["additionalProperties"] != false {
			t.Errorf("%s: not closed", where)
		}
		props, _ := node["properties"].(map[string]any)
		var required []string
		for _, r := range node["required"].([]any) {
			required = append(required, r.(string))
		}
		fields := map[string]bool{}
		for _, f := range reflect.VisibleFields(typ) {
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			fields[name] = true
			prop, ok := props[name].(map[string]any)
			if !ok {
				t.Errorf("%s: %s is written as %q, which the schema does not describe", where, f.Name, name)
				continue
			}
			if omit := strings.Contains(opts, "omitempty"); omit == slices.Contains(required, name) {
				t.Errorf("%s.%s: required %v but omitempty %v", where, name, !omit, omit)
			}
			describes(t, f.Type, prop, where+"."+name)
		}
		for name := range props {
			if !fields[name] {
				t.Errorf("%s: the schema describes %q, which %s does not write", where, name, typ)
			}
		}
	case reflect.Slice:
		items, ok := node["items"].(map[string]any)
		if !ok {
			t.Errorf("%s: array without items", where)
			return
		}
		describes(t, typ.Elem(), items, where+"[]")
	}
}
