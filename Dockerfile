# tierbench and what its runs need on a node of a cluster (docs/cluster.md), on
# Debian 12 (bookworm): the PostgreSQL and MariaDB servers (tierbench starts private
# instances of them), gcc and the C library's headers (the preload library of the
# emulated devices is compiled on first use), fuse3 (the file workload and the
# emulator's FUSE path), chromium (the reports' browser test), postmark (the file
# workload's comparison) and procps. Build it from the repository's root:
#
#   docker build -t tierbench --build-arg VERSION=$(git describe --always) --build-arg COMMIT=$(git rev-parse HEAD) .
#
# Every run records the commit in its host section; without the build arguments
# the binary says "devel".

FROM debian:bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates curl unzip gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY go.mod go.sum ./
# Debian 12 ships Go 1.19: the toolchain go.mod names comes from the Go module proxy,
# as scripts/setup fetches it.
RUN ver=$(awk '/^go /{print $2; exit}' go.mod) \
 && curl -fsSL "https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-go${ver}.linux-$(dpkg --print-architecture).zip" -o /tmp/go.zip \
 && mkdir -p /usr/local/go && cd /usr/local/go && unzip -q /tmp/go.zip && mv golang.org/toolchain@*/* . && rm -rf golang.org /tmp/go.zip \
 && chmod +x bin/* pkg/tool/*/*
ENV PATH=/usr/local/go/bin:$PATH
RUN go mod download
COPY cmd ./cmd
COPY internal ./internal
ARG VERSION=""
ARG COMMIT=""
RUN go build -trimpath -buildvcs=false \
      -ldflags "-X tierbench/internal/host.Version=${VERSION} -X tierbench/internal/host.Commit=${COMMIT}" \
      -o /tierbench ./cmd/tierbench

FROM debian:bookworm
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      postgresql mariadb-server gcc libc6-dev fuse3 chromium postmark procps ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /tierbench /usr/local/bin/tierbench
# Runs and their reports go to OUT, a volume the nodes share (docs/cluster.md).
WORKDIR /results
ENTRYPOINT ["tierbench"]
CMD ["--help"]
