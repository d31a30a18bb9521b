#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Install the Debian packages ksymcheck builds and tests with, only those missing.
# Usage: scripts/install-deps.sh [--demo | --test]
#   (none)   what `make` builds with
#   --demo   and what `make demo` assembles its sample kernel with (clang)
#   --test   and what `make check`, check-real and check-dist run
# Run by `make demo` and `make check` before they build; as root, or through sudo.
set -euo pipefail
pkgs=(build-essential pkg-config libbpf-dev libelf-dev liblzma-dev libzstd-dev zlib1g-dev libxxhash-dev libjson-c-dev
      libssl-dev libcmocka-dev scdoc)
demo_pkgs=(clang)
test_pkgs=(clang binutils xz-utils zstd gzip kmod python3 python3-jsonschema openssl patch git
	   time strace graphviz eslint python3-tinycss2 python3-websocket
	   npm  # the SARIF 2.1.0 schema, fetched once (scripts/sarif-schema.sh)
	   debhelper dpkg-dev lintian man-db shellcheck debootstrap  # check-dist, check-fresh
	   qemu-system-x86 busybox-static  # check-real's loader lanes
	   flex bison bc cpio)  # check-real's intree lane builds a kernel (and libssl-dev)
case "${1:-}" in
--demo) pkgs+=("${demo_pkgs[@]}") ;;
--test) pkgs+=("${test_pkgs[@]}") ;;
"") ;;
*) echo "usage: $0 [--demo | --test]" >&2; exit 2 ;;
esac
missing=()
for p in "${pkgs[@]}"; do
	case " ${missing[*]} " in *" $p "*) continue ;; esac
	# nodejs from elsewhere (NodeSource) brings its own npm and conflicts with Debian's
	[ "$p" = npm ] && command -v npm > /dev/null && continue
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		if ! command -v sudo > /dev/null; then
			echo "$0: missing packages: ${missing[*]}; run this as root, or install sudo" >&2
			exit 1
		fi
		sudo=sudo
	fi
	echo "installing: ${missing[*]}" >&2
	$sudo apt-get -o DPkg::Lock::Timeout=300 update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
# As the user who runs the tests (its cache), not through sudo. Without the registry the
# test says why it skips.
if [ "${1:-}" = --test ] && ! "$(dirname "$0")/sarif-schema.sh" --check > /dev/null 2>&1; then
	"$(dirname "$0")/sarif-schema.sh" > /dev/null || echo "$0: the SARIF schema validation will be skipped" >&2
fi
exit 0
