//! One exported call: injected faults, the body, panics kept inside, the log line, the code.

use crate::handles::{self, Handle};
use crate::{log, switches};
use gpushare::node::backend::{DriverError, DriverErrorKind};
use nvml_wrapper_sys::bindings as sys;
use serde_json::{Map, Value};
use std::os::raw::c_uint;

pub type Ret = sys::nvmlReturn_t;

pub const SUCCESS: Ret = sys::nvmlReturn_enum_NVML_SUCCESS;
pub const UNINITIALIZED: Ret = sys::nvmlReturn_enum_NVML_ERROR_UNINITIALIZED;
pub const INVALID_ARGUMENT: Ret = sys::nvmlReturn_enum_NVML_ERROR_INVALID_ARGUMENT;
pub const NOT_SUPPORTED: Ret = sys::nvmlReturn_enum_NVML_ERROR_NOT_SUPPORTED;
pub const NO_PERMISSION: Ret = sys::nvmlReturn_enum_NVML_ERROR_NO_PERMISSION;
pub const NOT_FOUND: Ret = sys::nvmlReturn_enum_NVML_ERROR_NOT_FOUND;
pub const INSUFFICIENT_SIZE: Ret = sys::nvmlReturn_enum_NVML_ERROR_INSUFFICIENT_SIZE;
pub const DRIVER_NOT_LOADED: Ret = sys::nvmlReturn_enum_NVML_ERROR_DRIVER_NOT_LOADED;
pub const LIBRARY_NOT_FOUND: Ret = sys::nvmlReturn_enum_NVML_ERROR_LIBRARY_NOT_FOUND;
pub const FUNCTION_NOT_FOUND: Ret = sys::nvmlReturn_enum_NVML_ERROR_FUNCTION_NOT_FOUND;
pub const GPU_IS_LOST: Ret = sys::nvmlReturn_enum_NVML_ERROR_GPU_IS_LOST;
pub const RESET_REQUIRED: Ret = sys::nvmlReturn_enum_NVML_ERROR_RESET_REQUIRED;
pub const IN_USE: Ret = sys::nvmlReturn_enum_NVML_ERROR_IN_USE;
pub const INSUFFICIENT_RESOURCES: Ret = sys::nvmlReturn_enum_NVML_ERROR_INSUFFICIENT_RESOURCES;
pub const ARGUMENT_VERSION_MISMATCH: Ret =
    sys::nvmlReturn_enum_NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
pub const TIMEOUT: Ret = sys::nvmlReturn_enum_NVML_ERROR_TIMEOUT;
pub const UNKNOWN: Ret = sys::nvmlReturn_enum_NVML_ERROR_UNKNOWN;

/// The `NVML_ERROR_*` name of a code, as the log writes it.
pub fn code_name(code: Ret) -> &'static str {
    match code {
        SUCCESS => "SUCCESS",
        UNINITIALIZED => "UNINITIALIZED",
        INVALID_ARGUMENT => "INVALID_ARGUMENT",
        NOT_SUPPORTED => "NOT_SUPPORTED",
        NO_PERMISSION => "NO_PERMISSION",
        NOT_FOUND => "NOT_FOUND",
        TIMEOUT => "TIMEOUT",
        INSUFFICIENT_SIZE => "INSUFFICIENT_SIZE",
        DRIVER_NOT_LOADED => "DRIVER_NOT_LOADED",
        LIBRARY_NOT_FOUND => "LIBRARY_NOT_FOUND",
        FUNCTION_NOT_FOUND => "FUNCTION_NOT_FOUND",
        GPU_IS_LOST => "GPU_IS_LOST",
        RESET_REQUIRED => "RESET_REQUIRED",
        IN_USE => "IN_USE",
        INSUFFICIENT_RESOURCES => "INSUFFICIENT_RESOURCES",
        ARGUMENT_VERSION_MISMATCH => "ARGUMENT_VERSION_MISMATCH",
        _ => "UNKNOWN",
    }
}

