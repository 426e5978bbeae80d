//! mig-parted's hooks file (`--hooks-file`, env `MIG_PARTED_HOOKS_FILE`), read unchanged:
//!
//! ```yaml
//! version: v1
//! hooks:
//!   apply-start:
//!   - workdir: "/etc/nvidia-mig-manager"
//!     command: "/bin/bash"
//!     args: ["-x", "-c", "source hooks.sh; apply-start ${MIG_PARTED_SELECTED_CONFIG}"]
//!     envs: { KEY: value }
//! ```
//!
//! Four hooks run, at mig-parted's points (the planner puts them in the plan): `apply-start`
//! first, `pre-apply-mode` right before MIG mode changes, `pre-apply-config` right before MIG
//! instances change, `apply-exit` last, also after a failure. A hook's commands run in order;
//! the first that fails stops the hook. Each command gets exactly mig-parted's environment: the
//! hook's `envs` and one variable per flag of `mig apply` (the flags win), nothing inherited (not
//! even `PATH`).

use crate::change::pipeline::signals;
use crate::support::error::{Error, Result};
use crate::support::output::Output;
use crate::support::source_file::SourceFile;
use serde::Deserialize;
use serde_saphyr::Spanned;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Where in a run a hook runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum HookPoint {
    ApplyStart,
    PreApplyMode,
    PreApplyConfig,
    ApplyExit,
}

impl HookPoint {
    pub(crate) const ALL: [HookPoint; 4] = [
        HookPoint::ApplyStart,
        HookPoint::PreApplyMode,
        HookPoint::PreApplyConfig,
        HookPoint::ApplyExit,
    ];

    /// The name in the hooks file.
    pub(crate) fn name(self) -> &'static str {
        match self {
            HookPoint::ApplyStart => "apply-start",
            HookPoint::PreApplyMode => "pre-apply-mode",
            HookPoint::PreApplyConfig => "pre-apply-config",
            HookPoint::ApplyExit => "apply-exit",
        }
    }
}

/// One command of a hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HookCommand {
    pub command: String,
    pub args: Vec<String>,
    pub envs: BTreeMap<String, String>,
    /// Empty: the current directory.
    pub workdir: String,
}

/// The variables mig-parted gives every hook: one per flag of `apply` that has one, set to the
/// flag's value (booleans `true`/`false`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct FlagValues {
    pub config_file: String,
    pub selected_config: String,
    pub hooks_file: String,
    pub skip_reset: bool,
    pub mode_only: bool,
}

