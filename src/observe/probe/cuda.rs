//! Safe handles over the driver functions of [`super::driver_api`].
//!
//! Only the worker process calls into the driver, after checking that the library loads and has
//! every function; each call returns a [`CudaError`] naming the call, never a panic. Handles free
//! themselves on drop (errors there are ignored: the process is about to end anyway).

use super::cuda_error::CudaError;
use super::driver_api::{self, Api, Code, SUCCESS};
use cudarc::driver::sys;
use std::ffi::{CStr, c_int, c_void};

pub(crate) use super::driver_api::library_present;

pub(crate) type CudaResult<T> = Result<T, CudaError>;

const MIB: usize = 1024 * 1024;

/// `CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER`: what a call reports when the library lacks a function
/// (the worker checks them all first, so only a library swapped underneath would see it).
const REQUIRES_NEWER_DRIVER: Code = 36;

/// Run one driver call; a code other than `CUDA_SUCCESS` is an error naming `call`.
fn call(name: &str, f: impl FnOnce(&Api) -> Code) -> CudaResult<()> {
    let code = match driver_api::api() {
        Ok(api) => f(api),
        Err(_) => REQUIRES_NEWER_DRIVER,
    };
    if code == SUCCESS {
        Ok(())
    } else {
        Err(CudaError::new(name, code))
    }
}

/// The required functions this libcuda lacks (an old driver). Call only when
/// [`library_present`] is true.
pub(crate) fn missing_symbols() -> Vec<&'static str> {
    driver_api::api()
        .err()
        .map(<[&str]>::to_vec)
        .unwrap_or_default()
}

pub(crate) fn init() -> CudaResult<()> {
    // SAFETY: flags must be 0.
    call("cuInit", |a| unsafe { (a.cuInit)(0) })
}

/// The CUDA version the driver supports, e.g. `12.4`.
pub(crate) fn driver_version() -> CudaResult<String> {
    let mut v: c_int = 0;
    // SAFETY: writes one int.
    call("cuDriverGetVersion", |a| unsafe {
        (a.cuDriverGetVersion)(&mut v)
    })?;
    Ok(format!("{}.{}", v / 1000, (v % 1000) / 10))
}

pub(crate) fn device_count() -> CudaResult<i32> {
    let mut n: c_int = 0;
    // SAFETY: writes one int.
    call("cuDeviceGetCount", |a| unsafe {
        (a.cuDeviceGetCount)(&mut n)
    })?;
    Ok(n)
}

/// A device handle, valid for the process.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Device(sys::CUdevice);

impl Device {
    pub(crate) fn get(ordinal: i32) -> CudaResult<Device> {
        let mut d: sys::CUdevice = 0;
        // SAFETY: writes one device handle.
        call("cuDeviceGet", |a| unsafe {
            (a.cuDeviceGet)(&mut d, ordinal)
        })?;
        Ok(Device(d))
    }

    pub(crate) fn name(self) -> CudaResult<String> {
        let mut buf = [0u8; 256];
        // SAFETY: the driver writes at most `len` bytes, NUL-terminated.
        call("cuDeviceGetName", |a| unsafe {
            (a.cuDeviceGetName)(buf.as_mut_ptr().cast(), buf.len() as c_int, self.0)
        })?;
        let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
        Ok(String::from_utf8_lossy(&buf[..end]).into_owned())
    }

    /// The UUID body (`xxxxxxxx-xxxx-…`, no prefix): the MIG device's own UUID on a MIG device
    /// (the v2 call; the v1 call returns the parent GPU's).
    pub(crate) fn uuid(self) -> CudaResult<String> {
        let mut id = sys::CUuuid_st { bytes: [0; 16] };
        // SAFETY: writes 16 bytes.
        call("cuDeviceGetUuid_v2", |a| unsafe {
            (a.cuDeviceGetUuid_v2)(&mut id, self.0)
        })?;
        Ok(crate::node::model::format_uuid(&id.bytes.map(|b| b as u8)))
    }

