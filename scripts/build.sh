#!/usr/bin/env bash
# Configures and builds one build tree. Usage: scripts/build.sh [BUILD_DIR] [extra cmake args...]
# QNNRULES_BUILD_TARGETS="a b" builds only those targets (the ThreadSanitizer build).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build}"
shift || true
# Debian's CMake, named explicitly: the cmake first on PATH may be a pip-installed 4.x.
CMAKE=/usr/bin/cmake
[ -x "$CMAKE" ] || CMAKE=cmake
launcher=()
if command -v ccache >/dev/null; then
  # Paths relative to the checkout, so build trees of other checkouts share the cache.
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd)}"
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
"$CMAKE" -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" "$@" >/dev/null
targets=()
for t in ${QNNRULES_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
"$CMAKE" --build "$dir" -j"$(nproc)" "${targets[@]}"
