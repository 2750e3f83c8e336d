package corpus

import (
	"bytes"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/repoprep/repoprep/internal/testkit"
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
	testkit.SchemaDescribes(t, reflect.TypeFor[Manifest](), root, "manifest")

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
