//! CUDA driver errors as people read them: the call that failed, the `CUresult` name, what it
//! means and what to do. The table is ours, so a report never depends on `cuGetErrorString`
//! (one more driver symbol that could be missing).

use serde::{Deserialize, Serialize};
use std::fmt;

/// `CUDA_ERROR_OUT_OF_MEMORY`: what an allocation past a memory limit returns.
pub(crate) const OUT_OF_MEMORY: u32 = 2;

/// A failed driver call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct CudaError {
    /// The driver function, e.g. `cuMemAlloc_v2`.
    pub call: String,
    /// The `CUresult` value.
    pub code: u32,
}

impl CudaError {
    pub(crate) fn new(call: &str, code: u32) -> Self {
        CudaError {
            call: call.to_string(),
            code,
        }
    }

    /// The `CUresult` name, e.g. `CUDA_ERROR_OUT_OF_MEMORY`.
    pub(crate) fn name(&self) -> String {
        describe(self.code).map_or_else(
            || format!("CUDA error {}", self.code),
            |(name, _, _)| name.to_string(),
        )
    }

    /// What the code means, in a few words.
    pub(crate) fn meaning(&self) -> &'static str {
        describe(self.code).map_or("an error this version of gpushare does not know", |d| d.1)
    }

    /// What to do about it, when there is something to say.
    pub(crate) fn hint(&self) -> Option<&'static str> {
        describe(self.code).and_then(|d| d.2)
    }

    /// The codes that mean "no usable driver" rather than "this device failed". Not
    /// `CUDA_ERROR_NO_DEVICE`: a driver that works can still show a worker no device (a MIG
    /// device whose `/dev/nvidia-caps` file it may not open, a wrong `CUDA_VISIBLE_DEVICES`).
    pub(crate) fn is_no_driver(&self) -> bool {
        matches!(self.code, 3 | 4 | 34 | 36 | 803)
    }
}

impl fmt::Display for CudaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} failed: {} ({})",
            self.call,
            self.name(),
            self.meaning()
        )
    }
}

