# syntax=docker/dockerfile:1
# repoprep in a container: a static binary on distroless, run as a non-root
# user, with the repository to read mounted read-only at /src and a writable
# directory mounted at /out. The snapshot is published as /out/snapshot, not
# as /out itself: publication swaps a finished temporary directory with the
# old snapshot by rename, and a mount point cannot be renamed.
#
#   docker build -t repoprep .
#   mkdir -p .repoprep && docker run --rm --user "$(id -u):$(id -g)" \
#     -v "$PWD:/src:ro" -v "$PWD/.repoprep:/out" repoprep
#   docker run --rm -i -v "$PWD/.repoprep:/out:ro" repoprep serve /out/snapshot

FROM golang:1.26-bookworm AS build
WORKDIR /build
# Modules first, so a source change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=(devel)
ARG COMMIT=unknown
# The same flags as the release (.goreleaser.yaml): static, no build paths,
# fixed build ID, so the same commit gives the same binary.
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
      -ldflags "-s -w -buildid= -X main.version=${VERSION} -X main.commit=${COMMIT}" \
      -o /out/repoprep ./cmd/repoprep

# distroless/static has no shell and no package manager: only the binary,
# CA certificates, tzdata and a nonroot user (uid 65532).
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/repoprep /usr/local/bin/repoprep
USER 65532:65532
VOLUME ["/src", "/out"]
WORKDIR /src
ENTRYPOINT ["/usr/local/bin/repoprep"]
CMD ["run", "--out", "/out/snapshot", "/src"]
