//! What a running daemon says about itself: its servers and their clients, and the limits it
//! reports. The answers are parsed leniently, since their exact text varies between drivers.

use super::control::{MpsControl, daemon_pid};
use super::process;
use super::settings::DaemonSpec;
use crate::support::output::parse_size_mib;
use serde::Serialize;

/// The command that tells whether a daemon answers (k8s-device-plugin's health check).
pub(crate) const PING: &str = "get_default_active_thread_percentage";

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct DaemonState {
    /// The daemon answered.
    pub running: bool,
    /// Why it did not answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The control daemon's pid (from its pid file).
    pub pid: Option<u32>,
    /// The default active thread percentage it reports.
    pub reported_thread_percentage: Option<f64>,
    /// The pinned-memory limit it reports per ordinal.
    pub reported_memory_limits: Vec<ReportedLimit>,
    pub servers: Vec<Server>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ReportedLimit {
    pub ordinal: u32,
    /// The answer as the daemon gave it.
    pub reply: String,
    /// The answer in MiB, when it reads as a size.
    pub mib: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Server {
    pub pid: u32,
    pub clients: Vec<Client>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Client {
    pub pid: u32,
    /// Its command name, when the process is visible here.
    pub name: Option<String>,
}

impl Client {
    /// `python (pid 4242)`.
    pub(crate) fn describe(&self) -> String {
        format!("{} (pid {})", self.name.as_deref().unwrap_or("?"), self.pid)
    }
}

impl DaemonState {
    pub(crate) fn clients(&self) -> impl Iterator<Item = &Client> {
        self.servers.iter().flat_map(|s| s.clients.iter())
    }
}

/// Ask the daemon of `spec` everything `mps status` shows.
pub(crate) fn query(control: &MpsControl, spec: &DaemonSpec) -> DaemonState {
    let pipe = &spec.pipe_dir;
    let mut state = DaemonState {
        running: false,
        error: None,
        pid: daemon_pid(pipe),
        reported_thread_percentage: None,
        reported_memory_limits: Vec::new(),
        servers: Vec::new(),
    };
    match control.send(pipe, PING) {
        Ok(reply) => {
            state.running = true;
            state.reported_thread_percentage = parse_percentage(&reply);
        }
        Err(e) => {
            state.error = Some(e.to_string());
            return state;
        }
    }
    let mut problem = None;
    match servers(control, spec) {
        Ok(servers) => state.servers = servers,
        Err(e) => problem = Some(e),
    }
    for device in &spec.devices {
        let command = format!("get_default_device_pinned_mem_limit {}", device.ordinal);
        match control.send(pipe, &command) {
            Ok(reply) => state.reported_memory_limits.push(ReportedLimit {
                ordinal: device.ordinal,
                mib: parse_reported_mib(&reply),
                reply,
            }),
            Err(e) => problem = Some(format!("`{command}`: {e}")),
        }
    }
    state.error = problem;
    state
}

/// The daemon's servers and their clients.
pub(crate) fn servers(control: &MpsControl, spec: &DaemonSpec) -> Result<Vec<Server>, String> {
    let list = control
        .send(&spec.pipe_dir, "get_server_list")
        .map_err(|e| format!("`get_server_list`: {e}"))?;
    let mut servers = Vec::new();
    for pid in parse_pids(&list) {
        let command = format!("get_client_list {pid}");
        let reply = control
            .send(&spec.pipe_dir, &command)
            .map_err(|e| format!("`{command}`: {e}"))?;
        let clients = parse_pids(&reply)
            .into_iter()
            .map(|pid| Client {
                pid,
                name: process::name(pid),
            })
            .collect();
        servers.push(Server { pid, clients });
    }
    Ok(servers)
}

/// PIDs, one per line; lines that are not numbers (messages) are skipped.
pub(crate) fn parse_pids(text: &str) -> Vec<u32> {
    text.lines().filter_map(|l| l.trim().parse().ok()).collect()
}

/// `25.0` → 25.0: the first number in the answer.
pub(crate) fn parse_percentage(text: &str) -> Option<f64> {
    text.split(|c: char| c.is_whitespace() || c == '%' || c == ':')
        .find_map(|t| t.parse::<f64>().ok())
        .filter(|v| v.is_finite())
}

/// A size in the answer, in MiB: `3840M`, `3G`, `8 GiB`, `limit: 512MB`. The last number wins,
/// so a leading device number does not count.
pub(crate) fn parse_reported_mib(text: &str) -> Option<u64> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    for (i, token) in tokens.iter().enumerate().rev() {
        let token = token.trim_end_matches([',', '.', ';']);
        if !token.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let with_unit = if token.ends_with(|c: char| c.is_ascii_digit()) {
            match tokens.get(i + 1) {
                Some(unit) if unit.chars().all(|c| c.is_ascii_alphabetic()) => {
                    format!("{token}{unit}")
                }
                _ => token.to_string(),
            }
        } else {
            token.to_string()
        };
        return parse_size_mib(&with_unit).ok();
    }
    None
}

/// The unit of a reported size, in MiB: answers in whole GiB can only be compared to the GiB.
pub(crate) fn reported_granularity_mib(text: &str) -> u64 {
    let lower = text.to_ascii_lowercase();
    if lower.contains('g') && !lower.contains('m') {
        1024
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pid_lists_skip_messages() {
        assert_eq!(parse_pids("123\n 456 \n"), vec![123, 456]);
        assert!(parse_pids("").is_empty());
        assert!(parse_pids("No servers").is_empty());
    }

    #[test]
    fn percentages_read_as_the_daemon_prints_them() {
        assert_eq!(parse_percentage("25.0"), Some(25.0));
        assert_eq!(parse_percentage("100"), Some(100.0));
        assert_eq!(parse_percentage("nope"), None);
    }

    #[test]
    fn memory_answers_in_several_spellings() {
        assert_eq!(parse_reported_mib("3840M"), Some(3840));
        assert_eq!(parse_reported_mib("3G"), Some(3072));
        assert_eq!(
            parse_reported_mib("Device 0 default pinned memory limit: 8 GiB"),
            Some(8192)
        );
        assert_eq!(parse_reported_mib("0 512MB"), Some(512));
        assert_eq!(parse_reported_mib("no limit"), None);
        assert_eq!(parse_reported_mib("0"), None);
        assert_eq!(reported_granularity_mib("3G"), 1024);
        assert_eq!(reported_granularity_mib("3840M"), 1);
    }
}
