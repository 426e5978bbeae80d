#!/usr/bin/env bash
# Relabel to the waiting pods running, end to end on a real node: the agent test that relabels a
# DGX A100 from all-balanced to all-3g.20gb while running pods hold instances
# (tests/integration/agent/relabel_with_pods.rs), run RUNS times; prints, per run, the time from
# the blocking pod's deletion to the eighth waiting pod running on its new slice (its container
# started by the real kubelet, containerd and runc), and when each step on the way was first seen:
# the agent's change made (its part: the simulator's driver time is about 0), the kubelet
# advertising the new slices (NVIDIA's plugin back, then the kubelet's next node status, every 5 s
# on this node and 10 s by default), the scheduler binding the pods, their containers running.
# Needs what the test needs: root, etcd, runc, busybox-static, ../shared.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${RUNS:-3}"
export GPUSHARE_REQUIRE_KUBE=1 GPUSHARE_REQUIRE_NVIDIA_TOOLS=1
for i in $(seq "$runs"); do
  cargo test --locked --quiet --test integration relabel_with_pods -- --nocapture 2>&1 |
    grep -o 'took [0-9.]* s.*' | sed "s/^/run $i: /"
done
