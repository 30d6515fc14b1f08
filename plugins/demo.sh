#!/usr/bin/env bash
# Plugboard demo: builds the host and the example C and C++ plugins, then plays a
# scripted sequence of application events through them.
#
#   plugins/demo.sh           # human-readable output
#   plugins/demo.sh --json    # any arguments go to `plugboard run`
#
# Needs swift, a C compiler (cc, or $CC), for the C++ examples a C++ compiler
# (c++, or $CXX), and the libffi and libseccomp headers (pkg-config finds them); no cmake. Works from any
# directory. Build output and headings go to stderr, so stdout carries only
# what `plugboard run` prints (`plugins/demo.sh --json | jq .` works).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

step() { printf '\n==> %s\n' "$*" >&2; }

CC="${CC:-cc}"
CXX="${CXX:-c++}"
for tool in swift "$CC" "$CXX"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "demo.sh: '$tool' not found; install it and run again" >&2
        exit 1
    fi
done
# The host's two system libraries: libffi (plugin function calls) and libseccomp (the worker sandbox).
for library in libffi libseccomp; do
    if ! pkg-config --exists "$library" 2>/dev/null; then
        echo "demo.sh: the $library headers are missing; install $library-dev (apt-get install -y pkg-config $library-dev, or run .ci/run) and run again" >&2
        exit 1
    fi
done

# The flags every plugin needs: a shared library (-shared -fPIC) whose only
# exported symbol is plugboard_entry (-fvisibility=hidden). The examples are
# warning-free with -Werror too; it is left out here so that a newer compiler
# with new warnings cannot stop the demo.
PLUGIN_FLAGS=(-Wall -Wextra -pedantic -O2 -shared -fPIC -fvisibility=hidden -I include)
CFLAGS=(-std=c11 "${PLUGIN_FLAGS[@]}")
CXXFLAGS=(-std=c++17 "${PLUGIN_FLAGS[@]}")   # <plugboard/cpp/plugin.hpp> needs C++17
PLUGIN_DIR=.build/demo-plugins
EVENTS=plugins/demo-events.jsonl

# SwiftPM leaves lock files and empty folders in TMPDIR: they go into a folder of the demo's own,
# removed once the host is built.
swift_tmp=$(mktemp -d)
trap 'rm -rf "$swift_tmp"' EXIT
swift() { TMPDIR=$swift_tmp command swift "$@"; }

step "Building the plugboard host and its plugin worker (swift build --product plugboard, plugboard-worker)"
swift build --product plugboard >&2
swift build --product plugboard-worker >&2

step "Compiling the example plugins into $PLUGIN_DIR"
rm -rf "$PLUGIN_DIR"          # no stale plugin from a renamed folder
mkdir -p "$PLUGIN_DIR"
for dir in plugins/*/; do
    name="$(basename "$dir")"
    sources=("$dir"*.c)
    compiler=("$CC" "${CFLAGS[@]}")
    if [[ ! -e "${sources[0]}" ]]; then
        sources=("$dir"*.cpp)
        compiler=("$CXX" "${CXXFLAGS[@]}")
    fi
    [[ -e "${sources[0]}" ]] || continue     # neither C nor C++ (no *.c, no *.cpp): skip
    echo "    $name.so  <-  ${sources[*]}" >&2
    "${compiler[@]}" -o "$PLUGIN_DIR/$name.so" "${sources[@]}"
done

step "Running the scripted events in $EVENTS"
bin_path="$(swift build --show-bin-path)"
rm -rf "$swift_tmp"
# The application's container (Documents, Library, tmp) stays in .build, so the
# url-history example remembers the demo's URLs from one run to the next.
exec "$bin_path/plugboard" run --plugin-dir "$PLUGIN_DIR" --container .build/demo-container \
    --events "$EVENTS" "$@"
