#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The SARIF 2.1.0 JSON schema that tests/cli/sarif.sh validates against, kept in the cache
# ($KSC_CACHE, default ~/.cache/ksymcheck) so that the test runs offline. It comes from
# the npm package @microsoft/jest-sarif (its lib/schemas/sarif-2.1.0-rtm.5.json, the OASIS
# 2.1.0 schema as published on SchemaStore), fetched once with `npm pack`; no Debian
# package ships the schema. scripts/install-deps.sh --test runs this after installing npm.
#
#     sarif-schema.sh [--check]
#
# Prints the schema's path (exit 0); fetches it first when it is not cached, unless
# --check. Exit 1 with the reason on standard error when it cannot be had.
set -euo pipefail
PKG=@microsoft/jest-sarif@1.0.0-beta.0
MEMBER=package/lib/schemas/sarif-2.1.0-rtm.5.json
SHA256=2d99159ae54a3eea97f81781cff48780548657c35949f4b7f25e99a2ba4de4f8
cache=${KSC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ksymcheck}/sarif
schema=$cache/sarif-2.1.0-rtm.5.json

if [ -f "$schema" ] && echo "$SHA256  $schema" | sha256sum -c --status; then
	echo "$schema"
	exit 0
fi
if [ "${1:-}" = --check ]; then
	echo "$0: no SARIF 2.1.0 schema in $cache: run scripts/install-deps.sh --test (npm, once)" >&2
	exit 1
fi
need="the SARIF 2.1.0 schema needs the npm registry, once"
command -v npm > /dev/null || { echo "$0: $need: npm is not installed" >&2; exit 1; }
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && timeout 120 npm pack --silent --fetch-retries=1 "$PKG" > pack.out 2> pack.err); then
	echo "$0: $need: npm pack $PKG failed ($(head -c 200 "$tmp/pack.err" | tr '\n' ' '))" >&2
	exit 1
fi
if ! tar -xzf "$tmp/$(tail -n 1 "$tmp/pack.out")" -C "$tmp" "$MEMBER" ||
	! echo "$SHA256  $tmp/$MEMBER" | sha256sum -c --status; then
	echo "$0: $PKG does not hold the expected $MEMBER" >&2
	exit 1
fi
mv "$tmp/$MEMBER" "$schema"
echo "$schema"
