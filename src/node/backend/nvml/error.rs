//! The one mapping of NVML return codes (`nvmlReturn_t`) to [`DriverErrorKind`], for the calls
//! nvml-wrapper makes and for the raw ones the MIG code makes, and the symbol lookup that turns a
//! missing symbol into `FunctionNotFound` (never a panic).

use crate::node::backend::{DriverError, DriverErrorKind, DriverResult};
use crate::node::model::GpuNote;
use nvml_wrapper::error::{NvmlError, nvml_sym};
use nvml_wrapper_sys::bindings::nvmlReturn_t;
use std::fmt::Display;

pub(super) const SUCCESS: nvmlReturn_t = 0;
pub(super) const INVALID_ARGUMENT: nvmlReturn_t = 2;
pub(super) const NOT_SUPPORTED: nvmlReturn_t = 3;
pub(super) const NO_PERMISSION: nvmlReturn_t = 4;
pub(super) const NOT_FOUND: nvmlReturn_t = 6;
pub(super) const INSUFFICIENT_SIZE: nvmlReturn_t = 7;
pub(super) const DRIVER_NOT_LOADED: nvmlReturn_t = 9;
pub(super) const LIBRARY_NOT_FOUND: nvmlReturn_t = 12;
pub(super) const FUNCTION_NOT_FOUND: nvmlReturn_t = 13;
pub(super) const GPU_IS_LOST: nvmlReturn_t = 15;
/// As a MIG activation status: the GPU cannot be reset here, only a reboot applies the mode.
pub(super) const RESET_REQUIRED: nvmlReturn_t = 16;
pub(super) const IN_USE: nvmlReturn_t = 19;
pub(super) const INSUFFICIENT_RESOURCES: nvmlReturn_t = 23;
pub(super) const ARGUMENT_VERSION_MISMATCH: nvmlReturn_t = 25;

/// What a return code means to gpushare.
pub(super) fn kind(code: nvmlReturn_t) -> DriverErrorKind {
    use DriverErrorKind as K;
    match code {
        INVALID_ARGUMENT => K::InvalidArgument,
        NOT_SUPPORTED => K::NotSupported,
        NO_PERMISSION => K::NoPermission,
        NOT_FOUND => K::NotFound,
        INSUFFICIENT_SIZE => K::InsufficientSize,
        DRIVER_NOT_LOADED => K::DriverNotLoaded,
        LIBRARY_NOT_FOUND => K::LibraryNotFound,
        FUNCTION_NOT_FOUND => K::FunctionNotFound,
        GPU_IS_LOST => K::GpuLost,
        RESET_REQUIRED => K::ResetRequired,
        IN_USE => K::InUse,
        INSUFFICIENT_RESOURCES => K::InsufficientResources,
        ARGUMENT_VERSION_MISMATCH => K::ArgumentVersionMismatch,
        _ => K::Unknown,
    }
}

/// A return code as an error about `what` (the call and what it was about).
pub(super) fn error(code: nvmlReturn_t, what: impl Display) -> DriverError {
    match kind(code) {
        DriverErrorKind::Unknown => DriverError::new(
            DriverErrorKind::Unknown,
            format!("{what}: NVML error {code}"),
        ),
        k => DriverError::new(k, what.to_string()),
    }
}

/// `Ok` for `NVML_SUCCESS`, the error otherwise.
pub(super) fn check(code: nvmlReturn_t, what: impl Display) -> DriverResult<()> {
    if code == SUCCESS {
        Ok(())
    } else {
        Err(error(code, what))
    }
}

/// An nvml-wrapper error as the driver's meaning; `what` says which call it was.
pub(super) fn driver_error(e: NvmlError, what: &str) -> DriverError {
    match e {
        NvmlError::LibloadingError(_) | NvmlError::LibraryNotFound => {
            DriverError::new(DriverErrorKind::LibraryNotFound, format!("{what}: {e}"))
        }
        NvmlError::FailedToLoadSymbol(_) => {
            DriverError::new(DriverErrorKind::FunctionNotFound, format!("{what}: {e}"))
        }
        // Only return codes reach here as variants: the wrapper's own errors (UTF-8, enum values
        // it does not know) are unknown to the driver's table.
        NvmlError::Utf8Error(_)
        | NvmlError::NulError(_)
        | NvmlError::StringTooLong { .. }
        | NvmlError::IncorrectBits(_)
        | NvmlError::SetReleaseFailed
        | NvmlError::GetPciInfoFailed
        | NvmlError::PciInfoToCFailed => {
            DriverError::new(DriverErrorKind::Unknown, format!("{what}: {e}"))
        }
        other => error(nvmlReturn_t::from(other), what),
    }
}

/// The error with the GPU it is about in front: `GPU 0: <call> (<reason>)`.
pub(super) fn on_gpu(e: DriverError, index: u32) -> DriverError {
    DriverError::new(e.kind, format!("GPU {index}: {}", e.detail))
}

/// A note for a field the driver refused: the refusal, and whether root may see more.
pub(super) fn note(field: &str, e: &DriverError) -> GpuNote {
    GpuNote {
        field: field.into(),
        message: e.to_string(),
        needs_root: e.kind == DriverErrorKind::NoPermission,
    }
}

/// A symbol of the driver's library, or `FunctionNotFound` naming it (an older driver).
pub(super) fn symbol<'a, T>(
    s: Result<&'a T, &libloading::Error>,
    name: &str,
) -> DriverResult<&'a T> {
    nvml_sym(s).map_err(|e| driver_error(e, name))
}

/// Whether a code says "this driver does not have that call or struct version": try the older
/// one.
pub(super) fn is_too_new(code: nvmlReturn_t) -> bool {
    matches!(code, FUNCTION_NOT_FOUND | ARGUMENT_VERSION_MISMATCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_gpushare_acts_on_has_a_name() {
        use DriverErrorKind as K;
        for (code, k) in [
            (INSUFFICIENT_SIZE, K::InsufficientSize),
            (ARGUMENT_VERSION_MISMATCH, K::ArgumentVersionMismatch),
            (INSUFFICIENT_RESOURCES, K::InsufficientResources),
            (NO_PERMISSION, K::NoPermission),
            (IN_USE, K::InUse),
            (FUNCTION_NOT_FOUND, K::FunctionNotFound),
        ] {
            assert_eq!(kind(code), k, "code {code}");
        }
        let e = error(
            ARGUMENT_VERSION_MISMATCH,
            "nvmlDeviceGetGpuInstanceProfileInfoV",
        );
        assert_eq!(
            e.to_string(),
            "nvmlDeviceGetGpuInstanceProfileInfoV (Argument Version Mismatch)"
        );
        let e = error(INSUFFICIENT_SIZE, "nvmlDeviceGetGpuInstances");
        assert_eq!(e.kind, K::InsufficientSize);
        // A code newer than gpushare keeps its number in the message.
        let e = error(31, "nvmlDeviceGetMigMode");
        assert_eq!(e.kind, K::Unknown);
        assert!(e.to_string().contains("NVML error 31"), "{e}");
    }

    #[test]
    fn the_wrapper_and_the_raw_calls_agree() {
        for code in [2, 3, 4, 6, 7, 9, 13, 15, 16, 19, 23, 25, 999] {
            let wrapped = driver_error(NvmlError::from(code), "x");
            assert_eq!(wrapped.kind, kind(code), "code {code}");
        }
        let e = driver_error(NvmlError::FailedToLoadSymbol("nvmlX".into()), "nvmlX");
        assert_eq!(e.kind, DriverErrorKind::FunctionNotFound);
    }
}
