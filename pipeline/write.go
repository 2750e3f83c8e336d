package pipeline

import (
	"bufio"
	"context"
	"encoding/hex"
	"io"
	"io/fs"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/instructions"
	"github.com/repoprep/repoprep/refresh"
	"github.com/repoprep/repoprep/repomap"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/stages"
)

// buildManifest turns the records into files.json's model, sorted by path,
// and lists the staged texts (pointing into it) for the index stage. It
// consumes recs, sorting them and dropping each record once its entry is
// made, so the two are not both held for a whole tree: the records go
// here, not when the indexes are written.
func buildManifest(recs []*stages.Record, pruned []stages.Pruned) (*snapshot.Manifest, []stages.StagedText) {
	slices.SortFunc(recs, func(a, b *stages.Record) int { return strings.Compare(a.Path, b.Path) })
	m := &snapshot.Manifest{Schema: snapshot.FilesSchema, Files: make([]snapshot.Entry, len(recs)), Pruned: make([]snapshot.Pruned, 0, len(pruned))}
	var staged []stages.StagedText
	for i, r := range recs {
		recs[i] = nil
		m.Files[i] = r.Entry
		if r.Staged {
			staged = append(staged, stages.StagedText{Entry: &m.Files[i], OutSize: r.OutSize})
		}
	}
	for _, p := range pruned {
		m.Pruned = append(m.Pruned, snapshot.Pruned{Path: p.Path, Reason: p.Reason})
	}
	return m, staged
}

// written is what writeBeside wrote, for writeLast.
type written struct {
	took, cpu  time.Duration // writeBeside's wall and CPU time
	filesSum   string        // files.json's BLAKE3 (hex)
	repoMap    []byte
	instructed *instructions.Index
}

// writeBeside writes, while the indexes are built, every file of the
// snapshot that needs only the records and the staged tree: it takes the
// refresh state's entries (before buildManifest consumes recs), hands the
// manifest's staged texts to the index build (indexes), then writes
// files.json, the manifest's entries into the refresh state,
// secrets.json, oversize.json, REPO_MAP.md and instructions.json. It runs
// on one goroutine, locked to its thread so that its own CPU time is
// known (threadCPU) while the build runs beside it.
func (r *run) writeBeside(ctx context.Context, tree fs.FS, env *stages.Env, recs []*stages.Record, pruned []stages.Pruned, decided []bool, res *Result, indexes chan<- []stages.StagedText) (wrote written, err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	begin, cpu := time.Now(), threadCPU()
	defer func() { wrote.took, wrote.cpu = time.Since(begin), threadCPU()-cpu }()
	if r.reuse.Key != "" {
		if r.state, err = refresh.NewState(r.out, r.reuse.Key, r.start, r.keys, r.prior, r.secrets.Values, env, recs, decided); err != nil {
			return wrote, err
		}
		r.state.Scan = r.scanSum
	}
	m, staged := buildManifest(recs, pruned)
	indexes <- staged // the build starts (buffered: never waits)
	res.Manifest = m
	if wrote.filesSum, err = r.writeFilesJSON(m); err != nil {
		return wrote, err
	}
	if err := r.state.Entries(m); err != nil { // beside the build, not after it
		return wrote, err
	}
	if err := writeSecrets(r.out, res.Findings, r.opts.Version); err != nil {
		return wrote, err
	}
	if err := r.out.WriteFile(snapshot.OversizeJSON, func(w *bufio.Writer) error {
		// A preview reads to the end of a file's first line, however long:
		// reads stop once the run is cancelled.
		return snapshot.WriteOversize(w, m, ctxFS{ctx, tree}, r.opts.PreviewLines)
	}); err != nil {
		return wrote, err
	}
	wrote.repoMap = r.prior.SameRepoMap(wrote.filesSum)
	if wrote.repoMap == nil {
		wrote.repoMap = repomap.Render(m, repomap.Options{Name: filepath.Base(r.opts.Root), Tree: tree})
	}
	if err := r.out.WriteFile(snapshot.RepoMapMD, func(w *bufio.Writer) error { _, err := w.Write(wrote.repoMap); return err }); err != nil {
		return wrote, err
	}
	// instructions.json: the index of agent instruction files the server
	// answers `instructions` from, built from the finished manifest and
	// the staged (normalized, redacted) tree.
	if wrote.instructed, err = instructions.Build(m, tree); err != nil {
		return wrote, err
	}
	for _, w := range wrote.instructed.Warnings {
		r.opts.Logger.Warn(w) // the size bound left some files' imports out
	}
	if err := r.out.WriteJSON(snapshot.InstructionsJSON, wrote.instructed); err != nil {
		return wrote, err
	}
	if besideWritten != nil {
		besideWritten()
	}
	return wrote, ctx.Err()
}

