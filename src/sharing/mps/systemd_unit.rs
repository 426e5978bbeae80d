//! The systemd unit that starts gpushare's MPS daemons at boot with the same settings.
//!
//! `ExecStart` runs `gpushare mps start` itself, so the compute mode, the limits, the checks and
//! `settings.json` are exactly what the command does by hand. With one daemon the unit is
//! `Type=forking` and follows the daemon through its pid file (and restarts it if it dies); with
//! several (MIG devices) it is a `oneshot` that stays active. Ordered after
//! nvidia-persistenced and before kubelet, so pods never meet a node without MPS.

use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct UnitSpec {
    /// `gpushare-mps.service`.
    pub name: String,
    pub description: String,
    /// Absolute path of the gpushare binary.
    pub program: PathBuf,
    /// Arguments of `ExecStart` after the program (`mps start …`).
    pub start_args: Vec<String>,
    /// Arguments of `ExecStop` after the program (`mps stop …`).
    pub stop_args: Vec<String>,
    /// The daemon's pid file when the unit runs exactly one daemon.
    pub pid_file: Option<PathBuf>,
    /// Directories under `/run` the unit owns (`RuntimeDirectory=`, relative to `/run`).
    pub runtime_dirs: Vec<String>,
    /// Their mode: the daemon directory's (`mps::dirs::Modes`), root-only unless `--multiuser`.
    pub runtime_dir_mode: u32,
}

/// Open files an MPS server needs: its SHM segments fail below this (MPS docs).
const LIMIT_NOFILE: u32 = 16384;

impl UnitSpec {
    pub(crate) fn render(&self) -> String {
        let mut s = String::new();
        s.push_str(
            "# Written by gpushare (`gpushare mps unit`); regenerate it rather than edit it.\n",
        );
        s.push_str("[Unit]\n");
        s.push_str(&format!("Description={}\n", self.description));
        s.push_str("Documentation=man:gpushare(1)\n");
        s.push_str("After=nvidia-persistenced.service\n");
        s.push_str("Before=kubelet.service\n");
        s.push('\n');
        s.push_str("[Service]\n");
        match &self.pid_file {
            Some(pid_file) => {
                s.push_str("Type=forking\n");
                s.push_str(&format!("PIDFile={}\n", quote(&pid_file.to_string_lossy())));
                s.push_str("Restart=on-failure\n");
                s.push_str("RestartSec=5\n");
            }
            None => {
                s.push_str("Type=oneshot\n");
                s.push_str("RemainAfterExit=yes\n");
            }
        }
        if !self.runtime_dirs.is_empty() {
            let dirs: Vec<String> = self.runtime_dirs.iter().map(|d| quote(d)).collect();
            s.push_str(&format!("RuntimeDirectory={}\n", dirs.join(" ")));
            s.push_str(&format!(
                "RuntimeDirectoryMode={:04o}\n",
                self.runtime_dir_mode
            ));
            s.push_str("RuntimeDirectoryPreserve=restart\n");
        }
        s.push_str(&format!("ExecStart={}\n", self.command(&self.start_args)));
        s.push_str(&format!("ExecStop={}\n", self.command(&self.stop_args)));
        s.push_str(&format!("LimitNOFILE={LIMIT_NOFILE}\n"));
        s.push_str("TimeoutStartSec=120\n");
        s.push('\n');
        s.push_str("[Install]\n");
        s.push_str("WantedBy=multi-user.target\n");
        s
    }

    fn command(&self, args: &[String]) -> String {
        std::iter::once(quote(&self.program.to_string_lossy()))
            .chain(args.iter().map(|a| quote(a)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// What to run once the unit is installed.
    pub(crate) fn enable_commands(&self) -> Vec<String> {
        vec![
            "systemctl daemon-reload".to_string(),
            format!("systemctl enable --now {}", self.name),
        ]
    }
}

/// One word of a systemd command line: specifiers (`%`) and variables (`$`) escaped, and
/// double quotes around anything with spaces, quotes or backslashes.
pub(crate) fn quote(word: &str) -> String {
    let escaped = word.replace('%', "%%").replace('$', "$$");
    let plain = !escaped.is_empty()
        && escaped
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,@+%$".contains(c));
    if plain {
        return escaped;
    }
    let mut out = String::from("\"");
    for c in escaped.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `gpushare/mps/gpu0-3` for `/run/gpushare/mps/gpu0-3`; `None` outside `/run`.
pub(crate) fn runtime_dir(dir: &Path) -> Option<String> {
    let rest = dir.strip_prefix("/run").ok()?;
    let text = rest.to_str()?;
    (!text.is_empty()).then(|| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(pid_file: Option<&str>) -> UnitSpec {
        UnitSpec {
            name: "gpushare-mps.service".into(),
            description: "NVIDIA MPS for GPUs 0-3 (gpushare)".into(),
            program: PathBuf::from("/usr/local/bin/gpushare"),
            start_args: vec!["mps".into(), "start".into(), "--clients".into(), "4".into()],
            stop_args: vec!["mps".into(), "stop".into(), "--force".into()],
            pid_file: pid_file.map(PathBuf::from),
            runtime_dirs: vec!["gpushare/mps/gpu0-3".into()],
            runtime_dir_mode: 0o700,
        }
    }

    #[test]
    fn one_daemon_is_followed_through_its_pid_file() {
        let text = spec(Some(
            "/run/gpushare/mps/gpu0-3/pipe/nvidia-cuda-mps-control.pid",
        ))
        .render();
        assert!(text.contains("Type=forking\n"), "{text}");
        assert!(
            text.contains("PIDFile=/run/gpushare/mps/gpu0-3/pipe/nvidia-cuda-mps-control.pid\n")
        );
        assert!(text.contains("ExecStart=/usr/local/bin/gpushare mps start --clients 4\n"));
        assert!(text.contains("ExecStop=/usr/local/bin/gpushare mps stop --force\n"));
        assert!(text.contains("After=nvidia-persistenced.service\nBefore=kubelet.service\n"));
        assert!(text.contains("RuntimeDirectory=gpushare/mps/gpu0-3\n"));
        assert!(text.contains("LimitNOFILE=16384\n"));
        assert!(text.ends_with("[Install]\nWantedBy=multi-user.target\n"));
    }

    #[test]
    fn several_daemons_make_a_oneshot() {
        let text = spec(None).render();
        assert!(
            text.contains("Type=oneshot\nRemainAfterExit=yes\n"),
            "{text}"
        );
        assert!(!text.contains("PIDFile"));
    }

    #[test]
    fn words_are_quoted_for_systemd() {
        assert_eq!(
            quote("/etc/gpushare/gpushare.toml"),
            "/etc/gpushare/gpushare.toml"
        );
        assert_eq!(quote("/srv/my dir"), "\"/srv/my dir\"");
        assert_eq!(quote("50%"), "50%%");
        assert_eq!(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(quote("$HOME"), "$$HOME");
        assert_eq!(quote(""), "\"\"");
    }

    #[test]
    fn only_run_dirs_are_runtime_directories() {
        assert_eq!(
            runtime_dir(Path::new("/run/gpushare/mps/gpu0")).as_deref(),
            Some("gpushare/mps/gpu0")
        );
        assert_eq!(runtime_dir(Path::new("/tmp/x/run/gpushare")), None);
        assert_eq!(runtime_dir(Path::new("/run")), None);
    }
}
