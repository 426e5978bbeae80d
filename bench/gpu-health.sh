#!/usr/bin/env bash
# GPU health on a real node (tests/integration/agent/gpu_health.rs: the real API server and
# scheduler, a kubelet with containerd and runc, NVIDIA's device plugin on a simulated T4 node,
# gpushare agent --reset-unhealthy-gpus), run RUNS times: a fatal Xid 79 raised → the agent's
# GPUUnhealthy event, the Node's GPUUnhealthy condition, and the GPU gone from the Node's
# allocatable (NVIDIA's plugin, the kubelet's next status); the agent's reset → every GPU back
# in the allocatable. Needs what the test needs: root, etcd, runc, busybox-static, ../shared.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${RUNS:-1}"
export GPUSHARE_REQUIRE_KUBE=1 GPUSHARE_REQUIRE_NVIDIA_TOOLS=1
for i in $(seq "$runs"); do
  cargo test --locked --quiet --test integration agent::gpu_health -- --nocapture 2>&1 |
    grep -o 'xid 79 to event .*' | sed "s/^/run $i: /"
done
