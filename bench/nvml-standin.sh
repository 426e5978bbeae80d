#!/usr/bin/env bash
# An 8-GPU all-balanced MIG apply (mig-parted's default config) on a DGX A100, through the NVML
# backend on the stand-in libnvidia-ml (tests/nvml-standin) and through the simulator backend:
# wall time and, for NVML, the calls made (all of them, and those that change the node), plus the
# same for a re-run that changes nothing and for one `detect`. Release builds; RUNS (default 10)
# fresh nodes per figure.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet -p gpushare -p nvml-standin

python3 - target/release "$(pwd)/tests/fixtures/mig-parted/config-default.yaml" "${RUNS:-10}" <<'PY'
import json, os, statistics, subprocess, sys, tempfile, time

release, config, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
binary = os.path.join(release, "gpushare")
lib = os.path.abspath(os.path.join(release, "libnvml_standin.so"))
apply = ["mig", "apply", "-q", "-f", config, "-c", "all-balanced"]

def timed(args, env):
    t = time.perf_counter()
    subprocess.run([binary, *args], env=env, stdout=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - t) * 1000

def calls(log):
    if not os.path.exists(log):
        return 0, 0
    lines = [json.loads(l) for l in open(log)]
    os.remove(log)
    return len(lines), sum(1 for l in lines if l.get("changing"))

figures = {}
def record(name, ms, counted=None):
    figures.setdefault(name, []).append((ms, counted))

for _ in range(runs):
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ)
        env.update({
            "PATH": os.path.abspath(release) + os.pathsep + env.get("PATH", ""),
            "NVML_STANDIN_STATE": os.path.join(d, "nvml.json"),
            "NVML_STANDIN_NODE": "dgx-a100",
            "NVML_STANDIN_LOG": os.path.join(d, "calls.jsonl"),
        })
        nvml = ["--nvml-lib", lib, "--state-root", os.path.join(d, "nvml-root")]
        sim = ["--sim", "dgx-a100", "--sim-state", os.path.join(d, "sim.json"),
               "--state-root", os.path.join(d, "sim-root")]
        log = env["NVML_STANDIN_LOG"]
        subprocess.run([binary, *nvml, "detect"], env=env, stdout=subprocess.DEVNULL, check=True)
        calls(log)
        record("nvml: apply all-balanced", timed(nvml + apply, env), calls(log))
        record("nvml: apply again (no change)", timed(nvml + apply, env), calls(log))
        record("nvml: detect (32 MIG devices)", timed(nvml + ["detect"], env), calls(log))
        record("sim:  apply all-balanced", timed(sim + apply, env))
        record("sim:  apply again (no change)", timed(sim + apply, env))
        record("sim:  detect (32 MIG devices)", timed(sim + ["detect"], env))

print(f"{'':34s} {'median':>9s} {'max':>9s} {'NVML calls':>11s} {'changing':>9s}")
for name, rows in figures.items():
    ms = [r[0] for r in rows]
    counted = rows[0][1]
    total, changing = counted if counted else ("", "")
    print(f"{name:34s} {statistics.median(ms):7.1f}ms {max(ms):7.1f}ms {total!s:>11s} {changing!s:>9s}")
PY
