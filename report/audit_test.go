package report

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/snapshot/snapshottest"
)

func countStaged(m *snapshot.Manifest) int {
	n := 0
	for _, e := range m.Files {
		if e.Staged || e.DuplicateOf != "" {
			n++
		}
	}
	return n
}

func auditFixture() *snapshot.Manifest {
	return snapshottest.NewManifest([]snapshot.Entry{
		{Path: "README.md", Size: 1200, Category: "text", Encoding: "utf-8", Staged: true, Tokens: 300, Lines: 40},
		{Path: "cmd/app/main.go", Size: 800, Category: "source", Encoding: "utf-8", Staged: true, Tokens: 250, Lines: 30},
		{Path: "internal/db/db.go", Size: 3000, Category: "source", Encoding: "utf-8", Staged: true, Tokens: 900, Lines: 120},
		{Path: "internal/db/db_copy.go", Size: 3000, Category: "source", Encoding: "utf-8", DuplicateOf: "internal/db/db.go", Tokens: 900},
		{Path: "internal/db/old/db.go", Size: 3000, Category: "source", Encoding: "utf-8", DuplicateOf: "internal/db/db.go"},
		{Path: "docs/legacy-gbk.txt", Size: 500, Category: "text", Encoding: "gb18030", Staged: true, Tokens: 200, Lines: 1},
		{Path: "docs/copy-gbk.txt", Size: 500, Category: "text", Encoding: "gb18030", DuplicateOf: "docs/legacy-gbk.txt"},
		{Path: "docs/manual.pdf", Size: 6 << 20, Category: "document", Reason: "pdf"},
		{Path: "backup/site.tar.gz", Size: 40 << 20, Category: "data", Reason: "archive"},
		{Path: "backup/notes.txt", Size: 100, Category: "data", Reason: "archive", ExtMismatch: true, Mime: "application/zip"},
		{Path: "assets/logo.png", Size: 10_000, Category: "junk", Reason: "media"},
		{Path: "Makefile", Size: 300, Category: "source", Encoding: "utf-8", Staged: true, Tokens: 90, Lines: 12},
	}, []snapshot.Pruned{{Path: ".git", Reason: "excluded-dir"}})
}

func TestBuildAudit(t *testing.T) {
	stages := []StageTime{{Name: "scan", Seconds: 0.5, Files: 12}, {Name: "classify", Seconds: 1.5, Files: 12}}
	a := BuildAudit(auditFixture(), map[string]SecretCount{"aws-access-key": {Files: 1, Findings: 2}, "private-ip": {Files: 3, Findings: 5}}, stages)
	tests := []struct {
		name      string
		got, want any
	}{
		{"files", a.Files, 12},
		{"bytes", a.Bytes, int64(1200 + 800 + 3000*3 + 500*2 + 6<<20 + 40<<20 + 100 + 10_000 + 300)},
		{"staged", a.Staged, 5},
		{"staged bytes", a.StagedBytes, int64(1200 + 800 + 3000 + 500 + 300)},
		{"pruned", a.Pruned, 1},
		{"categories", countNames(a.Categories), []string{"source", "text", "data", "document", "junk"}},
		{"source files", a.Categories[0].Files, 5},
		{"reasons", countNames(a.Reasons), []string{"data/archive", "document/pdf", "junk/media"}},
		{"extensions, ties by name", countNames(a.Extensions)[:4], []string{".go", ".txt", "(none)", ".md"}},
		{"compound extension", slices.Contains(countNames(a.Extensions), ".tar.gz"), true},
		{"no extension", slices.Contains(countNames(a.Extensions), "(none)"), true},
		{"dirs by files, subtrees counted", countNames(a.DirsByFiles)[:3], []string{"docs", "internal", "internal/db"}},
		{"dirs by bytes", countNames(a.DirsByBytes)[:2], []string{"backup", "docs"}},
		{"root files", slices.Contains(countNames(a.DirsByFiles), "."), true},
		{"large files, largest first", a.LargeFiles, []AuditFile{{Path: "backup/site.tar.gz", Size: 40 << 20, Category: "data"}, {Path: "docs/manual.pdf", Size: 6 << 20, Category: "document"}}},
		{"mismatches", a.Mismatches, []AuditFile{{Path: "backup/notes.txt", Size: 100, Category: "data", Mime: "application/zip"}}},
		{"encodings", a.Encodings, []AuditCount{{Name: "utf-8", Files: 4, Bytes: 5300}, {Name: "gb18030", Files: 1, Bytes: 500}}},
		{"duplicate groups", a.DuplicateGroups, 2},
		{"duplicate files", a.DuplicateFiles, 3},
		{"duplicate bytes", a.DuplicateBytes, int64(6500)},
		{"left out, largest first, duplicates aside", a.LeftOut, []AuditFile{
			{Path: "backup/site.tar.gz", Size: 40 << 20, Category: "data", Reason: "archive"},
			{Path: "docs/manual.pdf", Size: 6 << 20, Category: "document", Reason: "pdf"},
			{Path: "assets/logo.png", Size: 10_000, Category: "junk", Reason: "media"},
			{Path: "backup/notes.txt", Size: 100, Category: "data", Reason: "archive"},
		}},
		{"left out count", a.LeftOutCount, 4},
		{"left out bytes", a.LeftOutBytes, int64(40<<20 + 6<<20 + 10_000 + 100)},
		{"secrets by files", a.Secrets, []AuditCount{{Name: "private-ip", Files: 3, Findings: 5}, {Name: "aws-access-key", Files: 1, Findings: 2}}},
		{"secrets total", a.SecretsTotal, 7},
		{"tokens of the staged files, duplicates once", a.Tokens, int64(300 + 250 + 900 + 200 + 90)},
		{"tokens by category", a.TokensByCategory, []AuditTokens{{Name: "source", Files: 3, Tokens: 1240}, {Name: "text", Files: 2, Tokens: 500}}},
		{"tokens by top-level directory", a.TokensByDir, []AuditTokens{
			{Name: "internal", Files: 1, Tokens: 900}, {Name: ".", Files: 2, Tokens: 390},
			{Name: "cmd", Files: 1, Tokens: 250}, {Name: "docs", Files: 1, Tokens: 200},
		}},
		{"top files by tokens", a.TopTokenFiles, []AuditTokenFile{
			{Path: "internal/db/db.go", Tokens: 900, Lines: 120, Category: "source"},
			{Path: "README.md", Tokens: 300, Lines: 40, Category: "text"},
			{Path: "cmd/app/main.go", Tokens: 250, Lines: 30, Category: "source"},
			{Path: "docs/legacy-gbk.txt", Tokens: 200, Lines: 1, Category: "text"},
			{Path: "Makefile", Tokens: 90, Lines: 12, Category: "source"},
		}},
		{"seconds", a.Seconds, 2.0},
		{"files per second", a.FilesPerSec, 6.0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !reflect.DeepEqual(tt.got, tt.want) {
				t.Errorf("got %#v, want %#v", tt.got, tt.want)
			}
		})
	}
}

