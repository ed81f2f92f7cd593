#!/usr/bin/env bash
# Builds SFTPGo (github.com/drakkan/sftpgo/v2) from its Go module source for the interop test matrix
# (app/node/test/interop.test.ts, e2e/fixtures/sftpgo.ts) and caches the binary outside the repository.
# Idempotent: exits at once when the cached binary exists. Needs only Go and the Go module proxy.
#
#   bash scripts/build-sftpgo.sh            # builds /var/cache/sluice-interop/sftpgo-v2.5.6
#   SLUICE_SFTPGO_BIN=/path bash scripts/build-sftpgo.sh
set -euo pipefail

VERSION=v2.5.6
MODULE=github.com/drakkan/sftpgo/v2
BIN=${SLUICE_SFTPGO_BIN:-/var/cache/sluice-interop/sftpgo-$VERSION}

if [ -x "$BIN" ]; then
  echo "build-sftpgo: $BIN already built"
  exit 0
fi

GO=$(command -v go || true)
if [ -z "$GO" ] && [ -x /usr/local/go/bin/go ]; then GO=/usr/local/go/bin/go; fi
if [ -z "$GO" ]; then
  echo "build-sftpgo: no Go toolchain (go not on PATH, no /usr/local/go/bin/go)" >&2
  exit 1
fi

started=$(date +%s)
# `go mod download -json` prints the module's folder in the module cache ("Dir"). GONOSUMDB skips the checksum
# database for this one module only; its dependencies are still checked against its own go.sum.
dir=$(GONOSUMDB=$MODULE GOFLAGS=-mod=mod "$GO" mod download -json "$MODULE@$VERSION" \
  | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
  echo "build-sftpgo: go mod download gave no module folder for $MODULE@$VERSION" >&2
  exit 1
fi

work=$(mktemp -d /tmp/sluice-sftpgo-build-XXXXXX)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
# The module cache is read-only: build in a writable copy.
cp -r "$dir/." "$work/src"
chmod -R u+w "$work/src"
# The `bundle` tag embeds the templates (SFTPGo exits at start-up when it cannot load its e-mail templates from the
# config dir) and static files, so the binary runs from any --config-dir.
cp -r "$work/src/openapi" "$work/src/static" "$work/src/templates" "$work/src/internal/bundle/"
mkdir -p "$(dirname "$BIN")"
# Tags (docs/build-from-source.md): no cloud backends, no SQL/bolt providers (the tests use the `memory`
# provider), no metrics, no portable mode; `bundle` (see above). CGO off: no C compiler needed (sqlite is excluded).
(
  cd "$work/src"
  CGO_ENABLED=0 GOFLAGS=-mod=mod "$GO" build -trimpath \
    -tags bundle,nogcs,nos3,noazblob,nobolt,nomysql,nopgsql,nosqlite,nometrics,noportable \
    -ldflags "-s -w -X $MODULE/internal/version.commit=$VERSION" \
    -o "$work/sftpgo" .
)
install -m 0755 "$work/sftpgo" "$BIN.tmp"
mv -f "$BIN.tmp" "$BIN"
echo "build-sftpgo: built $BIN ($("$BIN" -v 2>/dev/null | head -1)) in $(( $(date +%s) - started )) s"
