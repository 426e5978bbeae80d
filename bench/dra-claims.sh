#!/usr/bin/env bash
# DRA claims, created to container running, on a real node (tests/integration/agent/
# dra_on_demand.rs: the real API server, scheduler and controller-manager, a kubelet with
# containerd and runc, NVIDIA's DRA kubelet plugin on a simulated DGX A100, gpushare's agent and
# controller), run RUNS times:
# 1. static: nine pods at once, eight through claims and one asking for nvidia.com/mig-1g.5gb;
# 2. with a reshape: a claim for a 3g.20gb no device is yet, served by MIG on demand.
# Needs what the test needs: root, etcd, runc, busybox-static, ../shared.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${RUNS:-1}"
export GPUSHARE_REQUIRE_KUBE=1 GPUSHARE_REQUIRE_NVIDIA_TOOLS=1
for i in $(seq "$runs"); do
  cargo test --locked --quiet --test integration dra_on_demand -- --nocapture 2>&1 |
    grep -o 'claim created to container running took .*' | sed "s/^/run $i: /"
done
