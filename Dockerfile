# syntax=docker/dockerfile:1
#
# The storagebench image: one static binary, /storagebench, used both as the
# operator (`storagebench manager`) and as the engine in the client pods.
#
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) \
#     --build-arg COMMIT=$(git rev-parse --short HEAD) \
#     --build-arg REVISION=$(git rev-parse HEAD) -t IMAGE .
#
# `make image` builds the same image without a Docker daemon (hack/image):
# same binary path, entrypoint, user and labels. Keep the two in sync
# (hack/packaging tests it).

ARG GO_VERSION=1.26

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
WORKDIR /src
# Dependencies first, so the module download is cached across source changes.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
# Set by BuildKit from --platform (cross-compiled: the build stage runs natively).
ARG TARGETOS
ARG TARGETARCH
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} go build -trimpath \
      -ldflags "-X github.com/storagebench/storagebench/internal/version.Version=${VERSION} -X github.com/storagebench/storagebench/internal/version.Commit=${COMMIT}" \
      -o /out/storagebench .

# distroless static: no shell, no package manager; user nonroot is 65532.
FROM gcr.io/distroless/static:nonroot
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="storagebench" \
      org.opencontainers.image.description="Kubernetes operator and IO engine that benchmarks storage" \
      org.opencontainers.image.source="https://github.com/storagebench/storagebench" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
COPY --from=build /out/storagebench /storagebench
USER 65532:65532
ENTRYPOINT ["/storagebench"]
