//! `gpushare completions` and `gpushare man`: generated from the clap definition, so they never
//! drift from the real options (the committed copies are checked by a test).

use crate::Context;
use crate::error::{Error, Exit, Result};

pub(super) fn completions(ctx: &mut Context, shell: clap_complete::Shell) -> Result<Exit> {
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut crate::command(), "gpushare", &mut buf);
    ctx.out.stdout(&String::from_utf8_lossy(&buf))?;
    Ok(Exit::Ok)
}

pub(super) fn man(ctx: &mut Context) -> Result<Exit> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(crate::command())
        .render(&mut buf)
        .map_err(|e| Error::failed(format!("cannot render the man page: {e}")))?;
    ctx.out.stdout(&String::from_utf8_lossy(&buf))?;
    Ok(Exit::Ok)
}
