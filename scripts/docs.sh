#!/usr/bin/env bash
# Builds the DocC documentation of the library modules, AVFoundation, CoreMedia, CoreVideo and
# UniformTypeIdentifiers, with the swift-docc-plugin, and fails if anything printed a warning (an
# unresolved link, a bad topic group, a compiler warning in the build that makes the symbol graphs).
#
#   bash scripts/docs.sh            # archives in .build-docc/plugins/Swift-DocC/outputs/
#
# Uses its own build folder (.build-docc, ignored by git), so it does not disturb .build.
set -euo pipefail
cd "$(dirname "$0")/.."

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
for target in CoreVideo CoreMedia UniformTypeIdentifiers AVFoundation; do
    echo "== $target"
    if ! swift package --scratch-path .build-docc generate-documentation --target "$target" 2>&1 | tee -a "$log"; then
        echo "docs.sh: generating the documentation of $target failed" >&2
        status=1
    fi
done

if grep -q "warning:" "$log"; then
    echo "docs.sh: the documentation build printed warnings:" >&2
    grep "warning:" "$log" | sort -u >&2
    status=1
fi
if [ "$status" -eq 0 ]; then
    echo "docs.sh: documentation of CoreVideo, CoreMedia, UniformTypeIdentifiers and AVFoundation built with no warnings"
fi
exit "$status"