    fn attribute(self, attr: sys::CUdevice_attribute) -> CudaResult<i32> {
        let mut v: c_int = 0;
        // SAFETY: a device from cuDeviceGet; writes one int.
        call("cuDeviceGetAttribute", |a| unsafe {
            (a.cuDeviceGetAttribute)(&mut v, attr as c_int, self.0)
        })?;
        Ok(v)
    }

    pub(crate) fn multiprocessors(self) -> CudaResult<u32> {
        self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map(|n| n.max(0) as u32)
    }

    pub(crate) fn compute_capability(self) -> CudaResult<String> {
        use sys::CUdevice_attribute::*;
        let major = self.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
        let minor = self.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
        Ok(format!("{major}.{minor}"))
    }
}

/// The device's primary context, current on this thread while the value lives.
pub(crate) struct Context(Device);

impl Context {
    pub(crate) fn open(device: Device) -> CudaResult<Context> {
        let mut ctx: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: a device from cuDeviceGet; the context is released on drop.
        call("cuDevicePrimaryCtxRetain", |a| unsafe {
            (a.cuDevicePrimaryCtxRetain)(&mut ctx, device.0)
        })?;
        let context = Context(device);
        // SAFETY: a context just retained.
        call("cuCtxSetCurrent", |a| unsafe { (a.cuCtxSetCurrent)(ctx) })?;
        Ok(context)
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: retained in `open`.
        let _ = call("cuDevicePrimaryCtxRelease_v2", |a| unsafe {
            (a.cuDevicePrimaryCtxRelease_v2)(self.0.0)
        });
    }
}

/// (free, total) bytes of the current context's device.
pub(crate) fn memory_info() -> CudaResult<(usize, usize)> {
    let (mut free, mut total) = (0usize, 0usize);
    // SAFETY: writes two sizes.
    call("cuMemGetInfo_v2", |a| unsafe {
        (a.cuMemGetInfo_v2)(&mut free, &mut total)
    })?;
    Ok((free, total))
}

/// Device memory (`cuMemAlloc`).
pub(crate) struct DeviceBuffer {
    ptr: sys::CUdeviceptr,
    pub bytes: usize,
}

impl DeviceBuffer {
    pub(crate) fn alloc(bytes: usize) -> CudaResult<DeviceBuffer> {
        let mut ptr: sys::CUdeviceptr = 0;
        // SAFETY: writes one device pointer; the memory is only used through copies and kernels
        // of this module, and freed on drop.
        call("cuMemAlloc_v2", |a| unsafe {
            (a.cuMemAlloc_v2)(&mut ptr, bytes)
        })?;
        Ok(DeviceBuffer { ptr, bytes })
    }

    pub(crate) fn alloc_mib(mib: u64) -> CudaResult<DeviceBuffer> {
        Self::alloc(mib as usize * MIB)
    }

    pub(crate) fn ptr(&self) -> sys::CUdeviceptr {
        self.ptr
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `alloc`; every stream using it was synchronised.
        let _ = call("cuMemFree_v2", |a| unsafe { (a.cuMemFree_v2)(self.ptr) });
    }
}

/// Page-locked host memory (`cuMemHostAlloc(PORTABLE)`, as nvbandwidth uses), so copies run at
/// DMA speed and asynchronously.
pub(crate) struct PinnedBuffer {
    ptr: *mut u8,
    pub bytes: usize,
}

impl PinnedBuffer {
    pub(crate) fn alloc(bytes: usize) -> CudaResult<PinnedBuffer> {
        Self::alloc_with(bytes, sys::CU_MEMHOSTALLOC_PORTABLE)
    }

    fn alloc_with(bytes: usize, flags: u32) -> CudaResult<PinnedBuffer> {
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: writes one pointer; freed on drop.
        call("cuMemHostAlloc", |a| unsafe {
            (a.cuMemHostAlloc)(&mut ptr, bytes, flags)
        })?;
        Ok(PinnedBuffer {
            ptr: ptr.cast(),
            bytes,
        })
    }

