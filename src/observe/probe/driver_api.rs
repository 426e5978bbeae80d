//! The driver functions the probe calls, resolved once from the libcuda cudarc finds.
//!
//! Each function is called through a pointer typed to return the raw `CUresult` as a `u32`, not
//! cudarc's `CUresult` enum: a driver newer than the bindings can return codes the enum lacks
//! (e.g. 914, `CUDA_ERROR_INVALID_RESOURCE_TYPE`, from CUDA 12.4 on), and turning such a value into
//! the enum would be undefined behaviour. cudarc still finds the library and gives the types.

use cudarc::driver::sys;
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::OnceLock;

/// A `CUresult` exactly as the driver returned it.
pub(crate) type Code = u32;

pub(crate) const SUCCESS: Code = 0;

macro_rules! driver_api {
    ($($name:ident: fn($($arg:ty),* $(,)?);)*) => {
        /// The resolved driver functions.
        #[allow(non_snake_case)]
        pub(crate) struct Api {
            $(pub $name: unsafe extern "C" fn($($arg),*) -> Code,)*
        }

        /// Every driver function the probe calls, under its exported name.
        #[cfg(test)]
        pub(crate) const SYMBOLS: &[&str] = &[$(stringify!($name)),*];

        /// Resolve every function, or name the ones this libcuda lacks.
        #[allow(non_snake_case)]
        fn resolve() -> Result<Api, Vec<&'static str>> {
            // SAFETY: only called once `library_present` said the library loads.
            let lib = unsafe { sys::culib() };
            let mut missing = Vec::new();
            $(
                // SAFETY: looking a symbol up calls nothing; the type is the function's C
                // signature from cuda.h, with the result as a plain integer.
                let $name = unsafe {
                    lib.get::<unsafe extern "C" fn($($arg),*) -> Code>(stringify!($name))
                }
                .map(|symbol| *symbol)
                .map_err(|_| missing.push(stringify!($name)))
                .ok();
            )*
            let api = (|| Some(Api { $($name: $name?,)* }))();
            api.ok_or(missing)
        }
    };
}

driver_api! {
    cuInit: fn(c_uint);
    cuDriverGetVersion: fn(*mut c_int);
    cuDeviceGetCount: fn(*mut c_int);
    cuDeviceGet: fn(*mut sys::CUdevice, c_int);
    cuDeviceGetName: fn(*mut c_char, c_int, sys::CUdevice);
    cuDeviceGetUuid_v2: fn(*mut sys::CUuuid, sys::CUdevice);
    cuDeviceGetAttribute: fn(*mut c_int, c_int, sys::CUdevice);
    cuDevicePrimaryCtxRetain: fn(*mut sys::CUcontext, sys::CUdevice);
    cuDevicePrimaryCtxRelease_v2: fn(sys::CUdevice);
    cuCtxSetCurrent: fn(sys::CUcontext);
    cuMemGetInfo_v2: fn(*mut usize, *mut usize);
    cuMemAlloc_v2: fn(*mut sys::CUdeviceptr, usize);
    cuMemFree_v2: fn(sys::CUdeviceptr);
    cuMemHostAlloc: fn(*mut *mut c_void, usize, c_uint);
    cuMemHostGetDevicePointer_v2: fn(*mut sys::CUdeviceptr, *mut c_void, c_uint);
    cuMemFreeHost: fn(*mut c_void);
    cuMemcpyHtoDAsync_v2: fn(sys::CUdeviceptr, *const c_void, usize, sys::CUstream);
    cuMemcpyDtoHAsync_v2: fn(*mut c_void, sys::CUdeviceptr, usize, sys::CUstream);
    cuModuleLoadData: fn(*mut sys::CUmodule, *const c_void);
    cuModuleGetFunction: fn(*mut sys::CUfunction, sys::CUmodule, *const c_char);
    cuModuleUnload: fn(sys::CUmodule);
    cuLaunchKernel: fn(
        sys::CUfunction,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        sys::CUstream,
        *mut *mut c_void,
        *mut *mut c_void,
    );
    cuStreamCreate: fn(*mut sys::CUstream, c_uint);
    cuStreamSynchronize: fn(sys::CUstream);
    cuStreamDestroy_v2: fn(sys::CUstream);
    cuEventCreate: fn(*mut sys::CUevent, c_uint);
    cuEventRecord: fn(sys::CUevent, sys::CUstream);
    cuEventSynchronize: fn(sys::CUevent);
    cuEventElapsedTime: fn(*mut f32, sys::CUevent, sys::CUevent);
    cuEventDestroy_v2: fn(sys::CUevent);
}

/// Whether libcuda can be loaded at all (a dlopen; no driver call).
pub(crate) fn library_present() -> bool {
    // SAFETY: only tries to dlopen the candidate names and closes the library again.
    unsafe { sys::is_culib_present() }
}

/// The driver's functions; `Err` names those this libcuda lacks (a driver older than CUDA 11.4).
/// Call only when [`library_present`] is true.
pub(crate) fn api() -> Result<&'static Api, &'static [&'static str]> {
    static API: OnceLock<Result<Api, Vec<&'static str>>> = OnceLock::new();
    match API.get_or_init(resolve) {
        Ok(api) => Ok(api),
        Err(missing) => Err(missing),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_symbol_list_names_each_function_once() {
        let mut names = SYMBOLS.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), SYMBOLS.len());
        assert!(SYMBOLS.contains(&"cuDeviceGetUuid_v2"));
    }
}
