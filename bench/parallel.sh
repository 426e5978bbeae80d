#!/usr/bin/env bash
# Changing several GPUs at once: wall time of `--jobs 1` (one change after another) against the
# default (every GPU at once) on simulated nodes, the release binary, journal and lock included.
#
# With GPUSHARE_SIM_DELAY_MS=50 (each driver call takes 50 ms, as MIG creates and destroys do on
# hardware): dgx-a100 from bare to 7×1g.5gb, dgx-a100 from 7×1g.5gb to mig-parted's all-balanced,
# and a 64-GPU node file from bare to 7×1g.10gb (its `--jobs 1` run alone takes about 50 s).
# Target: the 8-GPU changes at least 6× faster in parallel.
# Without delay: the 64-GPU 7×1g.10gb apply (896 driver calls). Target: under 0.3 s.
#
# Exits 1 when a target is missed.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
bin="$PWD/target/release/gpushare"
config="$PWD/tests/fixtures/mig-parted/config-default.yaml"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 - "$bin" "$config" "$work" <<'PY'
import os, shutil, statistics, subprocess, sys, time
binary, migparted, work = sys.argv[1:4]

def write(name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path

def layout(profile):
    return write(f"{profile}.toml",
                 f'[[gpus]]\nselect = "all"\nmode = "mig"\nmig.devices = {{ "{profile}" = 7 }}\n')

node64 = write("node64.toml", 'name = "node64"\n[[gpus]]\nmodel = "NVIDIA A100-SXM4-80GB"\ncount = 64\n')
one_g5, one_g10 = layout("1g.5gb"), layout("1g.10gb")

def run(node, setup, args, check, jobs, delay):
    """Wall seconds of `args` on a fresh simulated node, after `setup` (not timed)."""
    root = os.path.join(work, "root")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    base = [binary, "--sim", node, "--sim-state", os.path.join(root, "node.json"),
            "--state-root", root, "-q"]
    env = dict(os.environ)
    env.pop("GPUSHARE_SIM_DELAY_MS", None)
    env.pop("GPUSHARE_JOBS", None)
    for step in setup:
        subprocess.run(base + step, env=env, stdout=subprocess.DEVNULL, check=True)
    if delay:
        env["GPUSHARE_SIM_DELAY_MS"] = str(delay)
    start = time.perf_counter()
    subprocess.run(base + ["--jobs", str(jobs)] + args, env=env, stdout=subprocess.DEVNULL, check=True)
    elapsed = time.perf_counter() - start
    # The node must be as asked, whichever way it was changed.
    subprocess.run(base + check, env=env, stdout=subprocess.DEVNULL, check=True)
    return elapsed

apply = lambda cfg: ["apply", "--yes", "-c", cfg]
check = lambda cfg: ["plan", "--check", "-c", cfg]
balanced = ["mig", "apply", "-f", migparted, "-c", "all-balanced"]
balanced_check = ["mig", "assert", "-f", migparted, "-c", "all-balanced"]
failed = False
print(f"{'change (GPUSHARE_SIM_DELAY_MS=50)':58s} {'--jobs 1':>9s} {'parallel':>9s} {'speed-up':>9s}")
for label, node, setup, args, done, target in [
    ("dgx-a100: bare -> 7x1g.5gb (120 calls)", "dgx-a100", [], apply(one_g5), check(one_g5), 6.0),
    ("dgx-a100: 7x1g.5gb -> all-balanced (112 calls)", "dgx-a100", [apply(one_g5)], balanced,
     balanced_check, 6.0),
    ("64-GPU node file: bare -> 7x1g.10gb (960 calls)", node64, [], apply(one_g10), check(one_g10),
     None),
]:
    seq = run(node, setup, args, done, 1, 50)
    par = run(node, setup, args, done, 64, 50)
    ok = target is None or seq / par >= target
    failed |= not ok
    goal = f"(target >= {target:.0f}x)" if target else ""
    print(f"{label:58s} {seq:8.2f}s {par:8.2f}s {seq / par:8.1f}x {goal} {'' if ok else 'FAIL'}")

print()
for jobs in [1, 64]:
    times = sorted(run(node64, [], apply(one_g10), check(one_g10), jobs, 0) for _ in range(5))
    median = statistics.median(times)
    ok = jobs == 1 or median < 0.3
    failed |= not ok
    goal = "(target < 0.3 s)" if jobs != 1 else ""
    print(f"64-GPU node file: bare -> 7x1g.10gb, no delay, --jobs {jobs:<2d}       "
          f"median {median:6.3f}s  min {times[0]:6.3f}s {goal} {'' if ok else 'FAIL'}")
sys.exit(1 if failed else 0)
PY
