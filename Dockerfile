# Hearth in a container: a static binary on a small base, run as an unprivileged user (uid
# 10001), with all state in the /data volume. .dockerignore keeps data, keys and backups out of
# the build context.
#   docker build -t hearth --build-arg VERSION=1.0.0 .
#   docker run -p 8080:8080 -v hearth-data:/data -e HEARTH_BASE_URL=https://chat.example.com hearth
# or, on the internet with its own certificates (docs/deploy.md):
#   docker run -p 80:80 -p 443:443 -v hearth-data:/data -e HEARTH_DOMAIN=chat.example.com hearth
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# disable_grpc_modules: see "Build it" in README.md (a smaller binary, a lighter idle server).
RUN CGO_ENABLED=0 go build -trimpath -tags disable_grpc_modules -ldflags "-s -w -X main.version=${VERSION}" -o /out/hearth ./cmd/hearth

FROM alpine:3.22
RUN adduser -D -H -u 10001 hearth && mkdir /data && chown hearth:hearth /data
COPY --from=build /out/hearth /usr/local/bin/hearth
USER hearth
VOLUME /data
ENV HEARTH_DATA=/data HEARTH_ADDR=:8080
# 80 and 443 with HEARTH_DOMAIN, which serves HTTPS there in place of HEARTH_ADDR; 7881 (UDP
# and TCP) carries voice (HEARTH_VOICE_PORT).
EXPOSE 8080 80 443 7881/udp 7881/tcp
# `hearth healthcheck` asks the server over /data/admin.sock where it listens and whether it
# serves TLS, then checks /healthz there: it follows -addr, HEARTH_ADDR and -tls-cert however
# they were given.
HEALTHCHECK --interval=30s --timeout=10s --start-period=10s \
  CMD ["hearth", "healthcheck"]
ENTRYPOINT ["hearth"]