    pub(crate) fn as_slice(&self) -> &[u8] {
        // SAFETY: `bytes` bytes allocated in `alloc`, owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.bytes) }
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, borrowed mutably.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.bytes) }
    }
}

impl Drop for PinnedBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `alloc`; no copy is in flight (streams are synchronised).
        let _ = call("cuMemFreeHost", |a| unsafe {
            (a.cuMemFreeHost)(self.ptr.cast())
        });
    }
}

/// A 32-bit word of pinned host memory that kernels can read (`DEVICEMAP`): the host lowers it
/// to 0 and raises it to 1 while a kernel spins on it (the stream blocker of the bandwidth
/// samples).
pub(crate) struct HostFlag {
    buffer: PinnedBuffer,
    device_ptr: sys::CUdeviceptr,
}

impl HostFlag {
    pub(crate) fn new() -> CudaResult<HostFlag> {
        let flags = sys::CU_MEMHOSTALLOC_PORTABLE | sys::CU_MEMHOSTALLOC_DEVICEMAP;
        let buffer = PinnedBuffer::alloc_with(4, flags)?;
        let mut device_ptr: sys::CUdeviceptr = 0;
        // SAFETY: mapped host memory allocated just above; flags must be 0.
        call("cuMemHostGetDevicePointer_v2", |a| unsafe {
            (a.cuMemHostGetDevicePointer_v2)(&mut device_ptr, buffer.ptr.cast(), 0)
        })?;
        let flag = HostFlag { buffer, device_ptr };
        flag.set(0);
        Ok(flag)
    }

    /// The address kernels read it at.
    pub(crate) fn device_ptr(&self) -> sys::CUdeviceptr {
        self.device_ptr
    }

    pub(crate) fn set(&self, value: u32) {
        // SAFETY: 4 aligned bytes owned by self (page-aligned pinned memory); volatile, so the
        // store is not merged or delayed: a kernel spins on it.
        unsafe { std::ptr::write_volatile(self.buffer.ptr.cast::<u32>(), value) };
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
    }
}

pub(crate) struct Stream(sys::CUstream);

impl Stream {
    pub(crate) fn new() -> CudaResult<Stream> {
        let mut s: sys::CUstream = std::ptr::null_mut();
        // SAFETY: writes one stream handle; destroyed on drop.
        call("cuStreamCreate", |a| unsafe {
            (a.cuStreamCreate)(&mut s, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32)
        })?;
        Ok(Stream(s))
    }

    pub(crate) fn synchronize(&self) -> CudaResult<()> {
        // SAFETY: a stream of this context.
        call("cuStreamSynchronize", |a| unsafe {
            (a.cuStreamSynchronize)(self.0)
        })
    }

    /// Copy the first `bytes` of `src` to `dst` (asynchronous).
    pub(crate) fn copy_htod(
        &self,
        dst: &DeviceBuffer,
        src: &PinnedBuffer,
        bytes: usize,
    ) -> CudaResult<()> {
        let bytes = bytes.min(dst.bytes).min(src.bytes);
        // SAFETY: both buffers hold `bytes` and outlive the copy: callers synchronise before
        // dropping them.
        call("cuMemcpyHtoDAsync_v2", |a| unsafe {
            (a.cuMemcpyHtoDAsync_v2)(dst.ptr, src.ptr.cast(), bytes, self.0)
        })
    }

    /// Copy the first `bytes` of `src` to `dst` (asynchronous).
    pub(crate) fn copy_dtoh(
        &self,
        dst: &mut PinnedBuffer,
        src: &DeviceBuffer,
        bytes: usize,
    ) -> CudaResult<()> {
        let bytes = bytes.min(dst.bytes).min(src.bytes);
        // SAFETY: as in `copy_htod`.
        call("cuMemcpyDtoHAsync_v2", |a| unsafe {
            (a.cuMemcpyDtoHAsync_v2)(dst.ptr.cast(), src.ptr, bytes, self.0)
        })
    }