/// A code by its name (`IN_USE`, `NVML_ERROR_IN_USE`) or number, for `NVML_STANDIN_FAIL`.
pub fn code_by_name(text: &str) -> Option<Ret> {
    if let Ok(n) = text.parse::<Ret>() {
        return Some(n);
    }
    let name = text.trim_start_matches("NVML_ERROR_");
    [
        UNINITIALIZED,
        INVALID_ARGUMENT,
        NOT_SUPPORTED,
        NO_PERMISSION,
        NOT_FOUND,
        INSUFFICIENT_SIZE,
        DRIVER_NOT_LOADED,
        GPU_IS_LOST,
        RESET_REQUIRED,
        IN_USE,
        INSUFFICIENT_RESOURCES,
        ARGUMENT_VERSION_MISMATCH,
        UNKNOWN,
    ]
    .into_iter()
    .find(|c| code_name(*c) == name)
}

/// Why a call failed: the code it returns and, for the log, what the simulator said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fail {
    pub code: Ret,
    pub detail: Option<String>,
}

impl Fail {
    pub fn new(code: Ret, detail: impl Into<String>) -> Self {
        Fail {
            code,
            detail: Some(detail.into()),
        }
    }
}

impl From<Ret> for Fail {
    fn from(code: Ret) -> Self {
        Fail { code, detail: None }
    }
}

/// The simulator's errors are the driver's: the same code.
impl From<DriverError> for Fail {
    fn from(e: DriverError) -> Self {
        use DriverErrorKind as K;
        let code = match e.kind {
            K::LibraryNotFound => LIBRARY_NOT_FOUND,
            K::DriverNotLoaded => DRIVER_NOT_LOADED,
            K::NoPermission => NO_PERMISSION,
            K::NotSupported => NOT_SUPPORTED,
            K::InvalidArgument => INVALID_ARGUMENT,
            K::NotFound => NOT_FOUND,
            K::InUse => IN_USE,
            K::InsufficientResources => INSUFFICIENT_RESOURCES,
            K::ResetRequired => RESET_REQUIRED,
            K::GpuLost => GPU_IS_LOST,
            K::FunctionNotFound => FUNCTION_NOT_FOUND,
            K::InsufficientSize => INSUFFICIENT_SIZE,
            K::ArgumentVersionMismatch => ARGUMENT_VERSION_MISMATCH,
            K::Unknown => UNKNOWN,
        };
        Fail::new(code, e.detail)
    }
}

pub type Answer = Result<(), Fail>;

/// What the log keeps of one call: its arguments (handles decoded) and what it returned.
#[derive(Debug, Default)]
pub struct Record {
    pub args: Map<String, Value>,
    pub out: Map<String, Value>,
}

impl Record {
    pub fn arg(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.args.insert(key.into(), value.into());
        self
    }

    /// A handle argument, logged as what it names (`gpu`, `gi`, `ci`, `mig`).
    pub fn handle(mut self, raw: usize) -> Self {
        match handles::peek(raw) {
            Some(h) => describe(&mut self.args, h),
            None => {
                self.args
                    .insert("handle".into(), format!("{raw:#x}").into());
            }
        }
        self
    }

    pub fn out(&mut self, key: &str, value: impl Into<Value>) {
        self.out.insert(key.into(), value.into());
    }

    pub fn out_handle(&mut self, h: Handle) {
        let mut m = Map::new();
        describe(&mut m, h);
        self.out.insert("handle".into(), Value::Object(m));
    }
}

fn describe(map: &mut Map<String, Value>, h: Handle) {
    match h {
        Handle::Device { gpu } => {
            map.insert("gpu".into(), gpu.into());
        }
        Handle::MigDevice { gpu, gi, ci } => {
            map.insert("gpu".into(), gpu.into());
            map.insert("gi".into(), gi.into());
            map.insert("ci".into(), ci.into());
            map.insert("mig".into(), true.into());
        }
        Handle::GpuInstance { gpu, gi } => {
            map.insert("gpu".into(), gpu.into());
            map.insert("gi".into(), gi.into());
        }
        Handle::ComputeInstance { gpu, gi, ci } => {
            map.insert("gpu".into(), gpu.into());
            map.insert("gi".into(), gi.into());
            map.insert("ci".into(), ci.into());
        }
    }
}

