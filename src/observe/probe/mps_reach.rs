//! Whether an MPS daemon serves a pipe directory, checked before any client runs there.
//!
//! A CUDA client whose pipe directory has no daemon does not fail: it "continues to run as it
//! normally would without MPS" (the MPS manual), on the whole GPU. A probe run there would measure
//! the whole GPU and blame the share, so the probe refuses it instead.

use crate::sharing::mps::control::{MpsControl, PROGRAM, SendError};
use std::path::Path;
use std::time::Duration;

/// What was found in the pipe directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reach {
    /// The daemon answered.
    Answers,
    /// Its `control` socket is there, but nothing could ask the daemon (no control program on
    /// PATH, or no answer in time): the clients run and show what they get.
    Unchecked(String),
    /// No daemon: CUDA would run the clients without MPS.
    NoDaemon(String),
}

/// Look at `pipe_dir`: its `control` socket, then the daemon's answer to `get_server_list`
/// through `nvidia-cuda-mps-control` when it is on PATH.
pub(crate) fn check(pipe_dir: &Path, timeout: Duration) -> Reach {
    let control = pipe_dir.join("control");
    if std::fs::symlink_metadata(&control).is_err() {
        return Reach::NoDaemon(format!(
            "no MPS daemon in {}: it has no `control` socket",
            pipe_dir.display()
        ));
    }
    let program = match MpsControl::find(timeout) {
        Ok(p) => p,
        Err(_) => {
            return Reach::Unchecked(format!(
                "{PROGRAM} is not on PATH, so whether the daemon of {} answers was not checked",
                pipe_dir.display()
            ));
        }
    };
    match program.send(pipe_dir, "get_server_list") {
        Ok(_) => Reach::Answers,
        Err(e @ SendError::NoDaemon(_)) => Reach::NoDaemon(format!(
            "no MPS daemon answers in {}: {e}",
            pipe_dir.display()
        )),
        Err(e) => Reach::Unchecked(format!(
            "the MPS daemon of {} was not reached ({e}); probing it anyway",
            pipe_dir.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_dir_without_a_control_socket_has_no_daemon() {
        let dir = tempfile::tempdir().unwrap();
        let r = check(dir.path(), Duration::from_secs(5));
        let Reach::NoDaemon(why) = r else {
            panic!("{r:?}")
        };
        assert!(why.contains("has no `control` socket"), "{why}");
    }
}
