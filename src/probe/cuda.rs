//! The CUDA driver API, through cudarc's `result` layer (dynamic loading, CUDA 12.x bindings).
//!
//! Only the worker process calls into the driver. cudarc panics when libcuda or one of its
//! symbols is missing, so the worker first checks [`library_present`] and [`missing_symbols`];
//! every call after that returns a [`CudaError`] naming the call, never a panic. Handles free
//! themselves on drop (errors there are ignored: the process is about to end anyway).

use super::cuda_error::CudaError;
use cudarc::driver::{result, sys};
use std::ffi::{CStr, c_void};

pub type CudaResult<T> = Result<T, CudaError>;

const MIB: usize = 1024 * 1024;

fn check<T>(call: &str, r: Result<T, result::DriverError>) -> CudaResult<T> {
    r.map_err(|e| CudaError::new(call, e.0 as u32))
}

/// Whether libcuda can be loaded at all (a dlopen; no driver call).
pub fn library_present() -> bool {
    // SAFETY: only tries to dlopen the candidate names and closes the library again.
    unsafe { sys::is_culib_present() }
}

/// Every driver function the probe calls, under the names cudarc resolves.
pub const REQUIRED_SYMBOLS: &[&str] = &[
    "cuInit",
    "cuDriverGetVersion",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetName",
    "cuDeviceGetUuid_v2",
    "cuDeviceGetAttribute",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxSetCurrent",
    "cuMemGetInfo_v2",
    "cuMemAlloc_v2",
    "cuMemFree_v2",
    "cuMemHostAlloc",
    "cuMemFreeHost",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuModuleLoadData",
    "cuModuleGetFunction",
    "cuModuleUnload",
    "cuLaunchKernel",
    "cuStreamCreate",
    "cuStreamSynchronize",
    "cuStreamDestroy_v2",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventElapsedTime",
    "cuEventDestroy_v2",
];

/// The required functions this libcuda lacks (an old driver). Call only when
/// [`library_present`] is true.
pub fn missing_symbols() -> Vec<&'static str> {
    // SAFETY: the library loads (checked by the caller); looking a symbol up calls nothing.
    let lib = unsafe { sys::culib() };
    REQUIRED_SYMBOLS
        .iter()
        .copied()
        .filter(|name| unsafe { lib.get::<*const c_void>(name.as_bytes()) }.is_err())
        .collect()
}

pub fn init() -> CudaResult<()> {
    check("cuInit", result::init())
}

/// The CUDA version the driver supports, e.g. `12.4`.
pub fn driver_version() -> CudaResult<String> {
    let mut v: std::ffi::c_int = 0;
    // SAFETY: writes one int.
    check("cuDriverGetVersion", unsafe {
        sys::cuDriverGetVersion(&mut v).result()
    })?;
    Ok(format!("{}.{}", v / 1000, (v % 1000) / 10))
}

pub fn device_count() -> CudaResult<i32> {
    check("cuDeviceGetCount", result::device::get_count())
}

/// A device handle, valid for the process.
#[derive(Debug, Clone, Copy)]
pub struct Device(sys::CUdevice);

impl Device {
    pub fn get(ordinal: i32) -> CudaResult<Device> {
        check("cuDeviceGet", result::device::get(ordinal)).map(Device)
    }

    pub fn name(self) -> CudaResult<String> {
        let mut buf = [0u8; 256];
        // SAFETY: the driver writes at most `len` bytes, NUL-terminated.
        check("cuDeviceGetName", unsafe {
            sys::cuDeviceGetName(buf.as_mut_ptr().cast(), buf.len() as i32, self.0).result()
        })?;
        let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
        Ok(String::from_utf8_lossy(&buf[..end]).into_owned())
    }

    /// The UUID body (`xxxxxxxx-xxxx-…`, no prefix): the MIG device's own UUID on a MIG device
    /// (the v2 call; the v1 call returns the parent GPU's).
    pub fn uuid(self) -> CudaResult<String> {
        let mut id = sys::CUuuid_st { bytes: [0; 16] };
        // SAFETY: writes 16 bytes.
        check("cuDeviceGetUuid_v2", unsafe {
            sys::cuDeviceGetUuid_v2(&mut id, self.0).result()
        })?;
        Ok(crate::node::format_uuid(&id.bytes.map(|b| b as u8)))
    }