func auditPruned() []AuditPruned {
	return []AuditPruned{
		{Path: ".git", Reason: "excluded-dir", Files: 1_234},
		{Path: "web/node_modules", Reason: "excluded-dir", Files: 100_000, Capped: true},
		{Path: "docs/legacy", Reason: "excluded-by-rule", Files: 12},
		{Path: "tmp", Reason: "ignored"},
	}
}

func TestAuditPruned(t *testing.T) {
	a := BuildAudit(auditFixture(), nil, nil)
	a.AddPruned(auditPruned())
	want := []AuditPruned{
		{Path: "web/node_modules", Reason: "excluded-dir", Files: 100_000, Capped: true},
		{Path: ".git", Reason: "excluded-dir", Files: 1_234},
		{Path: "docs/legacy", Reason: "excluded-by-rule", Files: 12},
		{Path: "tmp", Reason: "ignored"},
	}
	if !reflect.DeepEqual(a.PrunedDirs, want) || a.PrunedFiles != 101_246 {
		t.Errorf("pruned dirs = %+v (%d files), want %+v", a.PrunedDirs, a.PrunedFiles, want)
	}
	var many []AuditPruned
	for i := range 3 * auditMaxListed {
		many = append(many, AuditPruned{Path: fmt.Sprintf("d%03d", i), Reason: "ignored", Files: i})
	}
	a.AddPruned(many)
	if len(a.PrunedDirs) != auditMaxListed || a.PrunedDirs[0].Path != fmt.Sprintf("d%03d", 3*auditMaxListed-1) {
		t.Errorf("pruned dirs not capped largest first: %d rows, first %+v", len(a.PrunedDirs), a.PrunedDirs[0])
	}
}

