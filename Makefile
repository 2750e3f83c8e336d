# repoprep: `make test` is what CI runs (.ci/run); `make bench` measures every stage.
GO      ?= go
PKGS    ?= ./...
BENCH   ?= .
BENCHTIME ?= 1s

.PHONY: build test vet staticcheck race fuzz bench bench-secrets fmt clean

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

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin staging