    fn attribute(self, attr: sys::CUdevice_attribute) -> CudaResult<i32> {
        // SAFETY: a device from cuDeviceGet.
        check("cuDeviceGetAttribute", unsafe {
            result::device::get_attribute(self.0, attr)
        })
    }

    pub fn multiprocessors(self) -> CudaResult<u32> {
        self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map(|n| n.max(0) as u32)
    }

    pub fn compute_capability(self) -> CudaResult<String> {
        use sys::CUdevice_attribute::*;
        let major = self.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
        let minor = self.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
        Ok(format!("{major}.{minor}"))
    }
}

/// The device's primary context, current on this thread while the value lives.
pub struct Context(Device);

impl Context {
    pub fn open(device: Device) -> CudaResult<Context> {
        // SAFETY: a device from cuDeviceGet; the context is released on drop.
        let ctx = check("cuDevicePrimaryCtxRetain", unsafe {
            result::primary_ctx::retain(device.0)
        })?;
        let context = Context(device);
        // SAFETY: a context just retained.
        check("cuCtxSetCurrent", unsafe { result::ctx::set_current(ctx) })?;
        Ok(context)
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: retained in `open`.
        let _ = unsafe { result::primary_ctx::release(self.0.0) };
    }
}

/// (free, total) bytes of the current context's device.
pub fn memory_info() -> CudaResult<(usize, usize)> {
    check("cuMemGetInfo_v2", result::mem_get_info())
}

/// Device memory (`cuMemAlloc`).
pub struct DeviceBuffer {
    ptr: sys::CUdeviceptr,
    pub bytes: usize,
}

impl DeviceBuffer {
    pub fn alloc(bytes: usize) -> CudaResult<DeviceBuffer> {
        // SAFETY: the memory is only used through copies and kernels of this module.
        let ptr = check("cuMemAlloc_v2", unsafe { result::malloc_sync(bytes) })?;
        Ok(DeviceBuffer { ptr, bytes })
    }

    pub fn alloc_mib(mib: u64) -> CudaResult<DeviceBuffer> {
        Self::alloc(mib as usize * MIB)
    }

    pub fn ptr(&self) -> sys::CUdeviceptr {
        self.ptr
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `alloc`; every stream using it was synchronised.
        let _ = unsafe { result::free_sync(self.ptr) };
    }
}

/// Page-locked host memory (`cuMemHostAlloc(PORTABLE)`, as nvbandwidth uses), so copies run at
/// DMA speed and asynchronously.
pub struct PinnedBuffer {
    ptr: *mut u8,
    pub bytes: usize,
}

impl PinnedBuffer {
    pub fn alloc(bytes: usize) -> CudaResult<PinnedBuffer> {
        // SAFETY: freed on drop.
        let ptr = check("cuMemHostAlloc", unsafe {
            result::malloc_host(bytes, sys::CU_MEMHOSTALLOC_PORTABLE)
        })?;
        Ok(PinnedBuffer {
            ptr: ptr.cast(),
            bytes,
        })
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `bytes` bytes allocated in `alloc`, owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.bytes) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, borrowed mutably.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.bytes) }
    }
}

impl Drop for PinnedBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `alloc`; no copy is in flight (streams are synchronised).
        let _ = unsafe { result::free_host(self.ptr.cast()) };
    }
}

pub struct Stream(sys::CUstream);

impl Stream {
    pub fn new() -> CudaResult<Stream> {
        check(
            "cuStreamCreate",
            result::stream::create(result::stream::StreamKind::NonBlocking),
        )
        .map(Stream)
    }

    pub fn synchronize(&self) -> CudaResult<()> {
        // SAFETY: a stream of this context.
        check("cuStreamSynchronize", unsafe {
            result::stream::synchronize(self.0)
        })
    }