func TestBuildAuditCaps(t *testing.T) {
	m := snapshottest.Synth(20_000)
	for i := range m.Files {
		if i%3 == 0 {
			m.Files[i].Size = 6 << 20
			m.Files[i].ExtMismatch = true
		}
	}
	a := BuildAudit(m, nil, nil)
	if len(a.Extensions) > auditTopExts || len(a.DirsByFiles) != auditTopDirs || len(a.DirsByBytes) != auditTopDirs {
		t.Errorf("top lists not capped: %d extensions, %d/%d dirs", len(a.Extensions), len(a.DirsByFiles), len(a.DirsByBytes))
	}
	if len(a.LargeFiles) != auditMaxListed || a.LargeCount <= auditMaxListed || len(a.Mismatches) != auditMaxListed {
		t.Errorf("file lists not capped: %d of %d large, %d mismatches", len(a.LargeFiles), a.LargeCount, len(a.Mismatches))
	}
	if len(a.LeftOut) != auditMaxListed || a.LeftOutCount != 20_000-countStaged(m) {
		t.Errorf("left out not capped or miscounted: %d rows of %d", len(a.LeftOut), a.LeftOutCount)
	}
	for i := 1; i < len(a.LeftOut); i++ {
		if leftOutBefore(a.LeftOut[i].Size, a.LeftOut[i].Path, a.LeftOut[i-1]) {
			t.Fatalf("left out not sorted at %d: %+v before %+v", i, a.LeftOut[i-1], a.LeftOut[i])
		}
	}
	if len(a.TokensByDir) != auditTopTokenDirs || len(a.TopTokenFiles) != auditTopTokenFiles {
		t.Errorf("token lists not capped: %d directories, %d files", len(a.TokensByDir), len(a.TopTokenFiles))
	}
	var staged int64
	for _, e := range m.Files {
		if e.Staged {
			staged += int64(e.Tokens)
			if last := a.TopTokenFiles[len(a.TopTokenFiles)-1]; tokensBefore(e.Tokens, e.Path, last) && !slices.ContainsFunc(a.TopTokenFiles, func(f AuditTokenFile) bool { return f.Path == e.Path }) {
				t.Fatalf("%s (%d tokens) belongs in the top files before %+v", e.Path, e.Tokens, last)
			}
		}
	}
	if a.Tokens != staged {
		t.Errorf("tokens = %d, want %d (staged files only)", a.Tokens, staged)
	}
	for i := 1; i < len(a.TopTokenFiles); i++ {
		if tokensBefore(a.TopTokenFiles[i].Tokens, a.TopTokenFiles[i].Path, a.TopTokenFiles[i-1]) {
			t.Fatalf("top token files not sorted at %d", i)
		}
	}
	if a.FilesPerSec != 0 {
		t.Error("throughput without stage times")
	}
}

func TestAuditRender(t *testing.T) {
	stages := []StageTime{
		{Name: "scan", Seconds: 0.25, Files: 12, FilesPerSec: 48, MBPerSec: 184.2},
		{Name: "normalize", Seconds: 1.75, Files: 5, FilesPerSec: 2.9, MBPerSec: 0.1},
	}
	a := BuildAudit(auditFixture(), map[string]SecretCount{"aws-access-key": {Files: 1, Findings: 2}, "private-ip": {Files: 3, Findings: 5}}, stages)
	a.AddPruned(auditPruned())
	for _, tt := range []struct {
		name  string
		color bool
	}{{"audit.txt", false}, {"audit-color.txt", true}} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := a.Render(&b, tt.color); err != nil {
				t.Fatal(err)
			}
			if hasEsc := strings.Contains(b.String(), "\x1b["); hasEsc != tt.color {
				t.Errorf("colour escapes present = %v, want %v", hasEsc, tt.color)
			}
			testkit.Golden(t, filepath.Join("testdata", "golden", tt.name), b.Bytes())
		})
	}
}

// Rows of one section line up: every figure column ends at the same place.
func TestAuditRenderAligned(t *testing.T) {
	var b bytes.Buffer
	if err := BuildAudit(auditFixture(), nil, nil).Render(&b, false); err != nil {
		t.Fatal(err)
	}
	section := strings.Split(strings.Split(b.String(), "Top extensions\n")[1], "\n\n")[0]
	width := -1
	for _, line := range strings.Split(section, "\n") {
		if width >= 0 && len([]rune(line)) != width {
			t.Errorf("ragged row %q in\n%s", line, section)
		}
		width = len([]rune(line))
	}
}

// manyAudit has more rows in every list than the summary shows: 40
// extension mismatches (30 of them test fixtures), 20 reasons and 18
// secret rules.
func manyAudit() Audit {
	var files []snapshot.Entry
	for i := range 40 {
		e := snapshot.Entry{Path: fmt.Sprintf("pkg%02d/file%02d.txt", i%7, i), Size: int64(1000 + i*37%11*100),
			Category: "data", Reason: fmt.Sprintf("reason-%02d", i%20), Mime: "application/zip", ExtMismatch: true}
		if i%4 != 0 {
			e.Path = fmt.Sprintf("pkg%02d/testdata/fixture%02d.crt", i%7, i)
			e.Test, e.Size, e.Category, e.Mime = true, 5000, "junk", "application/octet-stream"
		}
		files = append(files, e)
	}
	secrets := map[string]SecretCount{}
	for i := range 18 {
		secrets[fmt.Sprintf("rule-%02d", i)] = SecretCount{Files: i + 1, Findings: 2*i + 1}
	}
	return BuildAudit(snapshottest.NewManifest(files, nil), secrets, nil)
}

