//! Running one of the host's programs (systemctl, modprobe, mdevctl) for one step: stdin empty,
//! its output captured, and when it fails that output is the reason.

use std::path::Path;

/// Run `program ARGS`; `Err` says which call failed, how, and what it printed.
pub(crate) fn run(program: &Path, args: &[&str]) -> Result<(), String> {
    let name = program.file_name().map_or_else(
        || program.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let out = duct::cmd(program, args)
        .stdin_null()
        .stderr_to_stdout()
        .stdout_capture()
        .unchecked()
        .run()
        .map_err(|e| format!("cannot run {name}: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let how = out
        .status
        .code()
        .map_or_else(|| "killed".to_string(), |c| format!("status {c}"));
    Err(match text.trim() {
        "" => format!("`{name} {}` failed ({how})", args.join(" ")),
        text => format!("`{name} {}` failed ({how}): {text}", args.join(" ")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_says_what_the_program_printed() {
        assert!(run(Path::new("/bin/true"), &[]).is_ok());
        let e = run(Path::new("/bin/sh"), &["-c", "echo nope >&2; exit 3"]).unwrap_err();
        assert_eq!(e, "`sh -c echo nope >&2; exit 3` failed (status 3): nope");
        assert!(
            run(Path::new("/nonexistent/x"), &[])
                .unwrap_err()
                .starts_with("cannot run x")
        );
    }
}