impl FlagValues {
    fn vars(&self) -> BTreeMap<String, String> {
        [
            ("MIG_PARTED_CONFIG_FILE", self.config_file.clone()),
            ("MIG_PARTED_SELECTED_CONFIG", self.selected_config.clone()),
            ("MIG_PARTED_HOOKS_FILE", self.hooks_file.clone()),
            ("MIG_PARTED_SKIP_RESET", self.skip_reset.to_string()),
            ("MIG_PARTED_MODE_CHANGE_ONLY", self.mode_only.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

/// A checked hooks file and the flag values its commands get.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hooks {
    pub path: PathBuf,
    by_point: BTreeMap<HookPoint, Vec<HookCommand>>,
    flags: FlagValues,
    /// How long one hook command may run (`--hooks-timeout`).
    pub timeout: Duration,
}

/// A hook stops and starts host services: minutes at most. One that runs longer is stuck.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// One hook, ready to run: what a plan change carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hook {
    pub point: HookPoint,
    pub commands: Vec<HookCommand>,
    /// The variables of [`FlagValues`].
    pub vars: BTreeMap<String, String>,
    /// How long one command may run; then it is killed (its process group) and the hook fails.
    pub timeout: Duration,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    version: Option<Spanned<String>>,
    #[serde(default)]
    hooks: Option<BTreeMap<String, Option<Vec<RawCommand>>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCommand {
    command: Spanned<String>,
    #[serde(default)]
    args: Option<Vec<String>>,
    #[serde(default)]
    envs: Option<BTreeMap<String, String>>,
    #[serde(default)]
    workdir: Option<String>,
}

/// The largest hooks file read (mig-parted's are a few hundred bytes).
const MAX_BYTES: usize = 1024 * 1024;

impl Hooks {
    /// Read and check a hooks file. `flags.hooks_file` is set to `path` as given.
    pub(crate) fn load(path: &Path, flags: FlagValues, out: &Output) -> Result<Hooks> {
        Self::parse(&SourceFile::read(path)?, flags, out)
    }

    pub(crate) fn parse(source: &SourceFile, mut flags: FlagValues, out: &Output) -> Result<Hooks> {
        if source.text.len() > MAX_BYTES {
            return Err(source.error_at_start("a hooks file is at most 1 MiB"));
        }
        let raw: RawFile = source.parse_yaml()?;
        let at = |s: &Spanned<String>| {
            Some((s.referenced.line() as usize, s.referenced.column() as usize))
        };
        let hint = "mig-parted's hooks files start with `version: v1`";
        match &raw.version {
            Some(v) if v.value == "v1" => {}
            Some(v) => {
                return Err(Error::in_file(
                    &source.path,
                    at(v),
                    format!("version `{}`: only v1 exists", v.value),
                )
                .with_hint(hint));
            }
            None => return Err(source.error_at_start("no `version`").with_hint(hint)),
        }
        let mut by_point = BTreeMap::new();
        for (name, commands) in raw.hooks.unwrap_or_default() {
            let Some(point) = HookPoint::ALL.into_iter().find(|p| p.name() == name) else {
                out.warn(format!(
                    "{}: hook `{name}` never runs (mig-parted and gpushare run {})",
                    source.path.display(),
                    HookPoint::ALL.map(HookPoint::name).join(", ")
                ));
                continue;
            };
            let mut list = Vec::new();
            for c in commands.unwrap_or_default() {
                let bad = |why: String| {
                    Error::in_file(
                        &source.path,
                        at(&c.command),
                        format!("hook `{name}`: {why}"),
                    )
                };
                if c.command.value.is_empty() {
                    return Err(bad("the command is empty".into()));
                }
                let envs = c.envs.unwrap_or_default();
                let args = c.args.unwrap_or_default();
                let bad_env = envs
                    .keys()
                    .find(|k| k.is_empty() || k.contains('=') || k.contains('\0'));
                if let Some(k) = bad_env {
                    return Err(bad(format!("`{k}` is not a variable name")));
                }
                let has_nul = std::iter::once(&c.command.value)
                    .chain(&args)
                    .chain(envs.values())
                    .chain(c.workdir.iter())
                    .any(|s| s.contains('\0'));
                if has_nul {
                    return Err(bad("a NUL byte in the command".into()));
                }
                list.push(HookCommand {
                    command: c.command.value,
                    args,
                    envs,
                    workdir: c.workdir.unwrap_or_default(),
                });
            }
            by_point.insert(point, list);
        }
        flags.hooks_file = source.path.display().to_string();
        Ok(Hooks {
            path: source.path.clone(),
            by_point,
            flags,
            timeout: DEFAULT_TIMEOUT,
        })
    }

    /// The hook to run at `point`; `None` when the file has none there (it is skipped).
    pub(crate) fn at(&self, point: HookPoint) -> Option<Hook> {
        let commands = self.by_point.get(&point)?;
        Some(Hook {
            point,
            commands: commands.clone(),
            vars: self.flags.vars(),
            timeout: self.timeout,
        })
    }
}

impl HookCommand {
    /// `/bin/bash -x -c 'source hooks.sh; pre-apply-mode'`, for messages.
    pub(crate) fn describe(&self) -> String {
        std::iter::once(self.command.as_str())
            .chain(self.args.iter().map(String::as_str))
            .map(|w| {
                if !w.is_empty()
                    && w.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_./=:,".contains(c))
                {
                    w.to_string()
                } else {
                    format!("'{}'", w.replace('\'', "'\\''"))
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The environment mig-parted gives it: the hook's `envs`, then the flags' variables over
    /// them.
    fn environment(&self, vars: &BTreeMap<String, String>) -> BTreeMap<String, String> {
        let mut env = self.envs.clone();
        env.extend(vars.iter().map(|(k, v)| (k.clone(), v.clone())));
        env
    }

    fn run(
        &self,
        vars: &BTreeMap<String, String>,
        timeout: Duration,
        out: &Output,
    ) -> std::result::Result<(), String> {
        // As exec.Command does: a name without a slash is looked up on gpushare's PATH.
        let program = if self.command.contains('/') {
            PathBuf::from(&self.command)
        } else {
            which::which(&self.command).map_err(|_| format!("`{}` is not on PATH", self.command))?
        };
        let mut expr = duct::cmd(&program, &self.args)
            .full_env(self.environment(vars))
            .stdin_null()
            .unchecked()
            // Its own process group, so that a timeout ends what it started too.
            .before_spawn(|cmd| {
                std::os::unix::process::CommandExt::process_group(cmd, 0);
                Ok(())
            });
        if !self.workdir.is_empty() {
            expr = expr.dir(&self.workdir);
        }
        // Data goes to stdout: what a hook prints is a message, on stderr.
        expr = if out.quiet {
            expr.stdout_null()
        } else {
            expr.stdout_to_stderr()
        };
        let handle = expr
            .start()
            .map_err(|e| format!("cannot run {}: {e}", self.describe()))?;
        let deadline = Instant::now() + timeout;
        let output = loop {
            match handle.try_wait() {
                Ok(Some(output)) => break output,
                // SIGINT or SIGTERM: the hook is asked to stop, then made to, and the run
                // stops after this step as it would after any other.
                Ok(None) if signals::received().is_some() => {
                    let signal = signals::received().unwrap_or("a signal");
                    end_group(&handle, libc::SIGTERM);
                    let grace = Instant::now() + SIGNAL_GRACE;
                    while Instant::now() < grace && matches!(handle.try_wait(), Ok(None)) {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    end_group(&handle, libc::SIGKILL);
                    let _ = handle.wait();
                    return Err(format!(
                        "{} was stopped: gpushare received {signal} while it ran",
                        self.describe()
                    ));
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Ok(None) => {
                    end_group(&handle, libc::SIGKILL);
                    let _ = handle.wait();
                    return Err(format!(
                        "{} did not finish within {}s and was killed (--hooks-timeout)",
                        self.describe(),
                        timeout.as_secs()
                    ));
                }
                Err(e) => return Err(format!("cannot wait for {}: {e}", self.describe())),
            }
        };
        if output.status.success() {
            return Ok(());
        }
        Err(match output.status.code() {
            Some(code) => format!("{} exited with status {code}", self.describe()),
            None => format!("{} was killed by a signal", self.describe()),
        })
    }
}

/// How long a hook has to end after gpushare passes it a SIGTERM it received.
const SIGNAL_GRACE: Duration = Duration::from_secs(1);

/// Send `signal` to the hook's process group (its own, made when it started).
fn end_group(handle: &duct::Handle, signal: libc::c_int) {
    for pid in handle.pids() {
        if let Ok(pid) = libc::pid_t::try_from(pid) {
            // SAFETY: kill(2) with a negative pid signals that process group, the hook's own;
            // no memory is involved.
            unsafe { libc::kill(-pid, signal) };
        }
    }
}

impl Hook {
    /// `apply-start (1 command)`, for the plan.
    pub(crate) fn describe(&self) -> String {
        match self.commands.as_slice() {
            [] => format!("{}: no command", self.point.name()),
            [one] => format!("{}: {}", self.point.name(), one.describe()),
            many => format!("{}: {} commands", self.point.name(), many.len()),
        }
    }

    /// Run the commands in order; the first that fails stops the hook, with mig-parted's message.
    pub(crate) fn run(&self, out: &Output) -> Result<()> {
        for command in &self.commands {
            command.run(&self.vars, self.timeout, out).map_err(|why| {
                Error::failed(format!("error running {} hook: {why}", self.point.name()))
                    .with_hint("fix the hook (or its hooks file), then run the same command again")
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
