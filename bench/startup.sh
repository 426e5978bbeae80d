#!/usr/bin/env bash
# Start-up figures of the release binary: `--version` and `detect` on a simulated DGX H100.
# Targets: under 5 ms and under 20 ms on a laptop-class core. Also checks the dynamic libraries.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet -p gpushare
bin=target/release/gpushare
runs="${RUNS:-200}"

python3 - "$bin" "$runs" <<'PY'
import statistics, subprocess, sys, time
binary, runs = sys.argv[1], int(sys.argv[2])
def measure(args):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([binary, *args], stdout=subprocess.DEVNULL, check=True)
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1]
for label, args, target in [
    ("gpushare --version", ["--version"], 5),
    ("gpushare --sim dgx-h100 detect --format json", ["--sim", "dgx-h100", "detect", "--format", "json"], 20),
]:
    median, p95 = measure(args)
    print(f"{label:48s} median {median:6.2f} ms  p95 {p95:6.2f} ms  (target < {target} ms)")
PY

echo "linked libraries:"
ldd "$bin" | sed 's/^/  /'
if ldd "$bin" | grep -vE 'linux-vdso|ld-linux|lib(c|m|dl|pthread|gcc_s|rt)\.so' | grep -q '=>'; then
  echo "FAIL: the binary links a library outside glibc" >&2
  exit 1
fi
echo "ok: only glibc libraries"
