#!/usr/bin/env bash
# Shows the toolchain's ThreadSanitizer gap that Avocet's withHandOffContinuation (Sources/Locking)
# works around: with Swift 6.3 on Linux, the concurrency runtime tells TSan of a release on the task
# when a checked continuation resumes it, but of no acquire where the task goes on, so a value built by
# the resuming thread and read by the awaiting task is reported as a race. No Avocet code is involved:
# an object made on a plain thread, passed through resume(returning:). Run with `--with-acquire`, the
# same program acquires on the task's address after each await, as withHandOffContinuation does, and
# is not reported. Exits 0 when the toolchain needs no workaround (no report without it), 1 while it does.
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/main.swift" <<'SWIFT'
import Foundation
let withAcquire = CommandLine.arguments.contains("--with-acquire")
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
            if withAcquire, let symbol = dlsym(nil, "__tsan_acquire") {
                let acquire = unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutableRawPointer?) -> Void).self)
                withUnsafeCurrentTask { task in acquire(task.map { unsafeBitCast($0, to: UnsafeMutableRawPointer.self) }) }
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
if TSAN_OPTIONS="halt_on_error=1" "$dir/repro" --with-acquire > "$dir/out" 2>&1; then
  echo "tsan-continuation-repro: with an acquire on the task after the await (withHandOffContinuation), no report"
else
  grep -m1 "SUMMARY" "$dir/out" || true
  echo "tsan-continuation-repro: reported even with the acquire: withHandOffContinuation no longer suffices"
fi
exit 1
