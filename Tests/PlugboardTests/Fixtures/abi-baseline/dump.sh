#!/usr/bin/env bash
# Dumps the ABI of the package's public C headers with libabigail, to the file given, or, with no
# argument, to the baseline of the current minor (plugboard-1.N.abi beside this script).
# Needs cc and abidw (Debian: abigail-tools). See README.md.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
include="$here/../../../../include"
minor=$(sed -n 's/^#define PB_ABI_VERSION_MINOR \([0-9]*\)u$/\1/p' "$include/plugboard/version.h")
out="${1:-$here/plugboard-1.$minor.abi}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -std=c11 -Wall -Wextra -Werror -g -O0 -shared -fPIC -fvisibility=hidden -I "$include" "$here/abi_surface.c" \
    -o "$work/libplugboard-abi.so"
abidw --headers-dir "$include" --no-corpus-path --no-comp-dir-path --short-locs --out-file "$out" "$work/libplugboard-abi.so"