/// Calls that change the node (the log marks them, so tests can look for changes).
const CHANGING: [&str; 8] = [
    "nvmlDeviceSetMigMode",
    "nvmlDeviceSetComputeMode",
    "nvmlDeviceCreateGpuInstance",
    "nvmlDeviceCreateGpuInstanceWithPlacement",
    "nvmlGpuInstanceDestroy",
    "nvmlGpuInstanceCreateComputeInstance",
    "nvmlComputeInstanceDestroy",
    "nvidia-smi",
];

pub fn is_changing(name: &str) -> bool {
    CHANGING.contains(&name)
}

/// The versioned calls an older driver does not have (`NVML_STANDIN_OLD_DRIVER`): each answers
/// FUNCTION_NOT_FOUND, and the call it replaced answers instead.
const NEWER_THAN_OLD_DRIVER: [&str; 9] = [
    "nvmlDeviceGetComputeRunningProcesses_v3",
    "nvmlDeviceGetComputeRunningProcesses_v2",
    "nvmlDeviceGetMPSComputeRunningProcesses_v3",
    "nvmlDeviceGetMPSComputeRunningProcesses_v2",
    "nvmlDeviceGetMemoryInfo_v2",
    "nvmlComputeInstanceGetInfo_v2",
    "nvmlDeviceGetGpuInstancePossiblePlacements_v2",
    "nvmlDeviceGetGpuInstanceProfileInfoV",
    "nvmlGpuInstanceGetComputeInstanceProfileInfoV",
];

/// Run one call of an initialised library: UNINITIALIZED outside a session, then any injected
/// failure, then the body; a panic becomes UNKNOWN. Every call is logged.
pub fn call(name: &'static str, record: Record, body: impl FnOnce(&mut Record) -> Answer) -> Ret {
    run(name, record, true, body)
}

/// The same for the calls that work before `nvmlInit` (init itself).
pub fn call_uninitialised(
    name: &'static str,
    record: Record,
    body: impl FnOnce(&mut Record) -> Answer,
) -> Ret {
    run(name, record, false, body)
}

fn run(
    name: &'static str,
    mut record: Record,
    needs_session: bool,
    body: impl FnOnce(&mut Record) -> Answer,
) -> Ret {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if needs_session && handles::session().is_none() {
            return Err(Fail::new(UNINITIALIZED, "nvmlInit was not called"));
        }
        if switches::old_driver() && NEWER_THAN_OLD_DRIVER.contains(&name) {
            return Err(Fail::new(
                FUNCTION_NOT_FOUND,
                format!("this driver predates {name} ({})", crate::OLD_DRIVER_ENV),
            ));
        }
        if record.args.get("mig") == Some(&Value::Bool(true))
            && let Some(code) = switches::mig_device_failure(name)
        {
            return Err(Fail::new(
                code,
                format!("refused for MIG devices ({})", crate::MIG_DEVICE_FAIL_ENV),
            ));
        }
        if let Some(code) = switches::injected_failure(name) {
            return Err(Fail::new(
                code,
                format!("injected failure ({})", crate::FAIL_ENV),
            ));
        }
        body(&mut record)
    }))
    .unwrap_or_else(|_| Err(Fail::new(UNKNOWN, "the stand-in panicked")));
    let code = match &result {
        Ok(()) => SUCCESS,
        Err(f) => f.code,
    };
    log::write(name, &record, code, result.err().and_then(|f| f.detail));
    code
}

/// `nvml.h`'s "requires root": NO_PERMISSION when the stand-in plays a non-root caller.
pub fn require_root() -> Answer {
    if switches::non_root() {
        return Err(Fail::new(
            NO_PERMISSION,
            format!("needs root ({})", crate::NON_ROOT_ENV),
        ));
    }
    Ok(())
}

