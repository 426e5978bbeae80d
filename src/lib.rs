//! gpushare: turn a bare-metal NVIDIA node into a shared GPU node, and prove the sharing works.
//!
//! # The map
//!
//! `src/` is seven wings, read from the top down as the data flows. A wing uses only the wings
//! below it (`.ci/check-layers` fails on an upward import or a cycle); each wing's `mod.rs` says
//! what it holds, and names the few upward imports it keeps and why.
//!
//! ```text
//!  commands   the CLI: parse, call a wing, print (`main.rs` → [`run`] → `commands::dispatch`)
//!  cluster    what runs on Kubernetes: the agent, the controller (MIG on demand), gpushare's DRA
//!             kubelet plugin, the API client, the manifests
//!  observe    what reads and proves: the CUDA probe, metrics, owners (who uses a GPU), doctor,
//!             pod-resources, the liveness endpoint
//!  change     the one way a node is changed: the pipeline (desired → observe → plan → execute →
//!             verify), plans and each mode's planner, hooks, the journal, the lock, the boot
//!             unit, the CDI spec refreshed after MIG changes
//!  sharing    what each sharing mode is, behind one trait: MIG (profiles, layouts, the placement
//!             solver), MPS (daemons, limits), vGPU (sysfs), time-slicing; `init`'s chooser
//!  node       what a node is and how it is read: the backends (NVML, the simulator), the node
//!             model and GPU catalog, the GPUs' health, the GPU clients on the host, gpushare.toml,
//!             the command's Context
//!  support    errors and exit codes, root-safe files, output, paths, programs, the clock, the
//!             HTTP endpoint
//! ```
//!
//! Changing the node — every changing command (`apply`, `init`, `mig apply|clear`,
//! `mps start|stop`, `vgpu apply|clear`, the node agent) goes one way, `change::pipeline`:
//!
//! ```text
//!  commands/*  ──Source──►  pipeline::converge
//!                             desired   what the command asks for, checked (config, mig, mps, vgpu)
//!                             observe   the node, MPS records, the vGPU host
//!                             planner   pure: desired + observed → plan::Plan (in phases), each
//!                                       mechanism its part (planner::{mig, mps, vgpu})
//!                             execute   phase by phase: backend calls (the MIG phases on every GPU
//!                                       at once, one worker per GPU), the modes' HostChanges
//!                                       (MPS daemons, vGPU writes)
//!                             runner    the journal, the signal trap around every step
//!                             run       observe and plan again until nothing is left
//!                             verify    nothing left: done; no progress: exit 3
//!                           under guard (lock + journal), then the CDI refresh after MIG changes
//!                           (a run that stops early starts the GPU clients it stopped, and runs
//!                           the apply-exit hook)
//! ```
//!
//! Only the modules that the integration tests, the benchmark and the NVML stand-in use are
//! `pub`; everything else is crate-private, so the compiler reports what nothing uses.

pub mod change;
pub mod cluster;
mod commands;
pub mod node;
pub mod observe;
pub mod sharing;
pub mod support;

pub use commands::cli::command;
pub use commands::entry::run;
