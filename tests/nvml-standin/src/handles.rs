//! Handles and the init session.
//!
//! A handle is what it names (a GPU, a MIG device, a GPU or compute instance) packed into the
//! pointer value, with the session it was made in. It is never dereferenced. A handle from an
//! earlier session (before `nvmlShutdown`) is refused with INVALID_ARGUMENT, so a caller that keeps
//! handles across a shutdown and re-init is caught; a handle whose instance is gone is refused by
//! the call that uses it.

use std::sync::Mutex;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handle {
    Device { gpu: u32 },
    MigDevice { gpu: u32, gi: u32, ci: u32 },
    GpuInstance { gpu: u32, gi: u32 },
    ComputeInstance { gpu: u32, gi: u32, ci: u32 },
}

/// The open session: `nvmlInit` calls not yet matched by `nvmlShutdown`.
#[derive(Debug, Clone, Copy)]
struct Session {
    nonce: u16,
    refs: u32,
}

static SESSION: Mutex<Option<Session>> = Mutex::new(None);

fn lock() -> std::sync::MutexGuard<'static, Option<Session>> {
    SESSION.lock().unwrap_or_else(|e| e.into_inner())
}

/// The current session's nonce; None before `nvmlInit` and after the last `nvmlShutdown`.
pub fn session() -> Option<u16> {
    lock().map(|s| s.nonce)
}

/// `nvmlInit`: one more reference; true when this opened a new session.
pub fn open() -> bool {
    let mut s = lock();
    match s.as_mut() {
        Some(session) => {
            session.refs += 1;
            false
        }
        None => {
            *s = Some(Session {
                nonce: fresh_nonce(),
                refs: 1,
            });
            true
        }
    }
}

/// `nvmlShutdown`: one reference less. None when there was no session; Some(true) when this
/// closed it.
pub fn close() -> Option<bool> {
    let mut s = lock();
    let session = s.as_mut()?;
    session.refs -= 1;
    if session.refs == 0 {
        *s = None;
        return Some(true);
    }
    Some(false)
}

/// Differs between sessions, also across an unload and reload of the library.
fn fresh_nonce() -> u16 {
    use std::sync::atomic::{AtomicU16, Ordering};
    static COUNTER: AtomicU16 = AtomicU16::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let n = (nanos as u16) ^ ((nanos >> 16) as u16) ^ COUNTER.fetch_add(0x9e37, Ordering::Relaxed);
    n.max(1)
}

const KIND_SHIFT: u32 = 60;
const NONCE_SHIFT: u32 = 44;
const GPU_SHIFT: u32 = 32;
const GI_SHIFT: u32 = 16;

impl Handle {
    fn kind(self) -> usize {
        match self {
            Handle::Device { .. } => 1,
            Handle::MigDevice { .. } => 2,
            Handle::GpuInstance { .. } => 3,
            Handle::ComputeInstance { .. } => 4,
        }
    }

    pub fn gpu(self) -> u32 {
        match self {
            Handle::Device { gpu }
            | Handle::MigDevice { gpu, .. }
            | Handle::GpuInstance { gpu, .. }
            | Handle::ComputeInstance { gpu, .. } => gpu,
        }
    }

    /// The pointer value of this handle in the current session (0 outside one).
    pub fn encode(self) -> usize {
        let Some(nonce) = session() else { return 0 };
        let (gpu, gi, ci) = match self {
            Handle::Device { gpu } => (gpu, 0, 0),
            Handle::GpuInstance { gpu, gi } => (gpu, gi, 0),
            Handle::MigDevice { gpu, gi, ci } | Handle::ComputeInstance { gpu, gi, ci } => {
                (gpu, gi, ci)
            }
        };
        (self.kind() << KIND_SHIFT)
            | ((nonce as usize) << NONCE_SHIFT)
            | ((gpu as usize & 0xFFF) << GPU_SHIFT)
            | ((gi as usize & 0xFFFF) << GI_SHIFT)
            | (ci as usize & 0xFFFF)
    }

    /// A pointer for an out parameter of type `*mut T`; never dereferenced.
    pub fn as_ptr<T>(self) -> *mut T {
        std::ptr::without_provenance_mut(self.encode())
    }
}

/// What a pointer value names, whatever its session (for the log).
pub fn peek(raw: usize) -> Option<Handle> {
    let gpu = ((raw >> GPU_SHIFT) & 0xFFF) as u32;
    let gi = ((raw >> GI_SHIFT) & 0xFFFF) as u32;
    let ci = (raw & 0xFFFF) as u32;
    match raw >> KIND_SHIFT {
        1 => Some(Handle::Device { gpu }),
        2 => Some(Handle::MigDevice { gpu, gi, ci }),
        3 => Some(Handle::GpuInstance { gpu, gi }),
        4 => Some(Handle::ComputeInstance { gpu, gi, ci }),
        _ => None,
    }
}

/// What a handle of the current session names; None for garbage and for stale handles.
pub fn decode(raw: usize) -> Option<Handle> {
    let nonce = session()?;
    if (raw >> NONCE_SHIFT) & 0xFFFF != nonce as usize {
        return None;
    }
    peek(raw)
}