// The pointer helpers below take only pointers that the C caller passed to an exported function,
// whose validity is the caller's side of nvml.h's contract (that is what makes those functions
// `unsafe extern "C"`); they are not for other pointers, hence crate-private.

/// Write through an out pointer of the caller.
pub(crate) fn put<T>(ptr: *mut T, value: T) -> Answer {
    if ptr.is_null() {
        return Err(Fail::new(INVALID_ARGUMENT, "null out pointer"));
    }
    // SAFETY: not null, and nvml.h makes the caller pass a pointer to a writable T.
    unsafe { ptr.write(value) };
    Ok(())
}

/// Read an argument the caller passes by pointer (a placement, a struct's version).
pub(crate) fn get<T: Copy>(ptr: *const T) -> Result<T, Fail> {
    if ptr.is_null() {
        return Err(Fail::new(INVALID_ARGUMENT, "null pointer"));
    }
    // SAFETY: not null, and nvml.h makes the caller pass a pointer to a readable T.
    Ok(unsafe { ptr.read() })
}

/// Write `items` to a caller's array that nvml.h says must be large enough for them.
pub(crate) fn put_all<T: Copy>(buf: *mut T, items: &[T]) -> Answer {
    if items.is_empty() {
        return Ok(());
    }
    if buf.is_null() {
        return Err(Fail::new(INVALID_ARGUMENT, "null buffer"));
    }
    for (i, item) in items.iter().enumerate() {
        // SAFETY: not null; the caller's buffer holds at least `items.len()` elements (nvml.h:
        // "must be large enough", or the count the caller gave was checked before).
        unsafe { buf.add(i).write(*item) };
    }
    Ok(())
}

/// The array protocol of the placement calls: a null buffer asks for the count; otherwise the
/// count the caller passes is the buffer's size (stricter than nvml.h, which leaves an overrun
/// undefined: here a short buffer is INSUFFICIENT_SIZE and nothing is written).
pub(crate) fn put_counted<T: Copy>(buf: *mut T, count: *mut c_uint, items: &[T]) -> Answer {
    let capacity = get(count.cast_const())?;
    let n = items.len() as c_uint;
    put(count, n)?;
    if buf.is_null() {
        return Ok(());
    }
    if capacity < n {
        return Err(Fail::new(
            INSUFFICIENT_SIZE,
            format!("a buffer of {capacity} for {n} entries"),
        ));
    }
    put_all(buf, items)
}

/// A caller's NUL-terminated string (an empty one for a null pointer); at most 256 bytes are
/// looked at, more than any id NVML takes.
pub(crate) fn c_str_arg(p: *const std::os::raw::c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    let mut bytes = Vec::new();
    for i in 0..256 {
        // SAFETY: nvml.h's contract: a NUL-terminated string; reading stops at its NUL.
        let b = unsafe { *p.add(i) } as u8;
        if b == 0 {
            break;
        }
        bytes.push(b);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Copy a string into a caller's `char` buffer of `len` bytes, with its NUL.
pub(crate) fn put_str(buf: *mut std::os::raw::c_char, len: c_uint, text: &str) -> Answer {
    if buf.is_null() {
        return Err(Fail::new(INVALID_ARGUMENT, "null buffer"));
    }
    let bytes = text.as_bytes();
    if (len as usize) < bytes.len() + 1 {
        return Err(Fail::new(
            INSUFFICIENT_SIZE,
            format!("{len} bytes for {} characters", bytes.len()),
        ));
    }
    let mut with_nul = bytes.to_vec();
    with_nul.push(0);
    put_all(buf.cast::<u8>(), &with_nul)
}

/// Copy a name into a fixed `char` array of a struct (truncated, always NUL-terminated).
pub fn fill_name<const N: usize>(dst: &mut [std::os::raw::c_char; N], text: &str) {
    for (d, s) in dst.iter_mut().zip(
        text.bytes()
            .take(N.saturating_sub(1))
            .chain(std::iter::repeat(0)),
    ) {
        *d = s as std::os::raw::c_char;
    }
}