// Every list section shows at most auditMaxRows rows, then "and N more";
// mismatches outside tests come first, the largest first.
func TestAuditRenderCaps(t *testing.T) {
	a := manyAudit()
	if len(a.Mismatches) != 40 || a.MismatchCount != 40 {
		t.Fatalf("report data cut below auditMaxListed: %d of %d mismatches", len(a.Mismatches), a.MismatchCount)
	}
	var b bytes.Buffer
	if err := a.Render(&b, false); err != nil {
		t.Fatal(err)
	}
	for _, section := range strings.Split(b.String(), "\n\n") {
		lines := strings.Split(strings.TrimSuffix(section, "\n"), "\n")
		rows := 0
		for _, line := range lines[1:] {
			if !strings.HasPrefix(line, "  and ") && !strings.HasSuffix(line, "see secrets.json") {
				rows++
			}
		}
		if rows > auditMaxRows {
			t.Errorf("section %q has %d rows, want at most %d and an \"and N more\" line", lines[0], rows, auditMaxRows)
		}
	}
	testkit.Golden(t, filepath.Join("testdata", "golden", "audit-many.txt"), b.Bytes())
}

func TestMismatchOrder(t *testing.T) {
	a := BuildAudit(snapshottest.NewManifest([]snapshot.Entry{
		{Path: "a/testdata/big.crt", Size: 9000, Test: true, ExtMismatch: true},
		{Path: "b/small.txt", Size: 10, ExtMismatch: true},
		{Path: "c/big.txt", Size: 500, ExtMismatch: true},
		{Path: "a/same.txt", Size: 500, ExtMismatch: true},
		{Path: "z/testdata/small.crt", Size: 1, Test: true, ExtMismatch: true},
	}, nil), nil, nil)
	var got []string
	for _, f := range a.Mismatches {
		got = append(got, f.Path)
	}
	want := []string{"a/same.txt", "c/big.txt", "b/small.txt", "a/testdata/big.crt", "z/testdata/small.crt"}
	if !slices.Equal(got, want) {
		t.Errorf("mismatch order = %q, want %q", got, want)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestAuditRenderWriteError(t *testing.T) {
	if err := BuildAudit(auditFixture(), nil, nil).Render(failWriter{}, false); err == nil {
		t.Error("Render swallowed a write error")
	}
}

func countNames(cs []AuditCount) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

// BenchmarkBuildAudit builds the audit of a 50,000-entry manifest (token
// totals included) beside a plain pass over the same entries that sums
// their sizes and tokens: the ratio is what the audit's ranking costs.
func BenchmarkBuildAudit(b *testing.B) {
	m := snapshottest.Synth(50_000)
	b.Run("audit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			BuildAudit(m, nil, nil)
		}
		b.ReportMetric(float64(len(m.Files))*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
	})
	b.Run("tokens-only", func(b *testing.B) {
		for b.Loop() {
			var a Audit
			a.addTokens(m)
		}
		b.ReportMetric(float64(len(m.Files))*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
	})
	b.Run("plain-pass", func(b *testing.B) {
		var sum int64
		for b.Loop() {
			for i := range m.Files {
				sum += m.Files[i].Size + int64(m.Files[i].Tokens)
			}
		}
		b.ReportMetric(float64(len(m.Files))*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
		_ = sum
	})
}

// The audit counts the files each rule found secrets in, not its findings:
// three findings of one rule in one file are one file.
func TestCountSecrets(t *testing.T) {
	fs := []secrets.PathFinding{
		{Path: "a.go", Finding: secrets.Finding{Rule: "private-ip"}}, {Path: "a.go", Finding: secrets.Finding{Rule: "private-ip"}}, {Path: "a.go", Finding: secrets.Finding{Rule: "private-ip"}},
		{Path: "b.go", Finding: secrets.Finding{Rule: "private-ip"}}, {Path: "a.go", Finding: secrets.Finding{Rule: "aws-access-key"}},
	}
	got := CountSecrets(fs)
	want := map[string]SecretCount{"private-ip": {Files: 2, Findings: 4}, "aws-access-key": {Files: 1, Findings: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CountSecrets = %v, want %v", got, want)
	}
}
