#!/usr/bin/env bash
# The probe on a real GPU, next to a reference. Prints the figures the README's probe section
# records, the probe/reference ratio (target: 0.9 or more for bandwidth), and PASS or FAIL for the
# behaviours only a real driver can confirm (README: "What is verified on hardware"):
#
#   1. the probe on the whole GPU, alone (and with --quick), with the wall time of each run;
#   2. time-slicing: 4 clients at once on the whole GPU (--clients 4 --compare);
#   3. MPS, each under a private MPS daemon for the GPU (its own pipe directory; nothing else on
#      the node is touched), limits set by device ordinal:
#      - no daemon: --mps-pipe-dir names an empty directory. CUDA would run the clients without
#        MPS on the whole GPU; the probe must refuse the target (check `mps`) and measure nothing;
#      - a 2 GiB client memory limit with the default 256 MiB copies (1 GiB device buffers): the
#        copies must fit (no error), and the limit must hold;
#      - 2 and then 4 clients with 1/N of the memory and 100/N % of the threads each, checked by
#        `probe -c` against a gpushare.toml saying the same; with 4 clients at once, what they get
#        together must not exceed what the GPU gives one client alone (the clients are in step);
#      - a share as gpushare's DRA driver gives one (the daemon holds the whole GPU, the client's
#        own environment 2 GiB and 25 %): `probe --share` must find it held from the client's side;
#   4. the same copies timed with PyTorch or CuPy (pinned host memory, CUDA events, median), when
#      either is installed.
#
# Usage: bench/probe-on-gpu.sh [gpushare global options]
#   GPU=1 picks another GPU (default 0); GPUSHARE_BIN=path uses that binary instead of building.
# Needs the NVIDIA driver; nvidia-cuda-mps-control for the MPS daemons. Takes a few minutes.
# Exit status: 0 when every check passed, 1 when one failed.
set -euo pipefail
cd "$(dirname "$0")/.."

gpu="${GPU:-0}"
if [ -n "${GPUSHARE_BIN:-}" ]; then
  bin="$GPUSHARE_BIN"
else
  cargo build --release --locked --quiet -p gpushare
  bin="$PWD/target/release/gpushare"
fi
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

