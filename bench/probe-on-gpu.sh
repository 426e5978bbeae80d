#!/usr/bin/env bash
# The probe on a real GPU, next to a reference. Prints the figures the README's probe section
# records, and the probe/reference ratio (target: 0.9 or more for bandwidth).
#
#   1. the probe on the whole GPU, alone (and with --quick), with the wall time of each run;
#   2. time-slicing: 4 clients at once on the whole GPU (--clients 4 --compare);
#   3. MPS with 2 and then 4 clients: a private MPS daemon for the GPU (its own pipe directory,
#      nothing else on the node is touched), limits set by device ordinal to 1/N of the memory
#      and 100/N % of the threads, checked by `probe -c` against a gpushare.toml saying the same;
#   4. the same copies timed with PyTorch or CuPy (pinned host memory, CUDA events, median), when
#      either is installed.
#
# Usage: bench/probe-on-gpu.sh [gpushare global options]     GPU=1 picks another GPU (default 0)
# Needs the NVIDIA driver; nvidia-cuda-mps-control for step 3. Takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

gpu="${GPU:-0}"
cargo build --release --locked --quiet -p gpushare
bin="$PWD/target/release/gpushare"
work=$(mktemp -d)
daemon_pipe=""

stop_daemon() {
  if [ -n "$daemon_pipe" ]; then
    echo quit | CUDA_MPS_PIPE_DIRECTORY="$daemon_pipe" nvidia-cuda-mps-control >/dev/null 2>&1 || true
    daemon_pipe=""
    sleep 1
  fi
}
trap 'stop_daemon; rm -rf "$work"' EXIT

# A probe run: the JSON report in $work/NAME.json whatever the verdict (exit 3 still reports).
probe() {
  local name=$1
  shift
  echo "== $name: gpushare probe $*" >&2
  local rc=0 start
  start=$(date +%s.%N)
  "$bin" "${global[@]}" probe --target "$gpu" --format json "$@" >"$work/$name.json" || rc=$?
  echo "$start $(date +%s.%N)" | awk '{ printf "%.1f\n", $2 - $1 }' >"$work/$name.seconds"
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    echo "   gpushare probe exited $rc" >&2
    echo '{"targets": [], "verdict": "error", "failures": []}' >"$work/$name.json"
  fi
}

