# repoprep: `make test` is what CI runs (.ci/run); `make bench` measures every stage.
GO      ?= go
PKGS    ?= ./...
BENCH   ?= .
BENCHTIME ?= 1s

.PHONY: build test vet staticcheck race fuzz bench bench-encoding fmt clean

build:
	$(GO) build -o bin/repoprep ./cmd/repoprep

test: vet staticcheck race

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet $(PKGS)

# staticcheck comes from go.mod's tool directive: no separate install.
staticcheck:
	$(GO) tool staticcheck $(PKGS)

race:
	$(GO) test -race -count=1 $(PKGS)

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

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin staging

# Encoding normalization scored on a labeled corpus nobody here wrote
# (../shared/corpora/chardet-tests, or $REPOPREP_CORPORA): exact / garbled /
# refused per family and label. Skipped where the corpus is absent.
bench-encoding:
	$(GO) test -run '^$$' -bench '^BenchmarkEncodingCorpus$$' -benchtime 1x -v ./pipeline/