    /// Copy the first `bytes` of `src` to `dst` (asynchronous).
    pub fn copy_htod(
        &self,
        dst: &DeviceBuffer,
        src: &PinnedBuffer,
        bytes: usize,
    ) -> CudaResult<()> {
        let bytes = bytes.min(dst.bytes).min(src.bytes);
        // SAFETY: both buffers outlive the copy: callers synchronise before dropping them.
        check("cuMemcpyHtoDAsync_v2", unsafe {
            result::memcpy_htod_async(dst.ptr, &src.as_slice()[..bytes], self.0)
        })
    }

    /// Copy the first `bytes` of `src` to `dst` (asynchronous).
    pub fn copy_dtoh(
        &self,
        dst: &mut PinnedBuffer,
        src: &DeviceBuffer,
        bytes: usize,
    ) -> CudaResult<()> {
        let bytes = bytes.min(dst.bytes).min(src.bytes);
        // SAFETY: as in `copy_htod`.
        check("cuMemcpyDtoHAsync_v2", unsafe {
            result::memcpy_dtoh_async(&mut dst.as_mut_slice()[..bytes], src.ptr, self.0)
        })
    }

    /// Launch `function` with `args` (each a pointer to the argument's value).
    pub fn launch(
        &self,
        function: &Function,
        grid: u32,
        block: u32,
        args: &mut [*mut c_void],
    ) -> CudaResult<()> {
        // SAFETY: the kernels' parameter lists match what measure.rs passes (see kernels.ptx).
        check("cuLaunchKernel", unsafe {
            result::launch_kernel(function.0, (grid, 1, 1), (block, 1, 1), 0, self.0, args)
        })
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: created in `new`.
        let _ = unsafe { result::stream::destroy(self.0) };
    }
}

/// A timing event (`CU_EVENT_DEFAULT`: with timing).
pub struct Event(sys::CUevent);

impl Event {
    pub fn new() -> CudaResult<Event> {
        check(
            "cuEventCreate",
            result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT),
        )
        .map(Event)
    }

    pub fn record(&self, stream: &Stream) -> CudaResult<()> {
        // SAFETY: event and stream of this context.
        check("cuEventRecord", unsafe {
            result::event::record(self.0, stream.0)
        })
    }

    pub fn synchronize(&self) -> CudaResult<()> {
        // SAFETY: an event of this context.
        check("cuEventSynchronize", unsafe {
            result::event::synchronize(self.0)
        })
    }

    /// Milliseconds from `self` to `end` (both recorded and complete).
    pub fn elapsed_ms(&self, end: &Event) -> CudaResult<f64> {
        // SAFETY: both events created here; cuEventElapsedTime (v1) exists in every driver.
        check("cuEventElapsedTime", unsafe {
            result::event::elapsed(self.0, end.0)
        })
        .map(f64::from)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: created in `new`.
        let _ = unsafe { result::event::destroy(self.0) };
    }
}

/// A module JIT-compiled from PTX by the driver.
pub struct Module(sys::CUmodule);

pub struct Function(sys::CUfunction);

impl Module {
    pub fn load_ptx(ptx: &CStr) -> CudaResult<Module> {
        // SAFETY: a NUL-terminated PTX image that lives through the call.
        check("cuModuleLoadData", unsafe {
            result::module::load_data(ptx.as_ptr().cast())
        })
        .map(Module)
    }

    pub fn function(&self, name: &CStr) -> CudaResult<Function> {
        // SAFETY: a module loaded here; the name is NUL-terminated.
        check("cuModuleGetFunction", unsafe {
            result::module::get_function(self.0, name.to_owned())
        })
        .map(Function)
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: loaded in `load_ptx`.
        let _ = unsafe { result::module::unload(self.0) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_print_like_nvidia_smi() {
        let bytes = [
            0x1d, 0x3e, 0x5a, 0x0c, 0x4a, 0x5b, 0x5c, 0x6d, 0x8e, 0x9f, 0x0a, 0x1b, 0x2c, 0x3d,
            0x4e, 0x5f,
        ];
        assert_eq!(
            crate::node::format_uuid(&bytes),
            "1d3e5a0c-4a5b-5c6d-8e9f-0a1b2c3d4e5f"
        );
    }

    #[test]
    fn the_symbol_list_names_each_function_once() {
        let mut names = REQUIRED_SYMBOLS.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), REQUIRED_SYMBOLS.len());
    }
}
