# repoprep: `make test` is what CI runs (.ci/run); `make bench` measures every stage.
GO      ?= go
PKGS    ?= ./...
BENCH   ?= .
BENCHTIME ?= 1s

.PHONY: build test vet staticcheck race fuzz bench bench-serve fmt clean

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

# The read server on real data: a snapshot of Go's own src/ (built once into
# BENCH_OUT), searched with and without its trigram index, unknown paths
# beside a hit, and a 30 MB oversize file read by range beside os.ReadFile.
BENCH_OUT ?= $(CURDIR)/.bench/gosrc
bench-serve: build
	@test -f $(BENCH_OUT)/files.json || ./bin/repoprep run -q --progress never -o $(BENCH_OUT) $$($(GO) env GOROOT)/src
	REPOPREP_BENCH_OUT=$(BENCH_OUT) $(GO) test -run '^$$' -bench 'GoSrc|OversizeRange' -benchtime 5x -count 3 ./serve/
	$(GO) test -run '^$$' -bench 'BuildGoSrc' -benchtime 1x -count 3 ./internal/trigram/

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin staging .bench
