package pipeline

import (
	"bufio"

	"github.com/repoprep/repoprep/instructions"
	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/snapshot"
)

// ReportPage is what report.html shows of one snapshot: its report.json,
// files.json, secrets.json's findings (in their order) and
// instructions.json's files (idx may be nil). The run and `repoprep
// report` both build the page through it.
func ReportPage(rep *report.Report, m *snapshot.Manifest, findings []secrets.PathFinding, idx *instructions.Index) report.Page {
	p := report.Page{Report: rep, Manifest: m, Secrets: findings}
	if idx == nil {
		return p
	}
	p.Instructions = make([]report.Instruction, len(idx.Files))
	for i, f := range idx.Files {
		p.Instructions[i] = report.Instruction{
			Path: f.Path, Agent: f.Agent, Kind: f.Kind, Activation: f.Activation,
			Tokens: f.Tokens, TotalTokens: f.TotalTokens, Imports: len(f.Imports), Warnings: f.Warnings,
		}
	}
	return p
}

// reportHTML fills report.html from the run's result.
func reportHTML(res *Result, idx *instructions.Index) func(*bufio.Writer) error {
	return func(w *bufio.Writer) error {
		return report.WriteHTML(w, ReportPage(&res.Report, res.Manifest, res.Findings, idx))
	}
}
