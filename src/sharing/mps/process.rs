//! The few things gpushare asks the kernel about a daemon's processes: alive, name, signal.

use std::path::Path;

/// Whether `pid` is a live process (a zombie counts as gone: it runs nothing).
pub(crate) fn alive(pid: u32) -> bool {
    let Ok(pid_t) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid_t <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists; nothing is delivered.
    let rc = unsafe { libc::kill(pid_t, 0) };
    let exists = rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    exists && !zombie(pid)
}

fn zombie(pid: u32) -> bool {
    crate::support::fsutil::read_host(Path::new(&format!("/proc/{pid}/stat")))
        .ok()
        .flatten()
        .and_then(|stat| {
            // The state follows the command name, which is in parentheses and may hold spaces.
            let after = &stat[stat.rfind(')')? + 1..];
            after.split_whitespace().next().map(|s| s == "Z")
        })
        .unwrap_or(false)
}

/// The command name of a process (`/proc/<pid>/comm`).
pub(crate) fn name(pid: u32) -> Option<String> {
    crate::support::fsutil::read_host(&Path::new("/proc").join(pid.to_string()).join("comm"))
        .ok()
        .flatten()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// Send SIGTERM (or SIGKILL when `kill` is set) to `pid`.
pub(crate) fn signal(pid: u32, kill: bool) {
    let Ok(pid_t) = libc::pid_t::try_from(pid) else {
        return;
    };
    if pid_t <= 0 {
        return;
    }
    let sig = if kill { libc::SIGKILL } else { libc::SIGTERM };
    // SAFETY: sends a signal to one positive pid; the result is checked by the caller's wait.
    unsafe {
        libc::kill(pid_t, sig);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sees_live_processes_and_their_names() {
        let me = std::process::id();
        assert!(alive(me));
        assert!(name(me).is_some());
        assert!(!alive(0));
        assert!(!alive(u32::MAX));
    }

    #[test]
    fn a_terminated_child_is_gone() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = child.id();
        assert!(alive(pid));
        assert_eq!(name(pid).as_deref(), Some("sleep"));
        signal(pid, false);
        // Not yet reaped: a zombie, which counts as gone.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while alive(pid) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(!alive(pid));
        let _ = child.wait();
    }
}
