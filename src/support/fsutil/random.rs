//! Unpredictable names: temp files an attacker must not be able to plant in advance.

use std::io::Read;

/// `n` random bytes from the kernel: `/dev/urandom`, else the getrandom(2) system call (called
/// directly, so the binary keeps its old glibc baseline).
pub(crate) fn bytes(n: usize) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0u8; n];
    let from_device = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut buf));
    if from_device.is_ok() {
        return Ok(buf);
    }
    // SAFETY: getrandom writes at most `buf.len()` bytes into the buffer it is given, which lives
    // for the whole call.
    let got = unsafe { libc::syscall(libc::SYS_getrandom, buf.as_mut_ptr(), buf.len(), 0) };
    if got == buf.len() as libc::c_long {
        Ok(buf)
    } else {
        from_device.map(|_| buf)
    }
}

/// 16 random hexadecimal digits (64 bits).
pub(crate) fn hex64() -> std::io::Result<String> {
    Ok(bytes(8)?.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_differ_each_time() {
        let a = super::hex64().unwrap();
        let b = super::hex64().unwrap();
        assert_eq!(a.len(), 16);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