    /// Launch `function` with `args` (each a pointer to the argument's value).
    pub(crate) fn launch(
        &self,
        function: &Function,
        grid: u32,
        block: u32,
        args: &mut [*mut c_void],
    ) -> CudaResult<()> {
        let params = if args.is_empty() {
            std::ptr::null_mut()
        } else {
            args.as_mut_ptr()
        };
        // SAFETY: the kernels' parameter lists match what the callers pass (see kernels.ptx);
        // each argument pointer lives through the call, which copies the values.
        call("cuLaunchKernel", |a| unsafe {
            (a.cuLaunchKernel)(
                function.0,
                grid,
                1,
                1,
                block,
                1,
                1,
                0,
                self.0,
                params,
                std::ptr::null_mut(),
            )
        })
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: created in `new`.
        let _ = call("cuStreamDestroy_v2", |a| unsafe {
            (a.cuStreamDestroy_v2)(self.0)
        });
    }
}

/// A timing event (`CU_EVENT_DEFAULT`: with timing).
pub(crate) struct Event(sys::CUevent);

impl Event {
    pub(crate) fn new() -> CudaResult<Event> {
        let mut e: sys::CUevent = std::ptr::null_mut();
        // SAFETY: writes one event handle; destroyed on drop.
        call("cuEventCreate", |a| unsafe {
            (a.cuEventCreate)(&mut e, sys::CUevent_flags::CU_EVENT_DEFAULT as u32)
        })?;
        Ok(Event(e))
    }

    pub(crate) fn record(&self, stream: &Stream) -> CudaResult<()> {
        // SAFETY: event and stream of this context.
        call("cuEventRecord", |a| unsafe {
            (a.cuEventRecord)(self.0, stream.0)
        })
    }

    pub(crate) fn synchronize(&self) -> CudaResult<()> {
        // SAFETY: an event of this context.
        call("cuEventSynchronize", |a| unsafe {
            (a.cuEventSynchronize)(self.0)
        })
    }

    /// Milliseconds from `self` to `end` (both recorded and complete).
    pub(crate) fn elapsed_ms(&self, end: &Event) -> CudaResult<f64> {
        let mut ms = 0f32;
        // SAFETY: both events created here; writes one float.
        call("cuEventElapsedTime", |a| unsafe {
            (a.cuEventElapsedTime)(&mut ms, self.0, end.0)
        })?;
        Ok(f64::from(ms))
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: created in `new`.
        let _ = call("cuEventDestroy_v2", |a| unsafe {
            (a.cuEventDestroy_v2)(self.0)
        });
    }
}

/// A module JIT-compiled from PTX by the driver.
pub(crate) struct Module(sys::CUmodule);

pub(crate) struct Function(sys::CUfunction);

impl Module {
    pub(crate) fn load_ptx(ptx: &CStr) -> CudaResult<Module> {
        let mut m: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: a NUL-terminated PTX image that lives through the call.
        call("cuModuleLoadData", |a| unsafe {
            (a.cuModuleLoadData)(&mut m, ptx.as_ptr().cast())
        })?;
        Ok(Module(m))
    }

    pub(crate) fn function(&self, name: &CStr) -> CudaResult<Function> {
        let mut f: sys::CUfunction = std::ptr::null_mut();
        // SAFETY: a module loaded here; the name is NUL-terminated.
        call("cuModuleGetFunction", |a| unsafe {
            (a.cuModuleGetFunction)(&mut f, self.0, name.as_ptr())
        })?;
        Ok(Function(f))
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: loaded in `load_ptx`.
        let _ = call("cuModuleUnload", |a| unsafe { (a.cuModuleUnload)(self.0) });
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn uuids_print_like_nvidia_smi() {
        let bytes = [
            0x1d, 0x3e, 0x5a, 0x0c, 0x4a, 0x5b, 0x5c, 0x6d, 0x8e, 0x9f, 0x0a, 0x1b, 0x2c, 0x3d,
            0x4e, 0x5f,
        ];
        assert_eq!(
            crate::node::model::format_uuid(&bytes),
            "1d3e5a0c-4a5b-5c6d-8e9f-0a1b2c3d4e5f"
        );
    }
}
