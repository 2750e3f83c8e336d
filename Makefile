# repoprep: `make test` is what CI runs (.ci/run); `make bench` measures every stage.
GO      ?= go
PKGS    ?= ./...
BENCH   ?= .
BENCHTIME ?= 1s

.PHONY: build test vet staticcheck race pdf fuzz bench bench-extract fmt clean

build:
	$(GO) build -o bin/repoprep ./cmd/repoprep

test: vet staticcheck race pdf

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet $(PKGS)

# staticcheck comes from go.mod's tool directive: no separate install.
staticcheck:
	$(GO) tool staticcheck $(PKGS)

race:
	$(GO) test -race -count=1 $(PKGS)

# PDFium (WebAssembly, run by wazero) takes minutes to compile under -race,
# so the tests that run it skip there and run here, without -race.
pdf:
	$(GO) test -count=1 ./internal/extract/
	$(GO) test -count=1 -run PDF ./pipeline/ ./cmd/repoprep/

# A short run of every fuzz target beyond its seed corpus.
FUZZTIME ?= 10s
fuzz:
	@for pkg in $$($(GO) list $(PKGS)); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -benchtime $(BENCHTIME) $(PKGS)

# Extraction over a real document corpus (a directory nobody here wrote):
# per format extracted/refused, slowest document against the time limit,
# and PDF word agreement with poppler's pdftotext. DOC_CORPUS=DIR.
bench-extract:
	@test -n "$(DOC_CORPUS)" || { echo "set DOC_CORPUS=DIR (see docs/extract.md)"; exit 2; }
	REPOPREP_DOC_CORPUS="$(DOC_CORPUS)" $(GO) test -count=1 -run '^TestCorpus$$' -v ./internal/extract/ | grep -v '^=== RUN'

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin staging
