#!/usr/bin/env bash
# MIG made for the claim (gpushare's DRA driver, mig.dynamic): how well the driver's order packs
# and what making an instance at prepare costs.
# 1. The churn of benches/mig_partitions.rs: mixed-profile claims made and released at random on
#    8 A100s, placed first fit; claims refused while a GPU had the room, for gpushare's order
#    against the same devices in random order (as a driver that places at random) and in index
#    order.
# 2. tests/integration/gpushare_dra_dynamic.rs, bench_claim_to_running_on_a_made_instance: claim
#    created to container running on a real node (kubelet, containerd, runc, the real scheduler),
#    on an existing MIG device and on one made at prepare. Needs what the test needs: root, etcd,
#    runc, busybox-static, ../shared.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --locked --quiet --bench mig_partitions 2>&1 | grep -vE '^\s*$'
export GPUSHARE_REQUIRE_KUBE=1 GPUSHARE_REQUIRE_NVIDIA_TOOLS=1
cargo build --locked --quiet --release --bin gpushare
export GPUSHARE_BENCH_RELEASE_BIN="$PWD/target/release/gpushare"
cargo test --locked --quiet --test integration bench_claim_to_running_on_a_made_instance \
  -- --ignored --nocapture 2>&1 | grep -E 'prepare|panicked|FAILED'
