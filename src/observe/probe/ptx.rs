//! The probe's kernels: hand-written PTX (`kernels.ptx`) embedded in the binary. The driver
//! JIT-compiles it for whatever GPU it meets, so building gpushare needs no CUDA toolkit.

use std::ffi::{CStr, CString};

/// The PTX text as shipped (`.ci/check-ptx` compiles this file with ptxas).
pub(crate) const SOURCE: &str = include_str!("kernels.ptx");

/// Empty kernel, no parameters: launch latency.
pub(crate) const NOOP: &CStr = c"gpushare_noop";
/// `(u64 dst, u64 src, u64 n16)`: grid-stride copy of `n16` 16-byte elements.
pub(crate) const COPY16: &CStr = c"gpushare_copy16";
/// `(u64 out, u64 spin_clocks)`: per block, `{%smid, start ns, end ns}` around a spin.
pub(crate) const SMID: &CStr = c"gpushare_smid";
/// `(u64 flag, u64 timeout_ns)`: spin until the host raises `*flag`: the stream blocker.
pub(crate) const WAIT: &CStr = c"gpushare_wait";

/// Threads per block of the copy kernel.
pub(crate) const COPY_BLOCK: u32 = 256;
/// Blocks per SM of the copy kernel: 8 × 256 threads fill an SM's 2048 thread slots.
pub(crate) const COPY_BLOCKS_PER_SM: u32 = 8;
/// Threads per block of the SM-id kernel (one warp; thread 0 does the work).
pub(crate) const SMID_BLOCK: u32 = 32;
/// Blocks per SM of the SM-id kernel: several waves, so every SM the context may use gets some.
pub(crate) const SMID_BLOCKS_PER_SM: u32 = 4;
/// Bytes the SM-id kernel writes per block: three u64 (SM id, start and end in ns).
pub(crate) const SMID_RECORD: usize = 24;
/// How long the stream blocker waits for the host at most: far longer than queueing a sample
/// takes, short enough that a lost flag costs a second, not a hang.
pub(crate) const WAIT_TIMEOUT_NS: u64 = 1_000_000_000;

/// The PTX as the NUL-terminated image `cuModuleLoadData` takes.
pub(crate) fn image() -> CString {
    // The embedded text has no NUL byte (checked by a test); never fail at run time over it.
    CString::new(SOURCE.replace('\0', "")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_suits_every_gpu_from_volta() {
        let directives: Vec<&str> = SOURCE
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with('.') && !l.starts_with(".reg") && !l.starts_with(".param"))
            .take(3)
            .collect();
        assert_eq!(
            directives,
            [".version 6.0", ".target sm_70", ".address_size 64"]
        );
        assert!(!SOURCE.contains('\0'));
        assert_eq!(image().as_bytes().len(), SOURCE.len());
    }

    #[test]
    fn every_kernel_the_probe_launches_is_an_entry() {
        for name in [NOOP, COPY16, SMID, WAIT] {
            let entry = format!(".visible .entry {}(", name.to_str().unwrap());
            assert!(SOURCE.contains(&entry), "missing {entry}");
        }
    }
}