// besideWritten, when set, is called once writeBeside has written
// everything but report.json, report.html and the refresh state, beside
// the index build: tests measure the heap once nothing but the build
// runs.
var besideWritten func()

// writeLast writes, once the indexes are built, report.json and
// report.html, then the refresh state, which records every other file's
// identity (search.index's among them).
func (r *run) writeLast(res *Result, wrote written) error {
	res.Report = r.buildReport(res)
	if err := r.out.WriteJSON(snapshot.ReportJSON, res.Report); err != nil {
		return err
	}
	if err := r.out.WriteFile(snapshot.ReportHTML, reportHTML(res, wrote.instructed)); err != nil {
		return err
	}
	if r.state != nil {
		sum := blake3.Sum256(wrote.repoMap)
		return r.state.Write(r.out, wrote.filesSum, hex.EncodeToString(sum[:]), res.Manifest, res.Findings, r.keys)
	}
	return nil
}

// writeFilesJSON writes files.json and returns its BLAKE3 (hex), which the
// refresh state records; a refresh whose manifest is the previous one
// copies the previous file (refresh.Prior.CopyFilesJSON).
func (r *run) writeFilesJSON(m *snapshot.Manifest) (string, error) {
	if sum, ok, err := r.prior.CopyFilesJSON(m, r.out); ok || err != nil {
		return sum, err
	}
	h := blake3.New()
	err := r.out.WriteFile(snapshot.FilesJSON, func(w *bufio.Writer) error {
		return snapshot.WriteManifest(io.MultiWriter(w, h), m)
	})
	return hex.EncodeToString(h.Sum(nil)), err
}

// ctxFS is an fs.FS whose files stop reading once ctx is done.
type ctxFS struct {
	ctx context.Context
	fs.FS
}

func (c ctxFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return ctxFile{c.ctx, f}, nil
}

type ctxFile struct {
	ctx context.Context
	fs.File
}

func (f ctxFile) Read(p []byte) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, err
	}
	return f.File.Read(p)
}

func (r *run) buildReport(res *Result) report.Report {
	rep := report.Report{
		Schema: snapshot.ReportSchema, Version: r.opts.Version, Source: r.opts.Root, Out: r.opts.OutDir,
		Started: r.start.UTC().Format(time.RFC3339), Seconds: round(time.Since(r.start).Seconds()),
		Secrets: len(res.Findings), Stages: r.stageTimes(), Tools: toolVersions(),
		ATimeNotKept: r.src.ATimeMoved(), Refresh: &r.reuse,
	}
	rep.Count(res.Manifest)
	audit := report.BuildAudit(res.Manifest, report.CountSecrets(res.Findings), rep.Stages)
	pruned := make([]report.AuditPruned, len(r.pruned))
	for i, p := range r.pruned {
		pruned[i] = report.AuditPruned{Path: p.Path, Reason: p.Reason, Files: p.Files, Capped: p.Capped}
	}
	audit.AddPruned(pruned)
	audit.Refresh = &r.reuse
	rep.Audit = &audit
	return rep
}

// toolVersions names the dependency versions that shape the output, so two
// snapshots can be compared knowing what produced them.
func toolVersions() map[string]string {
	out := map[string]string{}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return out
	}
	out["go"] = info.GoVersion
	for _, d := range info.Deps {
		switch d.Path {
		case "github.com/gabriel-vasile/mimetype", "github.com/saintfish/chardet",
			"golang.org/x/text", "github.com/go-enry/go-enry/v2",
			"github.com/tiktoken-go/tokenizer", "github.com/zeebo/blake3":
			out[d.Path] = d.Version
		}
	}
	return out
}

// recordWrite adds the time spent writing the snapshot's files (report.json
// aside, which holds the figure) to the write stage, which in the
// per-file loop also wrote the tree; it counts every entry of files.json.
func (r *run) recordWrite(took, cpu time.Duration, m *snapshot.Manifest) {
	i := slices.IndexFunc(r.stages, func(s stageTime) bool { return s.name == "write" })
	if i < 0 {
		r.stages = append(r.stages, stageTime{name: "write"})
		i = len(r.stages) - 1
	}
	st := &r.stages[i]
	st.took += took
	st.cpu += cpu
	st.files, st.bytes = len(m.Files), 0
	for _, e := range m.Files {
		st.bytes += e.Size
	}
}
