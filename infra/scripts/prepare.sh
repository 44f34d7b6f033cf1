#!/usr/bin/env bash
# Makes sure the local infrastructure's binaries exist, cached under <repo>/.infra/ (gitignored).
#
#   infra/scripts/prepare.sh [kafka] [ferretdb] [redis] [chromium]     (no argument: the first three)
#
# A part is skipped when its service comes from outside: KAFKA_BROKERS, MONGO_URL, REDIS_URL.
# chromium is Debian's browser for the tests that drive a page (npm test asks for it).
# Safe to run any number of times; a cached part costs a hash comparison.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
INFRA="$ROOT/.infra"

say() { printf 'prepare: %s\n' "$*" >&2; }
stamp_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(kafka ferretdb redis)
want_kafka=; want_ferretdb=; want_redis=; want_chromium=
for part in "${parts[@]}"; do
  case "$part" in
    kafka) [ -n "${KAFKA_BROKERS:-}" ] || want_kafka=1 ;;
    ferretdb) [ -n "${MONGO_URL:-}" ] || want_ferretdb=1 ;;
    redis) [ -n "${REDIS_URL:-}" ] || want_redis=1 ;;
    chromium) want_chromium=1 ;;
    *) say "unknown part '$part' (expected kafka, ferretdb, redis or chromium)"; exit 2 ;;
  esac
done

# Go is not a Debian package on this machine kind but a tarball that is not always on PATH.
if [ -n "$want_ferretdb" ] && ! command -v go >/dev/null && [ -x /usr/local/go/bin/go ]; then
  PATH="/usr/local/go/bin:$PATH"
fi

missing=()
if [ -n "$want_kafka" ]; then
  command -v java >/dev/null || missing+=(openjdk-17-jre-headless)
  command -v mvn >/dev/null || missing+=(maven)
fi
if [ -n "$want_ferretdb" ]; then
  command -v go >/dev/null || missing+=(golang-go)
  command -v patch >/dev/null || missing+=(patch)
fi
[ -z "$want_redis" ] || command -v redis-server >/dev/null || missing+=(redis-server)
# The tests launch this path (playwright-core, executablePath): another chromium on PATH is not it.
[ -z "$want_chromium" ] || [ -x /usr/bin/chromium ] || missing+=(chromium)

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  # Without a policy-rc.d, installing redis-server would start a system-wide instance on 6379
  # that we would then mistake for ours.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod +x /usr/sbin/policy-rc.d
    trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  say "installing ${missing[*]} with apt-get"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ -n "$want_kafka" ]; then
  pom="$ROOT/infra/kafka/pom.xml"
  libs="$INFRA/kafka/libs"
  stamp="$INFRA/kafka/libs.stamp"
  want=$(stamp_of "$pom")
  if [ -d "$libs" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
    say "kafka jars: cached"
  else
    say "kafka jars: resolving with Maven"
    start=$SECONDS
    rm -rf "$libs" "$libs.tmp" "$stamp"
    mkdir -p "$INFRA/kafka"
    # Into a temporary folder first, so an interrupted download never looks complete.
    # Maven 3.8 prints bare colour resets even with -B -q; strip them, keep any error text.
    mvn -B -q -f "$pom" \
      org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$libs.tmp" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >&2
    mv "$libs.tmp" "$libs"
    echo "$want" >"$stamp"
    say "kafka jars: done in $((SECONDS - start)) s"
  fi
fi

if [ -n "$want_ferretdb" ]; then
  src="$ROOT/infra/ferretdb"
  bin="$INFRA/bin/ferretdb"
  stamp="$INFRA/bin/ferretdb.stamp"
  shopt -s nullglob # no patch file at all is fine: the build is then plain FerretDB
  patches=("$src"/patches/*.patch)
  # Modules under FerretDB patched the same way, each from its own folder of patches:
  # modernc.org/libc, under the runner's SQLite (ADR 0102); modernc.org/sqlite, its driver (ADR 0124);
  # github.com/FerretDB/wire, the wire protocol (ADR 0123).
  dependency_patches=("$src"/patches/libc/*.patch "$src"/patches/sqlite/*.patch "$src"/patches/wire/*.patch)
  shopt -u nullglob
  # Every Go source and every patch to FerretDB counts: a change to any of them rebuilds.
  want=$( (find "$src" -name '*.go' | LC_ALL=C sort | xargs cat; cat "$src/go.mod" "$src/go.sum" "${patches[@]}" "${dependency_patches[@]}"; go version) |
    sha256sum | cut -d' ' -f1)
  if [ -x "$bin" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
    say "ferretdb runner: cached"
  else
    say "ferretdb runner: building with $(go env GOVERSION) (the first build takes a minute or two)"
    start=$SECONDS
    mkdir -p "$INFRA/bin"
    rm -f "$stamp"
    # FerretDB with our patches (infra/ferretdb/patches, ADR 0011): a writable copy of the module the
    # runner's go.mod requires, patched, and a build-only go.mod beside it that replaces the module
    # with that copy. The committed go.mod stays plain, so `go test` there needs none of this.
    module=github.com/FerretDB/FerretDB
    build="$INFRA/ferretdb/build"
    pristine=$(cd "$src" && GOTOOLCHAIN=local go mod download "$module" && GOTOOLCHAIN=local go list -m -f '{{.Dir}}' "$module")
    rm -rf "$build"
    mkdir -p "$build"
    cp -R "$pristine" "$build/FerretDB"
    chmod -R u+w "$build/FerretDB" # the module cache is read-only
    for patch_file in "${patches[@]}"; do
      patch --quiet --forward --strip=1 --directory="$build/FerretDB" <"$patch_file"
    done
    cp "$src/go.mod" "$src/go.sum" "$build/"
    (cd "$src" && GOTOOLCHAIN=local go mod edit -replace="$module=$build/FerretDB" "$build/go.mod")
    # The same for each module FerretDB depends on that has patches of its own.
    for dependency in modernc.org/libc=libc modernc.org/sqlite=sqlite github.com/FerretDB/wire=wire; do
      dep_module=${dependency%=*}
      dep_dir=${dependency#*=}
      shopt -s nullglob
      dep_patches=("$src/patches/$dep_dir"/*.patch)
      shopt -u nullglob
      [ ${#dep_patches[@]} -gt 0 ] || continue
      dep_pristine=$(cd "$src" && GOTOOLCHAIN=local go mod download "$dep_module" && GOTOOLCHAIN=local go list -m -f '{{.Dir}}' "$dep_module")
      cp -R "$dep_pristine" "$build/$dep_dir"
      chmod -R u+w "$build/$dep_dir"
      for patch_file in "${dep_patches[@]}"; do
        patch --quiet --forward --strip=1 --directory="$build/$dep_dir" <"$patch_file"
      done
      (cd "$src" && GOTOOLCHAIN=local go mod edit -replace="$dep_module=$build/$dep_dir" "$build/go.mod")
    done
    # -buildvcs=false: the source sits in a git work tree that may belong to another user in CI.
    (cd "$src" && GOTOOLCHAIN=local CGO_ENABLED=0 go build -modfile="$build/go.mod" -trimpath -buildvcs=false -o "$bin" .)
    echo "$want" >"$stamp"
    say "ferretdb runner: done in $((SECONDS - start)) s"
  fi
fi

if [ -n "$want_redis" ]; then
  say "redis-server: $(command -v redis-server)"
fi
