#!/usr/bin/env bash
# Installs what qnnrules needs to build and test, from Debian 12 packages. Idempotent:
# packages already installed are left alone, and apt-get runs only when something is missing.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ pkg-config
  libyaml-cpp-dev nlohmann-json3-dev libre2-dev libspdlog-dev libfmt-dev libcli11-dev
  libsimdjson-dev libgtest-dev libgmock-dev libbenchmark-dev
  python3 graphviz python3-jsonschema python3-yaml
  python3-dev pybind11-dev python3-pybind11 python3-pytest python3-numpy python3-torch python3-torchvision
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
