#!/usr/bin/env bash
# Shares that hold (gpushare's DRA driver, mps.shares): claim created to container running on a
# real node (kubelet, containerd, runc, the real scheduler) for a whole GPU, for a share whose
# daemon the prepare starts, and for a share beside another, with the kubelet's own mean
# prepare time for each. tests/integration/gpushare_dra_shares.rs,
# bench_claim_to_running_on_a_share. Needs what the test needs: root, etcd, runc,
# busybox-static, ../shared. The probe's measured limit against the claimed one is asserted
# exactly by claims_share_a_gpu_and_a_mig_device_each_held_to_its_share.
set -euo pipefail
cd "$(dirname "$0")/.."
export GPUSHARE_REQUIRE_KUBE=1 GPUSHARE_REQUIRE_NVIDIA_TOOLS=1
cargo build --locked --quiet --release --bin gpushare
export GPUSHARE_BENCH_RELEASE_BIN="$PWD/target/release/gpushare"
cargo test --locked --quiet --test integration bench_claim_to_running_on_a_share \
  -- --ignored --nocapture 2>&1 | grep -E 'prepare|running is|panicked|FAILED'
