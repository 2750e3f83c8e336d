package testkit

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps the failures it is told of.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

type walked struct {
	Name  string   `json:"name"`
	Count int      `json:"count,omitempty"`
	Tags  []string `json:"tags"`
	Inner *struct {
		On bool `json:"on"`
	} `json:"inner"`
}

const walkedSchema = `{"type": "object", "additionalProperties": false, "required": ["name", "tags", "inner"],
 "properties": {"name": {"type": "string"}, "count": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}},
  "inner": {"$ref": "#/$defs/inner"}},
 "$defs": {"inner": {"type": ["object", "null"], "additionalProperties": false, "required": ["on"], "properties": {"on": {"type": "boolean"}}}}}`

// TestSchemaDescribes: the schema that describes walked passes, and each
// way a schema can drift from the type fails with a message naming it.
func TestSchemaDescribes(t *testing.T) {
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"describes", "", "", ""},
		{"property missing", `"count": {"type": "integer"}, `, "", `"count", which the schema does not describe`},
		{"property extra", `"name": {"type": "string"}`, `"name": {"type": "string"}, "gone": {"type": "string"}`, `describes "gone"`},
		{"required but omitempty", `"required": ["name"`, `"required": ["count", "name"`, `"count" required = true`},
		{"omitempty missing", `"required": ["name", "tags", "inner"]`, `"required": ["name", "inner"]`, `"tags" required = false`},
		{"open object", `"additionalProperties": false, "required": ["on"]`, `"required": ["on"]`, "not closed"},
		{"wrong type", `"count": {"type": "integer"}`, `"count": {"type": "string"}`, `want "integer"`},
		{"array without items", `"items": {"type": "string"}`, `"x": 1`, "array without items"},
		{"bad ref", `"#/$defs/inner"`, `"#/$defs/nope"`, "unresolvable $ref"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(walkedSchema, tc.from, tc.to, 1)
			var root map[string]any
			if err := json.Unmarshal([]byte(doc), &root); err != nil {
				t.Fatal(err)
			}
			r := &recorder{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				SchemaDescribes(r, reflect.TypeFor[walked](), root, "walked")
			}()
			<-done
			got := strings.Join(r.failures, "\n")
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("failures:\n%s\nwant one containing %q", got, tc.want)
			}
		})
	}
}
