#!/usr/bin/env bash
# MIG on demand, two figures:
# 1. a pod's creation to running when a reshape is needed, end to end (tests/integration/agent/
#    mig_on_demand.rs: four real nodes with simulated DGX A100s, NVIDIA's device plugin, the real
#    API server and scheduler, the agents and the controller), run RUNS times. Goal: the
#    driver's time plus under 10 s (the simulator's driver time is about 0). Needs what the
#    test needs: root, etcd, runc, busybox-static, ../shared.
# 2. the controller's decision for 100 nodes × 8 GPUs of pending demand (cargo bench --bench
#    on_demand). Goal: under 100 ms.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${RUNS:-1}"
export GPUSHARE_REQUIRE_KUBE=1 GPUSHARE_REQUIRE_NVIDIA_TOOLS=1
for i in $(seq "$runs"); do
  cargo test --locked --quiet --test integration mig_on_demand -- --nocapture 2>&1 |
    grep -o 'creation to running with a reshape took [0-9.]* s' | sed "s/^/run $i: /"
done
cargo bench --locked --quiet --bench on_demand 2>/dev/null
