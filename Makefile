# repoprep: `make test` is what CI runs (.ci/run); `make bench` measures every stage.
GO      ?= go
PKGS    ?= ./...
BENCH   ?= .
BENCHTIME ?= 1s

.PHONY: build test check part lint vet cross cross-all staticcheck rsscap race whole short portable bench-portable fuzz bench bench-serve bench-shapes bench-run check-tokens bench-secrets bench-creddata bench-extract bench-encoding bench-refresh bench-scale bench-tokens-peers fmt clean release pgo

# The same static, reproducible flags as the release (.goreleaser.yaml) and
# the Dockerfile; the version and commit come from git when there is one.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo "(devel)")
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS := -s -w -buildid= -X main.version=$(VERSION) -X main.commit=$(COMMIT)

build:
	CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=false -ldflags '$(LDFLAGS)' -o bin/repoprep ./cmd/repoprep

# make test is five parts, each announced with its number and timed; a
# test is chosen by package or build tag, never by name: the race pass
# runs every package with -short (heavy inputs shrunk; PDFium, which the
# race build tag skips, compiles for minutes under -race), and the whole
# pass runs every test at full size without -race. Every test process
# runs under rsscap, which fails one that passes 4 GB of resident memory
# and logs each one's wall time and peak (the slowest are printed).
# CONTRIBUTING.md has the figures.
test:
	@$(call part,1/5,gofmt; go vet; staticcheck,lint)
	@$(call part,2/5,go vet for $(CROSS),cross)
	@$(call part,3/5,go test -race -short ./... (each package; heavy inputs shrunk),race)
	@$(call part,4/5,go test ./... (every test whole; without -race),whole)
	@$(call part,5/5,go test -short -tags repoprep_portable (the other Unixes' code paths),portable)
	@echo "== make test: passed"

# make check is the quick one: gofmt, go vet and go test -short, about a
# minute on a warm build cache.
check:
	@$(call part,1/2,gofmt; go vet,vet)
	@$(call part,2/2,go test -short ./...,short)
	@echo "== make check: passed"

# part announces a part, runs a target, and says how long it took.
part = echo "== make $(MAKECMDGOALS) $(1): $(2)"; t=$$(date +%s); $(MAKE) --no-print-directory $(3) || exit 1; echo "== $(1) done in $$(( $$(date +%s) - t )) s"

# The checks and tests build without profile-guided optimization (see
# pgo): it changes no behaviour, and go vet and go test would compile the
# command's every dependency, the runtime included, a second time for it,
# once per GOOS. make build, bench-run and the release keep it.
lint vet cross cross-all staticcheck race whole short portable fuzz rsscap: export GOFLAGS := $(GOFLAGS) -pgo=off

lint: vet staticcheck

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet $(PKGS)

# The ports keep compiling: go vet (which type-checks the tests too) for
# macOS and Windows. Their binaries cannot run on this Linux machine; this
# is what CI can prove about them. Two targets cover both systems and both
# architectures (no file of ours differs by architecture); each costs about
# 2 minutes on a cold build cache, seconds on a warm one. cross-all vets
# all four; make release builds all six binaries.
# -trimpath keeps the checkout's directory out of the build cache's keys:
# a fresh clone (CI, a worktree) reuses more of what an earlier checkout
# compiled for each GOOS (a fresh HEAD tree: 134 s of
# CPU for both targets without it, 89 s with it). The first run after
# the switch compiles the standard library again for each target.
CROSS ?= darwin/arm64 windows/amd64
cross:
	@for t in $(CROSS); do echo "go vet $$t"; GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) vet -trimpath $(PKGS) || exit 1; done
cross-all:
	$(MAKE) cross CROSS="darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"

# staticcheck comes from go.mod's tool directive: no separate install.
staticcheck:
	$(GO) tool staticcheck $(PKGS)

# The test runs' -exec wrapper (internal/testkit/rsscap), built once.
# Test binaries are linked without DWARF (-ldflags=-w): make test links
# about 55 of them, each a second or more of CPU less; stack traces and
# race reports come from the symbol tables, which stay.
RSSCAP := $(CURDIR)/.bin/rsscap
RSSLOG := $(CURDIR)/.bin/rss.log
TEST   := REPOPREP_TEST_RSS_LOG=$(RSSLOG) $(GO) test -count=1 -ldflags=-w -exec $(RSSCAP)
rsscap:
	@mkdir -p $(dir $(RSSCAP)) && $(GO) build -o $(RSSCAP) ./internal/testkit/rsscap && rm -f $(RSSLOG)
slowest = sort -t'	' -k2 -g -r $(RSSLOG) | head -$(1) | sed 's/^/   /'

# The race runtime sleeps a second before every process exits
# (atexit_sleep_ms), to catch races of goroutines still running: each
# test's races are reported by the test itself, and the sleep cost every
# test binary and every child process the tests start a second.
race: rsscap
	GORACE="$${GORACE:+$$GORACE }atexit_sleep_ms=0" $(TEST) -race -short $(PKGS)
	@echo "   slowest (wall, peak RSS):"; $(call slowest,4)
whole: rsscap
	$(TEST) $(PKGS)
	@echo "   slowest (wall, peak RSS):"; $(call slowest,4)
short: rsscap
	$(TEST) -short $(PKGS)

# Linux through the other Unixes' code paths (no openat2, O_NOATIME,
# getdents or RENAME_EXCHANGE: internal/dirfd, the scan, the snapshot's
# reads and publication, a refresh's copies, built with repoprep_portable),
# so the fallbacks macOS runs are tested where tests run.
PORTABLE_PKGS ?= ./internal/dirfd ./stages ./snapshot ./refresh ./pipeline
portable: rsscap
	$(TEST) -short -tags repoprep_portable $(PORTABLE_PKGS)

# The scan through the other Unixes' code paths (repoprep_portable) beside
# Linux's, each beside the plain walk of the same tree.
bench-portable:
	$(GO) test -run '^$$' -bench 'ScanIgnore/none|ScanDeep|PlainWalk$$' -benchtime 5x -count 3 ./stages/
	$(GO) test -tags repoprep_portable -run '^$$' -bench 'ScanIgnore/none|ScanDeep|PlainWalk$$' -benchtime 5x -count 3 ./stages/

# A short run of every fuzz target beyond its seed corpus.
FUZZTIME ?= 10s
fuzz:
	@for pkg in $$($(GO) list $(PKGS)); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

.PHONY: bench-triage
# Triage and scan+classify+triage over a real tree (GOROOT/src by default)
# beside a stat walk of the same tree, in files/s and files per CPU second.
BENCH_TREE ?= $(shell $(GO) env GOROOT)/src
bench-triage:
	REPOPREP_BENCH_TREE=$(BENCH_TREE) $(GO) test -run '^$$' -bench 'Tree$$' -benchtime 3x -count 3 ./stages/

bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -benchtime $(BENCHTIME) $(PKGS)

# Six release binaries, checksums and SBOMs into dist/ (goreleaser's snapshot
# mode: nothing is published), then the linux/amd64 binary must run.
GORELEASER := $(GO) tool -modfile=tools/go.mod goreleaser
# goreleaser reads the commit (and its time, for the file times) only
# from a repository with a remote; without one (a local clone or worktree)
# it stamps "none". Git's environment names the module's repository as
# origin for that one command, and nothing is written to the git config.
RELEASE_GIT := $(if $(shell git ls-remote --get-url 2>/dev/null),,GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/repoprep/repoprep)
release:
	$(GORELEASER) check
	$(RELEASE_GIT) $(GORELEASER) release --snapshot --clean
	@ls dist/*.tar.gz dist/*.zip dist/checksums.txt dist/*.cdx.json
	@cd dist && sha256sum --check --quiet checksums.txt
	dist/repoprep_linux_amd64_v1/repoprep version | grep -E '^repoprep [0-9]+\.[0-9]+\.[0-9]+-snapshot\+[0-9a-f]+ commit [0-9a-f]{40} go'
	@file dist/repoprep_linux_amd64_v1/repoprep | grep -q 'statically linked' || { echo "linux/amd64 binary is not static"; exit 1; }
# The read server on real data: a snapshot of Go's own src/ (built once into
# BENCH_OUT), searched with and without its trigram index, unknown paths
# beside a hit, and a 30 MB oversize file read by range beside os.ReadFile.
BENCH_OUT ?= $(CURDIR)/.bench/gosrc
bench-serve: build
	@test -f $(BENCH_OUT)/files.json || ./bin/repoprep run -q --progress never -o $(BENCH_OUT) $$($(GO) env GOROOT)/src
	REPOPREP_BENCH_OUT=$(BENCH_OUT) $(GO) test -run '^$$' -bench 'GoSrc|OversizeRange' -benchtime 5x -count 3 ./serve/
	$(GO) test -run '^$$' -bench 'BuildGoSrc' -benchtime 1x -count 3 ./internal/trigram/
# A refresh against a full run on a copy of Go's src/ on a tmpfs: each
# iteration a full run, an unchanged refresh and a one-file-changed refresh,
# reported as ratios of the full run (docs/refresh.md has the figures).
bench-refresh:
	REPOPREP_BENCH_TREE=$(BENCH_TREE) $(GO) test -run '^$$' -bench 'RefreshGoSrc' -benchtime $(or $(COUNT),3)x -count 3 -timeout 30m ./pipeline/
# Peak memory as the tree grows: BENCH_TREE (GOROOT/src) copied one,
# three and six times to a tmpfs (every .go file of a later copy made
# unique; 68,868 files and 905 MB at six), a full run of the binary,
# built once, on each as a child process: peak RSS, KB per file beyond
# the 1x tree, files/s. BASE=HEAD also runs git HEAD's build beside it
# (BASE=FILE: that binary), size by size. About 10 minutes on 2 cores.
bench-scale:
	@set -e; base="$(BASE)"; \
	if [ "$$base" = HEAD ]; then \
	  rm -rf .bench/scale/head && mkdir -p .bench/scale/head && git archive HEAD | tar -x -C .bench/scale/head; \
	  (cd .bench/scale/head && CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=false -ldflags '-s -w -buildid=' -o ../repoprep-head ./cmd/repoprep); \
	  base=$(CURDIR)/.bench/scale/repoprep-head; \
	fi; \
	REPOPREP_BENCH_SCALE=1 REPOPREP_BENCH_TREE=$(BENCH_TREE) REPOPREP_BENCH_SCALE_BASE="$$base" REPOPREP_BENCH_COUNT=$(or $(COUNT),1) \
	  $(GO) test -run '^$$' -bench '^BenchmarkScale$$' -benchtime 1x -count 1 -timeout 90m -v ./pipeline/ | grep -v '^=== RUN'
# repoprep run on a real tree (GOROOT/src by default) copied to a tmpfs,
# beside cp -a of the same tree: 5 paired runs, the median ratio, the peak
# RSS and report.json's stages, then the floors in the same pairs: copy
# the staged texts; copy and count them; copy, count them and their lines,
# hash them, make the secret rules' keyword pass and build the search
# index (what the snapshot holds, with no rule run), and the run's ratio
# to each. BENCH_WORKERS="1 2 4" adds a workers series.
BENCH_WORKERS ?=
bench-run:
	REPOPREP_BENCH_RUN=$(BENCH_TREE) REPOPREP_BENCH_WORKERS="$(BENCH_WORKERS)" REPOPREP_BENCH_COUNT=$(or $(COUNT),5) \
	  $(GO) test -run '^TestBenchRun$$' -count=1 -v -timeout 60m ./cmd/repoprep | grep -v '^=== RUN'
# Profile-guided optimization: cmd/repoprep/default.pgo is a CPU profile
# of the main job, which go build, go run and go install use for the
# command by default (-pgo=auto). make pgo writes it again from six full
# runs of BENCH_TREE (GOROOT/src) copied to a tmpfs; regenerate it when
# the hot code has moved. About 30 seconds.
pgo:
	@set -e; dir=$$(mktemp -d /dev/shm/repoprep-pgo-XXXXXX 2>/dev/null || mktemp -d); \
	  trap 'rm -rf "$$dir"' EXIT; \
	  $(GO) build -o "$$dir/repoprep" ./cmd/repoprep; \
	  cp -a "$(BENCH_TREE)" "$$dir/src"; \
	  for i in 1 2 3 4 5 6; do \
	    REPOPREP_CPUPROFILE="$$dir/run$$i.prof" REPOPREP_TOKENS_CACHE="$$dir/tokens" \
	      "$$dir/repoprep" run -q --progress never --full -o "$$dir/out" "$$dir/src" >/dev/null; \
	  done; \
	  $(GO) tool pprof -proto "$$dir"/run*.prof > cmd/repoprep/default.pgo; \
	  ls -l cmd/repoprep/default.pgo
# Hostile tree shapes (10,000 levels, 100,000 files in one directory,
# 200,000 empty files) through the repoprep binary, beside find(1) on the
# same tree: time, ratio and peak RSS. Builds 300,000 files on /dev/shm.
bench-shapes:
	REPOPREP_BENCH_SHAPES=1 $(GO) test -run '^$$' -bench Shapes -benchtime 1x -count $(or $(COUNT),3) -timeout 60m ./cmd/repoprep
# Compare tokens.Count with tiktoken-go on every file of GOROOT/src, and log
# the throughput of both (several minutes).
check-tokens:
	$(GO) test -run '^TestCountExactGoroot$$' -v -count=1 -timeout 60m ./internal/tokens/ -args -goroot
# tokens.Count beside the o200k_base counters on the npm registry, on the same
# corpora: counts (which must agree) and MB per CPU second. The peers are
# installed into a temporary directory, never a dependency of ours; without
# npm or its registry the comparison is skipped.
TOKENIZER_PEERS ?= gpt-tokenizer@4.0.0 tiktoken@1.0.22 js-tiktoken@1.0.21
bench-tokens-peers:
	$(GO) test -run '^$$' -bench 'BenchmarkCorpus/(go|zh)/(tiktoken|cold|warm)$$' -benchtime 5x ./internal/tokens/
	@dir=$$(mktemp -d); \
	if (cd $$dir && npm install --silent --no-audit --no-fund $(TOKENIZER_PEERS) >/dev/null 2>&1); then \
	  cp internal/tokens/testdata/peers.mjs $$dir/ && node $$dir/peers.mjs "$$($(GO) env GOROOT)"; \
	else echo "npm peers not installed: comparison skipped"; fi; \
	status=$$?; rm -rf $$dir; exit $$status
# Recall and precision of the secret rules on a labeled corpus generated at test time,
# beside gitleaks on the same tree. gitleaks is installed into a temporary GOBIN (never a
# dependency of ours); without the module proxy the comparison is skipped.
GITLEAKS_VERSION ?= v8.30.1
bench-secrets:
	@gobin=$$(mktemp -d); \
	if GOBIN=$$gobin $(GO) install github.com/zricethezav/gitleaks/v8@$(GITLEAKS_VERSION) 2>/dev/null; then \
	  export REPOPREP_GITLEAKS=$$gobin/gitleaks; else echo "gitleaks not installed: comparison skipped"; fi; \
	REPOPREP_BENCH_SECRETS=1 $(GO) test ./internal/secrets -run 'TestLabeledCorpus' -count=1 -v | grep -v '^=== RUN'; \
	status=$$?; rm -rf $$gobin; exit $$status
# Secret detection on Samsung's CredData benchmark (labelled lines of real
# repositories), line level, beside gitleaks when REPOPREP_GITLEAKS names
# its binary. REPOPREP_CREDDATA is a directory holding CredData's meta/
# and data/, as its own download_data.py makes them (HOWTO in the
# scorer's package comment, internal/tools/creddata). repoprep runs once
# per repository (CREDDATA_RUNS=each, how users run it: repoprep masks every
# copy of a value found anywhere in one run, so one run over all of data/
# carries a password of one repository into the other 300), or once over
# data/ with CREDDATA_RUNS=one. Personal-data rules are off (--pii off):
# CredData labels credentials only.
CREDDATA_RUNS ?= each
bench-creddata:
	@if [ -z "$(REPOPREP_CREDDATA)" ]; then echo "bench-creddata: set REPOPREP_CREDDATA=DIR (CredData's meta/ and data/); skipped"; exit 0; fi; \
	test -d "$(REPOPREP_CREDDATA)/meta" && test -d "$(REPOPREP_CREDDATA)/data" || { echo "bench-creddata: $(REPOPREP_CREDDATA) has no meta/ or data/"; exit 2; }; \
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(GO) build -o $$tmp/repoprep ./cmd/repoprep && $(GO) build -o $$tmp/creddata ./internal/tools/creddata || exit 1; \
	echo "bench-creddata: repoprep $$(git rev-parse --short HEAD 2>/dev/null)$$(test -z "$$(git status --porcelain 2>/dev/null)" || echo ' (dirty tree)'), runs: $(CREDDATA_RUNS)"; \
	if [ "$(CREDDATA_RUNS)" = one ]; then \
	  REPOPREP_TOKENS_CACHE=off $$tmp/repoprep run --pii off -q -o $$tmp/out "$(REPOPREP_CREDDATA)/data" || exit 1; \
	  secrets=$$tmp/out/secrets.json; files=$$tmp/out/files.json; \
	else \
	  for d in "$(REPOPREP_CREDDATA)"/data/*/; do \
	    REPOPREP_TOKENS_CACHE=off $$tmp/repoprep run --pii off -q -o "$$tmp/outs/$$(basename "$$d")" "$$d" || exit 1; \
	  done; \
	  secrets="$$tmp/outs/*/secrets.json"; files="$$tmp/outs/*/files.json"; \
	fi; \
	gitleaks=; \
	if [ -n "$(REPOPREP_GITLEAKS)" ]; then \
	  "$(REPOPREP_GITLEAKS)" dir --no-banner --redact --exit-code 0 -f json -r $$tmp/gitleaks.json "$(REPOPREP_CREDDATA)/data" 2>/dev/null || exit 1; \
	  gitleaks="-gitleaks $$tmp/gitleaks.json"; \
	else echo "bench-creddata: REPOPREP_GITLEAKS unset: gitleaks comparison skipped"; fi; \
	$$tmp/creddata -meta "$(REPOPREP_CREDDATA)/meta" -data "$(REPOPREP_CREDDATA)/data" -secrets "$$secrets" -files "$$files" $$gitleaks
# Extraction over a real document corpus (a directory nobody here wrote):
# per format extracted/refused, slowest document against the time limit,
# and PDF word agreement with poppler's pdftotext. DOC_CORPUS=DIR.
bench-extract:
	@test -n "$(DOC_CORPUS)" || { echo "set DOC_CORPUS=DIR (see docs/extract.md)"; exit 2; }
	REPOPREP_DOC_CORPUS="$(DOC_CORPUS)" REPOPREP_DOC_REFS="$(DOC_REFS)" $(GO) test -count=1 -timeout 90m -run '^TestCorpus$$' -v ./internal/extract/ | grep -v '^=== RUN'

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin .bin dist staging .bench

# Encoding normalization scored on a labeled corpus nobody here wrote
# (chardet's test files under $REPOPREP_CORPORA/chardet-tests): exact / garbled /
# refused per family and label. Skipped where the corpus is absent.
bench-encoding:
	$(GO) test -run '^$$' -bench '^BenchmarkEncodingCorpus$$' -benchtime 1x -v ./pipeline/

.PHONY: bench-legacy
# Encoding normalization scored on legacy-encoded files of real repositories
# ($REPOPREP_LEGACY: repos.tsv, labels.tsv and repos/, never committed; the
# comment atop pipeline/legacy_corpus_test.go says what they hold):
# right / garbled / refused / dropped per family and per repository, the
# development and held-out repositories apart, valid UTF-8 files refused or
# changed, and uchardet on the same files when it is installed. Held-out
# files are counted, not named (REPOPREP_LEGACY_HELDOUT=show names them).
REPOPREP_LEGACY ?= $(CURDIR)/.bench/legacy
bench-legacy:
	REPOPREP_LEGACY=$(REPOPREP_LEGACY) $(GO) test -run '^$$' -bench '^BenchmarkLegacyCorpus$$' -benchtime 1x -timeout 60m -v ./pipeline/

.PHONY: bench-mcp
# The read server over stdio MCP beside the reference filesystem server
# (@modelcontextprotocol/server-filesystem, pinned in serve/bench_mcp_test.go
# and installed with npm into .bench/mcp), both driven by the official
# TypeScript SDK client on the same 500-line heads of Go's net/http, at 1
# and at 16 calls in flight: calls/s, p50, p99, CPU per call of server and
# client, and the ratios; beside them the floor, a null server replaying
# repoprep's answers from memory (serve/bench_null_test.go). BASE=HEAD
# also measures git HEAD's build in the same run (BASE=FILE: that binary).
# Skipped without node and npm.
bench-mcp: build
	@set -e; base="$(BASE)"; \
	if [ "$$base" = HEAD ]; then \
	  rm -rf .bench/mcp/head && mkdir -p .bench/mcp/head && git archive HEAD | tar -x -C .bench/mcp/head; \
	  (cd .bench/mcp/head && CGO_ENABLED=0 $(GO) build -trimpath -o ../repoprep-head ./cmd/repoprep); \
	  base=$(CURDIR)/.bench/mcp/repoprep-head; \
	fi; \
	REPOPREP_BENCH_MCP=$(CURDIR)/bin/repoprep REPOPREP_BENCH_MCP_BASE="$$base" REPOPREP_BENCH_MCP_CACHE=$(CURDIR)/.bench/mcp \
	  $(GO) test -run '^TestBenchMCP$$' -count=1 -v -timeout 40m ./serve/ | grep -v '^=== RUN'

.PHONY: bench-corpus
# repoprep corpus on real repositories (CORPUS_LIST: NAME<TAB>PATH a line,
# clones at fixed commits, never committed; corpus/bench_corpus_test.go
# says what is measured): one process, 4 shards merged and 7 shards merged
# give the same DIR/repos and byte-identical DIR/corpus; DuckDB reads every
# row and its duplicate count matches hashing the staged texts; the corpus
# against a `repoprep run` per repository (wall and CPU ratios, paired,
# CORPUS_PAIRS of them); broken LIST entries named with the others done.
CORPUS_LIST  ?= $(CURDIR)/.bench/corpus/list.tsv
CORPUS_PAIRS ?= 2
bench-corpus: build
	REPOPREP_CORPUS_LIST=$(CORPUS_LIST) REPOPREP_CORPUS_BIN=$(CURDIR)/bin/repoprep REPOPREP_CORPUS_PAIRS=$(CORPUS_PAIRS) \
	  $(GO) test -run '^TestBenchCorpus$$' -count=1 -v -timeout 120m ./corpus/

.PHONY: bench-report
# OUT/report.html of a large tree (BENCH_TREE, GOROOT/src by default) in
# headless Chromium (Debian's chromium): repoprep run into a tmpfs, then
# the page at desktop and phone widths, light and dark, with every check
# of TestReportInBrowser, asserting navigation start to data-ready under
# 2 s and a page under 5 MB, and printing both figures (no pipe after go
# test: its exit status is the target's).
bench-report:
	REPOPREP_BENCH_REPORT=$(BENCH_TREE) $(GO) test -run '^TestBenchReport$$' -count=1 -v -timeout 30m ./cmd/repoprep
