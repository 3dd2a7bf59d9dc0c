#!/usr/bin/env bash
# Installs what qnnrules needs to build and test, from Debian 12 packages. Idempotent:
# packages already installed are left alone, and apt-get runs only when something is missing.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ pkg-config ccache
  libyaml-cpp-dev nlohmann-json3-dev libre2-dev libspdlog-dev libfmt-dev libcli11-dev
  libsimdjson-dev libgtest-dev libgmock-dev libbenchmark-dev
  libmimalloc-dev
  libzip-dev libonnx-dev libprotobuf-dev protobuf-compiler
  python3 python3-venv graphviz python3-jsonschema python3-yaml
  chromium
  python3-dev pybind11-dev python3-pybind11
  # clang for the sanitizer build (ASan+UBSan incl. float-cast-overflow), the libFuzzer targets
  # (tests/fuzz/, scripts/fuzz.sh) and the ThreadSanitizer build; libFuzzer is in compiler-rt.
  clang libclang-rt-14-dev
)
# torch, torchvision, torchao, numpy and pytest come from the venv below (pinned), not Debian.

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
else
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The project's one virtual environment. It is made from Debian's interpreter, named explicitly
# (the python3 first on PATH may be another build), so the extension that CMake builds against
# Debian's headers is the one the venv loads. Pinned versions; reinstalled only when
# scripts/requirements-venv.txt changes.
cd "$(dirname "$0")/.."
VENV=.venv
REQ=scripts/requirements-venv.txt
if [ "${QNNRULES_SKIP_VENV:-0}" != 1 ]; then
  if [ ! -x "$VENV/bin/python" ]; then
    /usr/bin/python3 -m venv "$VENV"
  fi
  stamp="$VENV/.requirements.sha256"
  want=$(sha256sum "$REQ" | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "setup: installing $REQ into $VENV"
    "$VENV/bin/python" -m pip install -q -r "$REQ"
    echo "$want" > "$stamp"
  else
    echo "setup: $VENV up to date"
  fi
fi