# A private MPS daemon for the GPU in $work/NAME, its pipe directory in $daemon_pipe. Limits apply
# to servers started after they are set, so they are set before the first client. The daemon sees
# only this GPU, as ordinal 0 (limits keyed by UUID are not applied).
start_daemon() {
  local name=$1 percentage=$2 limit=$3
  local pipe="$work/$name/pipe"
  mkdir -p "$pipe" "$work/$name/log"
  CUDA_VISIBLE_DEVICES="$uuid" CUDA_MPS_PIPE_DIRECTORY="$pipe" \
    CUDA_MPS_LOG_DIRECTORY="$work/$name/log" nvidia-cuda-mps-control -d
  daemon_pipe="$pipe"
  echo "set_default_active_thread_percentage $percentage" |
    CUDA_MPS_PIPE_DIRECTORY="$pipe" nvidia-cuda-mps-control >/dev/null
  echo "set_default_device_pinned_mem_limit 0 $limit" |
    CUDA_MPS_PIPE_DIRECTORY="$pipe" nvidia-cuda-mps-control >/dev/null
}

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
read -r uuid memory_mib sms < <(python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["gpus"][0]
print(g["uuid"], g["memory_total_mib"], g["multiprocessors"])' "$work/detect.json")

probe quick --quick
probe alone
probe time-slicing-4 --clients 4 --compare

# MPS with no daemon: an empty pipe directory (nothing is started).
mkdir -p "$work/no-daemon"
printf '[[gpus]]\nselect = [%s]\nmode = "mps"\nmps.clients = 2\n' "$gpu" >"$work/no-daemon.toml"
probe mps-no-daemon --quick -c "$work/no-daemon.toml" --mps-pipe-dir "$work/no-daemon"

if command -v nvidia-cuda-mps-control >/dev/null; then
  # A 2 GiB client limit, the default copy size: 2 × 1 GiB device buffers would not fit.
  start_daemon mps-2g 100 2G
  printf '[[gpus]]\nselect = [%s]\nmode = "mps"\nmps.memory_limit = "2G"\n' "$gpu" >"$work/mps-2g.toml"
  probe mps-2g --quick --buffer 256M -c "$work/mps-2g.toml" --mps-pipe-dir "$daemon_pipe"
  stop_daemon
  for n in 2 4; do
    start_daemon "mps$n" "$((100 / n))" "$((memory_mib / n))M"
    printf '[[gpus]]\nselect = [%s]\nmode = "mps"\nmps.clients = %s\n' "$gpu" "$n" >"$work/mps$n.toml"
    probe "mps-$n" -c "$work/mps$n.toml" --mps-pipe-dir "$daemon_pipe" --clients "$n" --compare
    stop_daemon
  done
  # A share: the daemon gives each client the whole GPU; the share's limits are the client's.
  start_daemon share 100 "${memory_mib}M"
  echo "== share: gpushare probe --share" >&2
  CUDA_MPS_PIPE_DIRECTORY="$daemon_pipe" CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=2048M \
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 GPUSHARE_SHARE_DEVICE="$uuid" \
    GPUSHARE_SHARE_MEMORY_MIB=2048 GPUSHARE_SHARE_COMPUTE_PERCENT=25 \
    GPUSHARE_SHARE_DEVICE_MULTIPROCESSORS="$sms" \
    "$bin" "${global[@]}" probe --share --quick --buffer 256M --format json >"$work/share.json" || true
  stop_daemon
else
  echo "== MPS daemons: skipped (no nvidia-cuda-mps-control on PATH)" >&2
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
        import cupy
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
def target(name):
    r = load(name)
    return r["targets"][0] if r and r["targets"] else None

print()
print(f"{'run':16} {'clients':>7} {'H2D GB/s':>9} {'D2H GB/s':>9} {'D2D GB/s':>9} "
      f"{'launch p50/p99 us':>18} {'round trip p50 us':>18} {'SMs':>7} {'wall s':>7}  verdict")
runs = ["quick", "alone", "time-slicing-4", "mps-no-daemon", "mps-2g", "mps-2", "mps-4", "share"]
for name in runs:
    r = load(name)
    if not r or not r["targets"]:
        continue
    t = r["targets"][0]
    bw, lat, rt = t["bandwidth_gbps"], t["launch_latency_us"], t["roundtrip_us"]
    sms = f"{t['sms_observed'] if t['sms_observed'] is not None else '-'}/{t['multiprocessors'] if t['multiprocessors'] is not None else '-'}"
    print(f"{name:16} {t['clients']:>7} {f(bw['h2d']):>9} {f(bw['d2h']):>9} {f(bw['d2d']):>9} "
          f"{f(lat['p50'], 2) + ' / ' + f(lat['p99'], 2):>18} {f(rt['p50'], 2):>18} "
          f"{sms:>7} {seconds(name):>7}  {r['verdict']}")
    if t.get("slowdown"):
        s = t["slowdown"]
        print(f"{'  slowdown':16} {'':>7} {f(s['h2d'], 2):>9} {f(s['d2h'], 2):>9} {f(s['d2d'], 2):>9} "
              f"{f(s['launch_p50'], 2):>18} {f(s['roundtrip_p50'], 2):>18}")
    for c in t.get("per_client", []):
        cb = c["bandwidth_gbps"]
        print(f"{'  client ' + str(c['client']):16} {'':>7} {f(cb['h2d']):>9} {f(cb['d2h']):>9} {f(cb['d2d']):>9}"
              + (f"  error: {c['error']}" if c["error"] else ""))
    for fail in r["failures"]:
        print(f"  FAIL {fail['check']}: {fail['message']}")
    if t.get("host_cpus") or t.get("buffers_mib"):
        print(f"  host CPUs {t.get('host_cpus')}, buffers {t.get('buffers_mib')}, "
              f"SMs distinct {t.get('sms_distinct')}")

ref, alone = load("reference"), target("alone")
if ref and alone:
    bw = alone["bandwidth_gbps"]
    print()
    print(f"reference ({ref['lib']}): H2D {f(ref['h2d'])}  D2H {f(ref['d2h'])}  D2D {f(ref['d2d'])} GB/s")
    for k in ("h2d", "d2h", "d2d"):
        ratio = None if not bw[k] or not ref[k] else bw[k] / ref[k]
        mark = "" if ratio is None else ("  ok" if ratio >= 0.9 else "  BELOW 0.9")
        print(f"probe/reference {k.upper()}: {f(ratio, 2)}{mark}")

# The checks: (name, True/False/None for skipped, what was seen).
checks = []

def no_daemon():
    r = load("mps-no-daemon")
    if not r or not r["targets"]:
        return False, "the probe did not report"
    t = r["targets"][0]
    checks_seen = [x["check"] for x in r["failures"]]
    measured = any(t["bandwidth_gbps"][k] is not None for k in ("h2d", "d2h", "d2d"))
    ok = checks_seen == ["mps"] and not measured and t["kind"] == "mps"
    return ok, f"failures {checks_seen}, measured: {measured}, error: {t['error']}"

def limit_2g():
    t = target("mps-2g")
    if t is None:
        return None, "skipped (no MPS daemon)"
    buffers = t.get("buffers_mib") or {}
    ok = (t["error"] is None and t["memory"]["limit_enforced"] is True
          and all(t["bandwidth_gbps"][k] for k in ("h2d", "d2h", "d2d")))
    return ok, (f"error: {t['error']}, limit held: {t['memory']['limit_enforced']}, "
                f"allocated {t['memory']['allocated_mib']} MiB of 2048, buffers {buffers}, "
                f"free shown {t['memory']['free_mib']} MiB")

def share():
    r = load("share")
    if not r or not r.get("targets"):
        return None, "skipped (no MPS daemon)"
    t = r["targets"][0]
    return (r["verdict"] == "pass" and t["memory"]["limit_enforced"] is True,
            f"verdict {r['verdict']}, allocated {t['memory']['allocated_mib']} MiB of 2048, "
            f"SMs {t['multiprocessors']} (25 %), failures {[x['check'] for x in r['failures']]}")

def together(name):
    t, alone = target(name), target("alone")
    if t is None or alone is None:
        return None, "skipped (no run)"
    solo = alone["bandwidth_gbps"]
    bw = t["bandwidth_gbps"]
    failed = [c["client"] for c in t.get("per_client", []) if c["error"]]
    over = [k for k in ("h2d", "d2h", "d2d") if bw[k] and solo[k] and bw[k] > 1.15 * solo[k]]
    ok = not failed and not over and all(bw[k] for k in ("h2d", "d2h", "d2d"))
    seen = ", ".join(f"{k.upper()} {f(bw[k])} vs {f(solo[k])}" for k in ("h2d", "d2h", "d2d"))
    return ok, f"together vs one client alone: {seen}; failed clients {failed}; over 1.15x: {over}"

checks.append(("point 8: MPS pipe dir without a daemon is refused, nothing measured", *no_daemon()))
checks.append(("point 10: copies fit a 2 GiB MPS client limit", *limit_2g()))
checks.append(("point 11: --clients 4 under MPS get no more than the GPU alone", *together("mps-4")))
checks.append(("point 11: --clients 4 time-sliced get no more than the GPU alone", *together("time-slicing-4")))
checks.append(("a share's limits hold from its client's side (probe --share)", *share()))

print()
print("checks:")
failed = 0
for name, ok, seen in checks:
    word = "SKIPPED" if ok is None else ("PASS" if ok else "FAIL")
    failed += ok is False
    print(f"  {word:7} {name}\n          {seen}")
print()
print("all checks passed" if not failed else f"{failed} check(s) FAILED")
sys.exit(1 if failed else 0)
PY