/// (name, meaning, hint) of the `CUresult` codes a probe can meet.
fn describe(code: u32) -> Option<(&'static str, &'static str, Option<&'static str>)> {
    const MPS_PIPE: &str = "check that the MPS daemon runs and that CUDA_MPS_PIPE_DIRECTORY (--mps-pipe-dir) is its pipe directory";
    Some(match code {
        1 => ("CUDA_ERROR_INVALID_VALUE", "invalid argument", None),
        2 => ("CUDA_ERROR_OUT_OF_MEMORY", "out of device memory", None),
        3 => (
            "CUDA_ERROR_NOT_INITIALIZED",
            "the driver is not initialised",
            Some("is the nvidia kernel module loaded (`lsmod | grep nvidia`)?"),
        ),
        4 => (
            "CUDA_ERROR_DEINITIALIZED",
            "the driver is shutting down",
            None,
        ),
        34 => (
            "CUDA_ERROR_STUB_LIBRARY",
            "libcuda.so is the toolkit's stub, not the driver",
            Some(
                "put the driver's libcuda.so.1 before the toolkit's stubs directory in LD_LIBRARY_PATH",
            ),
        ),
        36 => (
            "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER",
            "the call needs a newer driver",
            Some("upgrade the NVIDIA driver"),
        ),
        46 => (
            "CUDA_ERROR_DEVICE_UNAVAILABLE",
            "the device is busy or unavailable",
            Some(
                "the GPU is in EXCLUSIVE_PROCESS mode: another process (or an MPS server this probe did not reach) holds it; with MPS, check the pipe directory, /dev/shm and the user id",
            ),
        ),
        100 => (
            "CUDA_ERROR_NO_DEVICE",
            "no CUDA device is visible",
            Some(
                "the driver works but shows this process no device: check CUDA_VISIBLE_DEVICES, and the permissions of /dev/nvidia* (and /dev/nvidia-caps/* for MIG devices)",
            ),
        ),
        101 => ("CUDA_ERROR_INVALID_DEVICE", "invalid device", None),
        102 => (
            "CUDA_ERROR_DEVICE_NOT_LICENSED",
            "the device is not licensed",
            None,
        ),
        200 => (
            "CUDA_ERROR_INVALID_IMAGE",
            "the kernel image is invalid",
            None,
        ),
        201 => ("CUDA_ERROR_INVALID_CONTEXT", "invalid context", None),
        209 => (
            "CUDA_ERROR_NO_BINARY_FOR_GPU",
            "no kernel image for this GPU",
            None,
        ),
        214 => (
            "CUDA_ERROR_ECC_UNCORRECTABLE",
            "an uncorrectable ECC error was detected",
            Some("check `nvidia-smi -q -d ECC` and dmesg for Xid errors"),
        ),
        218 => (
            "CUDA_ERROR_INVALID_PTX",
            "the driver rejected the probe's PTX",
            None,
        ),
        220 => (
            "CUDA_ERROR_NVLINK_UNCORRECTABLE",
            "an uncorrectable NVLink error was detected",
            None,
        ),
        221 => (
            "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
            "the driver's PTX JIT compiler (libnvidia-ptxjitcompiler.so) is missing",
            Some(
                "in a container, give it the `compute` driver capability (NVIDIA_DRIVER_CAPABILITIES=compute,utility)",
            ),
        ),
        222 => (
            "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
            "the driver is older than the probe's PTX version",
            Some("upgrade the NVIDIA driver"),
        ),
        223 => (
            "CUDA_ERROR_JIT_COMPILATION_DISABLED",
            "PTX JIT compilation is disabled",
            Some("unset CUDA_DISABLE_PTX_JIT"),
        ),
        224 => (
            "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY",
            "the execution affinity is not supported",
            None,
        ),
        225 => (
            "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC",
            "device-side synchronisation is not supported",
            None,
        ),
        226 => (
            "CUDA_ERROR_CONTAINED",
            "an error was contained to this context (the device stays usable)",
            Some("check dmesg for Xid errors"),
        ),
        227 => (
            "CUDA_ERROR_INSUFFICIENT_LOADER_VERSION",
            "the driver's loader is too old",
            Some("upgrade the NVIDIA driver"),
        ),
        400 => ("CUDA_ERROR_INVALID_HANDLE", "invalid handle", None),
        500 => ("CUDA_ERROR_NOT_FOUND", "not found (a kernel name?)", None),
        600 => ("CUDA_ERROR_NOT_READY", "not ready", None),
        700 => (
            "CUDA_ERROR_ILLEGAL_ADDRESS",
            "a kernel accessed an illegal address",
            None,
        ),
        701 => (
            "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
            "too many resources requested for the launch",
            None,
        ),
        702 => (
            "CUDA_ERROR_LAUNCH_TIMEOUT",
            "a kernel ran past the watchdog timeout",
            None,
        ),
        719 => (
            "CUDA_ERROR_LAUNCH_FAILED",
            "a kernel failed",
            Some("check dmesg for Xid errors"),
        ),
        800 => ("CUDA_ERROR_NOT_PERMITTED", "not permitted", None),
        801 => (
            "CUDA_ERROR_NOT_SUPPORTED",
            "not supported on this device",
            None,
        ),
        802 => (
            "CUDA_ERROR_SYSTEM_NOT_READY",
            "the system is not ready (fabric manager?)",
            Some("on NVSwitch systems, start nvidia-fabricmanager"),
        ),
        803 => (
            "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
            "libcuda and the kernel module are from different driver versions",
            Some("reboot after a driver upgrade, or reinstall the driver"),
        ),
        805 => (
            "CUDA_ERROR_MPS_CONNECTION_FAILED",
            "could not reach the MPS daemon",
            Some(MPS_PIPE),
        ),
        806 => (
            "CUDA_ERROR_MPS_RPC_FAILURE",
            "the MPS server failed to answer",
            Some(MPS_PIPE),
        ),
        807 => (
            "CUDA_ERROR_MPS_SERVER_NOT_READY",
            "the MPS server is not ready (in FAULT after a client error?)",
            Some("wait for its clients to exit, or restart the MPS daemon"),
        ),
        808 => (
            "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED",
            "the MPS server has its maximum number of clients",
            Some("use fewer --clients, or fewer MPS clients per device"),
        ),
        809 => (
            "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED",
            "the MPS server has its maximum number of connections",
            Some("lower CUDA_DEVICE_MAX_CONNECTIONS or use fewer clients"),
        ),
        810 => (
            "CUDA_ERROR_MPS_CLIENT_TERMINATED",
            "the MPS client was terminated by the server",
            None,
        ),
        811 => (
            "CUDA_ERROR_CDP_NOT_SUPPORTED",
            "dynamic parallelism is not supported",
            None,
        ),
        812 => (
            "CUDA_ERROR_CDP_VERSION_MISMATCH",
            "dynamic parallelism version mismatch",
            None,
        ),
        909 => ("CUDA_ERROR_TIMEOUT", "the operation timed out", None),
        912 => (
            "CUDA_ERROR_INVALID_CLUSTER_SIZE",
            "invalid cluster size",
            None,
        ),
        913 => (
            "CUDA_ERROR_FUNCTION_NOT_LOADED",
            "the function is not loaded",
            None,
        ),
        914 => (
            "CUDA_ERROR_INVALID_RESOURCE_TYPE",
            "invalid resource type",
            None,
        ),
        915 => (
            "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION",
            "invalid resource configuration",
            None,
        ),
        916 => (
            "CUDA_ERROR_KEY_ROTATION",
            "a confidential-computing key rotation failed",
            None,
        ),
        917 => ("CUDA_ERROR_STREAM_DETACHED", "the stream is detached", None),
        919 => (
            "CUDA_ERROR_FABRIC_NOT_READY",
            "the NVLink fabric is not ready",
            Some("on NVSwitch systems, check nvidia-fabricmanager"),
        ),
        999 => (
            "CUDA_ERROR_UNKNOWN",
            "unknown driver error",
            Some("check dmesg for Xid errors"),
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_codes_have_names_meanings_and_hints() {
        let e = CudaError::new("cuInit", 100);
        assert_eq!(e.name(), "CUDA_ERROR_NO_DEVICE");
        assert_eq!(
            e.to_string(),
            "cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA device is visible)"
        );
        assert!(!e.is_no_driver(), "no device is not no driver");
        assert!(e.hint().unwrap().contains("/dev/nvidia-caps"));
        assert!(CudaError::new("cuInit", 803).is_no_driver());
        let e = CudaError::new("cuDevicePrimaryCtxRetain", 805);
        assert!(e.hint().unwrap().contains("--mps-pipe-dir"));
        assert!(!e.is_no_driver());
        assert!(
            CudaError::new("cuModuleLoadData", 221)
                .hint()
                .unwrap()
                .contains("compute")
        );
    }

    #[test]
    fn codes_newer_than_the_bindings_have_names() {
        // cudarc's CUDA 12.2 bindings stop at 911 and 223.
        assert_eq!(
            CudaError::new("cuMemAlloc_v2", 914).name(),
            "CUDA_ERROR_INVALID_RESOURCE_TYPE"
        );
        assert_eq!(CudaError::new("cuInit", 226).name(), "CUDA_ERROR_CONTAINED");
    }

    #[test]
    fn unknown_codes_still_print() {
        let e = CudaError::new("cuLaunchKernel", 12345);
        assert_eq!(e.name(), "CUDA error 12345");
        assert!(e.hint().is_none());
        assert!(
            e.to_string()
                .starts_with("cuLaunchKernel failed: CUDA error 12345")
        );
    }
}
