// Package snapshot owns OUT, the published snapshot: its layout (the file
// names below), the files.json model and the JSON conventions of every
// output file, opening a published snapshot for reading (Open: the one way
// serve, verify and refresh read OUT), the rule for which staged copy
// serves an entry, publication (the lock beside OUT, its journal and the
// atomic swap) and verification. It knows nothing of how a snapshot is
// built: the run fills a Pending snapshot and publishes it.
package snapshot

// The files of a snapshot, as docs/output.md lists them: the only place
// their names are written.
const (
	FilesJSON        = "files.json"        // the manifest: one entry per scanned file
	RepoMapMD        = "REPO_MAP.md"       // the map an agent reads first
	OversizeJSON     = "oversize.json"     // the staged files too large to read whole, with previews
	SecretsJSON      = "secrets.json"      // the secret findings, masked
	SecretsSARIF     = "secrets.sarif"     // the same findings as SARIF 2.1.0
	ReportJSON       = "report.json"       // what the run did and how fast; differs between runs
	ReportHTML       = "report.html"       // the audit as one self-contained page; differs between runs
	InstructionsJSON = "instructions.json" // the agent instruction files and their imports
	SearchIndex      = "search.index"      // the trigram index search narrows files with
	LinesJSON        = "lines.json"        // line marks of the oversize files, for ranged reads
	LineTokens       = "linetokens.index"  // every staged line's length and token count, for budgets by lookup
	TreeDir          = "tree"              // the staged texts, at their repository paths
	// StateFile is the refresh state: not part of the contract (readers
	// ignore it), published and removed with the snapshot it describes.
	StateFile = ".refresh-state"
)

// LineTokensSpill is the os.CreateTemp pattern of the scratch file the
// per-file loop spills each text's line tokens to, in a Pending
// snapshot's directory; the run removes it before publication.
const LineTokensSpill = ".linetokens-spill-*"

// Volatile are the files of a snapshot whose bytes differ between two
// runs over the same input: the report's times, and the refresh state's
// identities and MAC. Everything else is a function of the input.
var Volatile = []string{ReportJSON, ReportHTML, StateFile}

// Schema names written into the output files this package owns the
// model of; readers refuse any other.
const (
	FilesSchema    = "repoprep.files/v1"
	OversizeSchema = "repoprep.oversize/v1"
	ReportSchema   = "repoprep.report/v1"
)
