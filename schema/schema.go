// Package schema holds the JSON Schemas (draft 2020-12) of repoprep's output
// files. Each output file names its format in its "schema" field, and the
// mapping to a schema file is mechanical: the value "repoprep.files/v1" is
// described by schema/repoprep.files/v1.json, whose $id is Base followed by
// that same path. docs/output.md says so for users; tests validate the
// output of real runs against these files.
package schema

import "embed"

// FS holds every schema file, at the path File gives.
//
//go:embed */*.json
var FS embed.FS

// Base is the prefix of every schema's $id: the file's address in the
// project's repository.
const Base = "https://raw.githubusercontent.com/repoprep/repoprep/main/schema/"

// File is the path in FS (and under schema/ in the repository) of the
// schema for a "schema" value: "repoprep.files/v1" → "repoprep.files/v1.json".
func File(value string) string { return value + ".json" }

// ID is the $id of the schema for a "schema" value.
func ID(value string) string { return Base + File(value) }
