#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Install the Debian packages ksymcheck builds and tests with, only those missing.
# Usage: scripts/install-deps.sh [--test]   (--test adds what the test suite runs)
set -euo pipefail
pkgs=(build-essential pkg-config libelf-dev liblzma-dev libzstd-dev zlib1g-dev libjson-c-dev
      libssl-dev libcmocka-dev scdoc)
test_pkgs=(clang binutils xz-utils zstd gzip kmod python3 scdoc
	   debhelper dpkg-dev lintian man-db shellcheck)  # make check-dist; man, shellcheck: tests
[ "${1:-}" = "--test" ] && pkgs+=("${test_pkgs[@]}")
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
