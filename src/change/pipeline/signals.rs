//! SIGINT and SIGTERM while `apply` changes the node: the step in flight finishes, then the run
//! stops and says how far it got. A second signal takes its default action (the process ends at
//! once): the handler is installed with SA_RESETHAND.
//!
//! Traps nest: the node agent holds one for its whole life and each run it starts installs its
//! own; only the outermost one installs the handler and, when dropped, restores the defaults.

use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};

/// The signal received, 0 for none. Only the handler writes it (and the outermost install).
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// How many traps live.
static DEPTH: AtomicUsize = AtomicUsize::new(0);

const SIGNALS: [libc::c_int; 2] = [libc::SIGINT, libc::SIGTERM];

extern "C" fn on_signal(signal: libc::c_int) {
    RECEIVED.store(signal, Ordering::SeqCst);
    let text = b"\ngpushare: stopping after the step in flight (a second signal stops at once)\n";
    // SAFETY: write(2) is async-signal-safe; the buffer is a static byte string.
    unsafe {
        libc::write(libc::STDERR_FILENO, text.as_ptr().cast(), text.len());
    }
}

/// Catches the signals while it lives; the default actions come back when it is dropped.
pub(crate) struct Trap {
    _private: (),
}

impl Trap {
    pub(crate) fn install() -> Trap {
        if DEPTH.fetch_add(1, Ordering::SeqCst) > 0 {
            // An outer trap catches the signals already (and keeps what it received).
            return Trap { _private: () };
        }
        RECEIVED.store(0, Ordering::SeqCst);
        for signal in SIGNALS {
            // SAFETY: a zeroed sigaction is valid; the handler only stores an atomic and calls
            // write(2), both async-signal-safe. SA_RESTART keeps blocking calls (waiting for a
            // child) from failing with EINTR.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                action.sa_flags = libc::SA_RESTART | libc::SA_RESETHAND;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
        Trap { _private: () }
    }

    /// The name of the signal received since [`Trap::install`], if any.
    pub(crate) fn received(&self) -> Option<&'static str> {
        name(RECEIVED.load(Ordering::SeqCst))
    }
}

impl Drop for Trap {
    fn drop(&mut self) {
        if DEPTH.fetch_sub(1, Ordering::SeqCst) > 1 {
            return;
        }
        for signal in SIGNALS {
            // SAFETY: restoring the default disposition.
            unsafe {
                libc::signal(signal, libc::SIG_DFL);
            }
        }
    }
}

/// The signal a trap caught, if any: for waits that are not given the trap (a hook running).
pub(crate) fn received() -> Option<&'static str> {
    if DEPTH.load(Ordering::SeqCst) == 0 {
        return None;
    }
    name(RECEIVED.load(Ordering::SeqCst))
}

fn name(signal: libc::c_int) -> Option<&'static str> {
    match signal {
        libc::SIGINT => Some("SIGINT"),
        libc::SIGTERM => Some("SIGTERM"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_is_recorded_and_the_default_comes_back() {
        let trap = Trap::install();
        assert_eq!(trap.received(), None);
        // SAFETY: raise(3) runs the handler installed above, in this thread.
        unsafe {
            libc::raise(libc::SIGTERM);
        }
        assert_eq!(trap.received(), Some("SIGTERM"));
        // A nested trap keeps what the outer one received, and leaves the handling to it.
        let inner = Trap::install();
        assert_eq!(inner.received(), Some("SIGTERM"));
        drop(inner);
        assert_eq!(trap.received(), Some("SIGTERM"));
        drop(trap);
        // SAFETY: a plain C struct, all zeroes, that the call below fills.
        let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
        // SAFETY: reading the current disposition only.
        unsafe {
            libc::sigaction(libc::SIGTERM, std::ptr::null(), &mut old);
        }
        assert_eq!(old.sa_sigaction, libc::SIG_DFL);
    }
}
