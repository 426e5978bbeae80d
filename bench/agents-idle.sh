#!/usr/bin/env bash
# What idle agents ask of one real API server: AGENTS (100) `gpushare agent` processes on
# simulated DGX A100s (every other node opting in to MIG on demand, so it publishes its MIG
# state) bring their nodes to a layout; then, over WINDOW seconds (180), the API server's audit
# log counts their requests other than watches. Prints requests per agent per minute (the goal is
# at most 0.2) and each kind of request seen (tests/integration/agent/idle_load.rs).
# Needs what the agent tests need: etcd, ../shared/tools/kube-apiserver.
set -euo pipefail
cd "$(dirname "$0")/.."
export GPUSHARE_REQUIRE_KUBE=1 AGENTS="${AGENTS:-100}" WINDOW="${WINDOW:-180}"
cargo test --locked --quiet --test integration idle_agents_bench -- --ignored --nocapture 2>&1 |
  grep -E 'agents|^  '
