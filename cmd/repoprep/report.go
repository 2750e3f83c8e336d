package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/repoprep/repoprep/instructions"
	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/pipeline"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/snapshot"
)

// runReport is `repoprep report [-o FILE|-] OUT`: it writes report.html
// again from a published snapshot's report.json, files.json, secrets.json
// and instructions.json, into OUT under OUT's lock (the one a run takes),
// or to FILE.
func runReport(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("report", "[-o FILE|-] OUT", `
Writes OUT/report.html again from the snapshot's report.json, files.json,
secrets.json and instructions.json: the page every run writes, for a
snapshot whose page was lost or made by an older repoprep. OUT/report.html
is replaced atomically while OUT's lock is held, as a run holds it; with
-o the page goes to FILE (- is stdout) and OUT is only read.`,
		[]exitDoc{{exitOK, "written"}, {exitFailed, "OUT is not a snapshot, one of its files cannot be read, or the page cannot be written"},
			{exitUsage, "usage error"}, {exitBusy, "another run holds OUT's lock; nothing written, try again later"}})
	var dest string
	fs.StringVar(&dest, "out", "", "write the page to FILE (- for stdout) instead of OUT/report.html")
	fs.doc("out", "o", "FILE", "")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	out, ok := fs.snapshotArg(stderr)
	if !ok {
		return exitUsage
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		if errors.Is(err, snapshot.ErrLocked) {
			return exitBusy
		}
		return exitFailed
	}
	if err := snapshot.Check(out); err != nil {
		return fail(err)
	}
	if dest == "-" {
		p, err := readPage(out)
		if err != nil {
			return fail(err)
		}
		w := bufio.NewWriter(stdout)
		if err := report.WriteHTML(w, p); err != nil {
			return fail(err)
		}
		if err := w.Flush(); err != nil {
			return fail(err)
		}
		return exitOK
	}
	if dest != "" {
		p, err := readPage(out)
		if err != nil {
			return fail(err)
		}
		if err := writeAtomic(dest, 0o644, p); err != nil {
			return fail(err)
		}
		return exitOK
	}
	// Into OUT: read and write under the lock, so no run publishes
	// another snapshot between the two.
	lock, err := snapshot.Acquire(out, slog.New(slog.DiscardHandler))
	if err != nil {
		return fail(err)
	}
	defer lock.Release()
	p, err := readPage(out)
	if err != nil {
		return fail(err)
	}
	info, err := os.Lstat(filepath.Join(out, snapshot.FilesJSON))
	if err != nil {
		return fail(err)
	}
	if err := writeAtomic(filepath.Join(out, snapshot.ReportHTML), info.Mode().Perm(), p); err != nil {
		return fail(err)
	}
	return exitOK
}

// readPage reads what report.html shows from the snapshot at out, each
// file within its cap (snapshot.Open). A snapshot published before
// instructions.json existed lists no instruction files.
func readPage(out string) (report.Page, error) {
	snap, err := snapshot.Open(out)
	if err != nil {
		return report.Page{}, err
	}
	defer snap.Close()
	m, _, err := snap.Manifest()
	if err != nil {
		return report.Page{}, err
	}
	var rep report.Report
	if err := readJSON(snap, snapshot.ReportJSON, &rep); err != nil {
		return report.Page{}, err
	}
	if rep.Schema != snapshot.ReportSchema {
		return report.Page{}, fmt.Errorf("%s: schema %q, want %q", snapshot.ReportJSON, rep.Schema, snapshot.ReportSchema)
	}
	var found secrets.FindingsFile
	if err := readJSON(snap, snapshot.SecretsJSON, &found); err != nil {
		return report.Page{}, err
	}
	var idx *instructions.Index
	switch data, err := snap.ReadFile(snapshot.InstructionsJSON); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return report.Page{}, err
	default:
		if idx, err = instructions.Parse(data); err != nil {
			return report.Page{}, err
		}
	}
	return pipeline.ReportPage(&rep, m, found.Findings, idx), nil
}

func readJSON(snap *snapshot.Snapshot, name string, v any) error {
	data, err := snap.ReadFile(name)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := snapshot.CheckEnd(dec); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// writeAtomic writes the page to a temporary file beside name, gives it
// mode and renames it over name: a reader sees the old page or the new.
func writeAtomic(name string, mode fs.FileMode, p report.Page) error {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	w := bufio.NewWriterSize(f, 64<<10)
	err = report.WriteHTML(w, p)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}