global=("$@")
"$bin" "${global[@]}" detect --gpu "$gpu"
"$bin" "${global[@]}" detect --gpu "$gpu" --format json >"$work/detect.json"
read -r uuid memory_mib < <(python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["gpus"][0]
print(g["uuid"], g["memory_total_mib"])' "$work/detect.json")

probe quick --quick
probe alone
probe time-slicing-4 --clients 4 --compare

if command -v nvidia-cuda-mps-control >/dev/null; then
  for n in 2 4; do
    pipe="$work/mps$n/pipe"
    mkdir -p "$pipe" "$work/mps$n/log"
    CUDA_VISIBLE_DEVICES="$uuid" CUDA_MPS_PIPE_DIRECTORY="$pipe" \
      CUDA_MPS_LOG_DIRECTORY="$work/mps$n/log" nvidia-cuda-mps-control -d
    daemon_pipe="$pipe"
    # Limits apply to servers started after they are set: set them before the first client.
    # The daemon sees only this GPU, as ordinal 0 (limits keyed by UUID are not applied).
    echo "set_default_active_thread_percentage $((100 / n))" |
      CUDA_MPS_PIPE_DIRECTORY="$pipe" nvidia-cuda-mps-control
    echo "set_default_device_pinned_mem_limit 0 $((memory_mib / n))M" |
      CUDA_MPS_PIPE_DIRECTORY="$pipe" nvidia-cuda-mps-control
    printf '[[gpus]]\nselect = [%s]\nmode = "mps"\nmps.clients = %s\n' "$gpu" "$n" >"$work/mps$n.toml"
    probe "mps-$n" -c "$work/mps$n.toml" --mps-pipe-dir "$pipe" --clients "$n" --compare
    stop_daemon
  done
else
  echo "== MPS: skipped (no nvidia-cuda-mps-control on PATH)" >&2
fi

# The reference: the same pinned copies and device copy, timed the same way.
python3 - "$work" <<'PY' || echo "== reference failed" >&2
import json, statistics, sys
work = sys.argv[1]
MIB = 1 << 20
copy, d2d = 256 * MIB, 1024 * MIB

def measure(lib):
    if lib == "torch":
        import torch
        ev = lambda: torch.cuda.Event(enable_timing=True)
        host = torch.empty(copy, dtype=torch.uint8).pin_memory()
        back = torch.empty(copy, dtype=torch.uint8).pin_memory()
        dev = torch.empty(copy, dtype=torch.uint8, device="cuda")
        a = torch.empty(d2d, dtype=torch.uint8, device="cuda")
        b = torch.empty(d2d, dtype=torch.uint8, device="cuda")
        ops = {"h2d": lambda: dev.copy_(host, non_blocking=True),
               "d2h": lambda: back.copy_(dev, non_blocking=True),
               "d2d": lambda: b.copy_(a)}
        sync = torch.cuda.synchronize
        elapsed = lambda s, e: s.elapsed_time(e)
    else:
        import cupy, numpy
        ev = lambda: cupy.cuda.Event()
        host = cupy.cuda.alloc_pinned_memory(copy)
        back = cupy.cuda.alloc_pinned_memory(copy)
        dev = cupy.cuda.alloc(copy)
        a, b = cupy.cuda.alloc(d2d), cupy.cuda.alloc(d2d)
        stream = cupy.cuda.get_current_stream()
        ops = {"h2d": lambda: dev.copy_from_host_async(host.ptr, copy, stream),
               "d2h": lambda: dev.copy_to_host_async(back.ptr, copy, stream),
               "d2d": lambda: b.copy_from_device_async(a, d2d, stream)}
        sync = cupy.cuda.Device().synchronize
        elapsed = lambda s, e: cupy.cuda.get_elapsed_time(s, e)
    out = {}
    for name, op in ops.items():
        size = d2d * 2 if name == "d2d" else copy  # read + write, as the probe counts it
        for _ in range(4):
            op()
        sync()
        samples = []
        for _ in range(3):
            s, e = ev(), ev()
            s.record()
            for _ in range(16):
                op()
            e.record()
            e.synchronize()
            samples.append(size * 16 / (elapsed(s, e) / 1000) / 1e9)
        out[name] = statistics.median(samples)
    return out

for lib in ("torch", "cupy"):
    try:
        figures = measure(lib)
    except ImportError:
        continue
    json.dump({"lib": lib, **figures}, open(f"{work}/reference.json", "w"))
    break
else:
    print("== reference: skipped (neither PyTorch nor CuPy is installed)", file=sys.stderr)
PY

python3 - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
def load(name):
    path = os.path.join(work, name + ".json")
    return json.load(open(path)) if os.path.exists(path) else None
def seconds(name):
    path = os.path.join(work, name + ".seconds")
    return open(path).read().strip() if os.path.exists(path) else "-"
def f(x, digits=1):
    return "-" if x is None else f"{x:.{digits}f}"
print()
print(f"{'run':16} {'clients':>7} {'H2D GB/s':>9} {'D2H GB/s':>9} {'D2D GB/s':>9} "
      f"{'launch p50/p99 us':>18} {'round trip p50 us':>18} {'SMs':>5} {'wall s':>7}  verdict")
runs = ["quick", "alone", "time-slicing-4", "mps-2", "mps-4"]
for name in runs:
    r = load(name)
    if not r or not r["targets"]:
        continue
    t = r["targets"][0]
    bw, lat, rt = t["bandwidth_gbps"], t["launch_latency_us"], t["roundtrip_us"]
    print(f"{name:16} {t['clients']:>7} {f(bw['h2d']):>9} {f(bw['d2h']):>9} {f(bw['d2d']):>9} "
          f"{f(lat['p50'], 2) + ' / ' + f(lat['p99'], 2):>18} {f(rt['p50'], 2):>18} "
          f"{str(t['multiprocessors']):>5} {seconds(name):>7}  {r['verdict']}")
    if t.get("slowdown"):
        s = t["slowdown"]
        print(f"{'  slowdown':16} {'':>7} {f(s['h2d'], 2):>9} {f(s['d2h'], 2):>9} {f(s['d2d'], 2):>9} "
              f"{f(s['launch_p50'], 2):>18} {f(s['roundtrip_p50'], 2):>18}")
    for fail in r["failures"]:
        print(f"  FAIL {fail['check']}: {fail['message']}")
ref, alone = load("reference"), load("alone")
if ref and alone and alone["targets"]:
    bw = alone["targets"][0]["bandwidth_gbps"]
    print()
    print(f"reference ({ref['lib']}): H2D {f(ref['h2d'])}  D2H {f(ref['d2h'])}  D2D {f(ref['d2d'])} GB/s")
    for k in ("h2d", "d2h", "d2d"):
        ratio = None if not bw[k] or not ref[k] else bw[k] / ref[k]
        mark = "" if ratio is None else ("  ok" if ratio >= 0.9 else "  BELOW 0.9")
        print(f"probe/reference {k.upper()}: {f(ratio, 2)}{mark}")
PY
