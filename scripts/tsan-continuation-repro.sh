#!/usr/bin/env bash
# Shows the toolchain's ThreadSanitizer limitation that keeps Avocet's suite from a clean TSan run:
# with Swift 6.3.1 on Linux, TSan does not see a checked continuation's resume as ordering anything,
# so a value built by the resuming thread and read by the awaiting task is reported as a race. No
# Avocet code is involved: an object made on a plain thread, passed through resume(returning:).
# Exits 0 when the toolchain is fixed (no report), 1 while it still reports.
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/main.swift" <<'SWIFT'
import Foundation
final class Box: @unchecked Sendable {
    let values: [Int]
    init(_ n: Int) { values = Array(0..<n) }
}
@main struct Main {
    static func main() async {
        var total = 0
        for i in 0..<500 {
            let box: Box = await withCheckedContinuation { done in
                Thread { done.resume(returning: Box(i % 7 + 1)) }.start()
            }
            total += box.values.count
        }
        print("total \(total)")
    }
}
SWIFT
swiftc -parse-as-library -sanitize=thread -g "$dir/main.swift" -o "$dir/repro" 2>&1 | grep -v "Cannot export local symbol" || true
if TSAN_OPTIONS="halt_on_error=1" "$dir/repro" > "$dir/out" 2>&1; then
  echo "tsan-continuation-repro: no report: this toolchain's TSan follows continuations"
  exit 0
fi
grep -m1 "SUMMARY" "$dir/out" || true
echo "tsan-continuation-repro: TSan reports a continuation hand-off as a race ($(swiftc --version 2>&1 | head -1))"
exit 1
