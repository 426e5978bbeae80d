//! `gpushare completions` and `gpushare man`: generated from the clap definition, so they never
//! drift from the real options (the committed copies are checked by a test). `man --dir` writes
//! a page per command, as `man gpushare-init` expects.

use crate::node::Context;
use crate::support::error::{Error, Exit, Result};

pub(super) fn completions(ctx: &mut Context, shell: clap_complete::Shell) -> Result<Exit> {
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut super::cli::command(), "gpushare", &mut buf);
    ctx.out.stdout(&String::from_utf8_lossy(&buf))?;
    Ok(Exit::Ok)
}

pub(super) fn man(ctx: &mut Context, dir: Option<&std::path::Path>) -> Result<Exit> {
    let mut root = super::cli::command().disable_help_subcommand(true);
    root.build();
    let Some(dir) = dir else {
        ctx.out.stdout(&page(root)?)?;
        return Ok(Exit::Ok);
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::failed(format!("cannot create {}: {e}", dir.display())))?;
    let mut all = Vec::new();
    every_command(root, &mut all);
    for cmd in &all {
        let path = dir.join(clap_mangen::Man::new(cmd.clone()).get_filename());
        crate::support::fsutil::write_atomic(&path, page(cmd.clone())?.as_bytes(), 0o644)
            .map_err(|e| Error::failed(format!("cannot write {}: {e}", path.display())))?;
    }
    ctx.out.note(format!(
        "{} man pages written to {}",
        all.len(),
        dir.display()
    ));
    Ok(Exit::Ok)
}

/// `cmd` and every visible command under it (built: each named `gpushare-mig-apply`).
fn every_command(cmd: clap::Command, out: &mut Vec<clap::Command>) {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        every_command(sub.clone(), out);
    }
    out.push(cmd);
}

/// The exit codes every command uses (`crate::support::error::Exit`), as a man page's EXIT STATUS.
const EXIT_STATUS: &str = r#".SH "EXIT STATUS"
.TP
\fB0\fR
Success: what was asked is done, and checked against the node.
.TP
\fB1\fR
An operation failed (the message says which, and what was done).
.TP
\fB2\fR
Invalid usage or input (a flag, a file at line:column, an object's field); nothing was changed.
.TP
\fB3\fR
The node differs from the desired state, or a verification (the probe, a check) failed.
.TP
\fB4\fR
No NVIDIA driver, NVML or CUDA where one is needed.
.TP
\fB5\fR
A reboot is required to finish.
"#;

/// The roff of one page: clap's sections, then the exit codes.
fn page(cmd: clap::Command) -> Result<String> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd)
        .source(format!("gpushare {}", env!("CARGO_PKG_VERSION")))
        .render(&mut buf)
        .map_err(|e| Error::failed(format!("cannot render the man page: {e}")))?;
    let mut text = String::from_utf8_lossy(&buf).into_owned();
    text.push_str(EXIT_STATUS);
    Ok(text)
}
