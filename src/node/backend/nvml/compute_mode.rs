//! Compute modes between NVML's enum and gpushare's.

use crate::node::model::ComputeMode;
use nvml_wrapper::enum_wrappers::device::ComputeMode as NvmlComputeMode;

pub(super) fn from_nvml_mode(m: NvmlComputeMode) -> ComputeMode {
    match m {
        NvmlComputeMode::ExclusiveProcess => ComputeMode::ExclusiveProcess,
        NvmlComputeMode::Prohibited => ComputeMode::Prohibited,
        // EXCLUSIVE_THREAD is gone from current drivers; it behaves like exclusive-process.
        NvmlComputeMode::ExclusiveThread => ComputeMode::ExclusiveProcess,
        NvmlComputeMode::Default => ComputeMode::Default,
    }
}

pub(super) fn to_nvml_mode(m: ComputeMode) -> NvmlComputeMode {
    match m {
        ComputeMode::Default => NvmlComputeMode::Default,
        ComputeMode::ExclusiveProcess => NvmlComputeMode::ExclusiveProcess,
        ComputeMode::Prohibited => NvmlComputeMode::Prohibited,
    }
}
