#!/usr/bin/env bash
# gpushare's DRA driver against NVIDIA's on one real node (tests/integration/gpushare_dra.rs,
# bench_prepare_latency_of_gpushares_driver_and_nvidias): the same 56 1g.5gb MIG devices of a
# simulated DGX A100 published by each driver; for each, 8 claims one after the other and 32 at
# once. Prints the prepare latency p50 and p99 as the kubelet's dra_grpc_operations_duration_
# seconds records it (per driver), claim created to container running, and how long gpushare's
# slice takes to follow a MIG change. Needs what the test needs: root, etcd, runc,
# busybox-static, ../shared.
set -euo pipefail
cd "$(dirname "$0")/.."
export GPUSHARE_REQUIRE_KUBE=1 GPUSHARE_REQUIRE_NVIDIA_TOOLS=1
# gpushare's plugin as it ships, beside NVIDIA's release build.
cargo build --locked --quiet --release --bin gpushare
export GPUSHARE_BENCH_RELEASE_BIN="$PWD/target/release/gpushare"
cargo test --locked --quiet --test integration bench_prepare_latency -- --ignored --nocapture 2>&1 |
  grep -E 'claim\(s\) at once|republished|panicked|FAILED'
