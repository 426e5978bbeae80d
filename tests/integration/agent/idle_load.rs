//! What idle agents ask of the API server: once each has brought its node to its layout (and
//! published the MIG state of a node that opts in to MIG on demand), nothing but their watches.
//! The API server's audit log names each request's user and verb, so the count is the server's,
//! not the agent's own. `bench/agents-idle.sh` runs `idle_agents_bench` with 100 agents and
//! prints the figures.

use super::agent_process::AgentProcess;
use super::{CONFIGMAP, NS, STATE, apply_agent_manifests};
use crate::common::api_server::ApiServer;
use crate::common::cluster::{Cluster, wait_for};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// What the agents asked in the window.
struct Load {
    agents: usize,
    minutes: f64,
    /// Requests other than watches, by `verb resource` (`get nodes`).
    requests: BTreeMap<String, usize>,
    /// Watches started.
    watches: usize,
    /// The agents' patches of their nodes before the window (the log is read as it should be).
    patches_before: usize,
}

impl Load {
    fn per_agent_per_minute(&self) -> f64 {
        self.requests.values().sum::<usize>() as f64 / self.agents as f64 / self.minutes
    }
}

/// The audit log's events from line `from` on, of users whose name starts with `user`:
/// (verb, resource, stage) of each.
fn audited(log: &Path, from: usize, user: &str) -> (usize, Vec<(String, String, String)>) {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let events = lines[from.min(lines.len())..]
        .iter()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| {
            e["user"]["username"]
                .as_str()
                .is_some_and(|u| u.starts_with(user))
        })
        .map(|e| {
            let s = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
            let resource = match e["objectRef"]["resource"].as_str() {
                Some(r) => r.to_string(),
                None => s(&e["requestURI"]),
            };
            (s(&e["verb"]), resource, s(&e["stage"]))
        })
        .collect();
    (lines.len(), events)
}

/// `agents` agents on simulated DGX A100s, every other one opting in to MIG on demand; their
/// requests over `window` once all have their layout and `settle` has passed.
fn measure(test: &str, agents: usize, settle: Duration, window: Duration) -> Option<Load> {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.log");
    let server = ApiServer::with_audit_log(test, &log)?;
    let cluster = Cluster::connect(&server.kubeconfig);
    apply_agent_manifests(&cluster);
    let mut running = Vec::new();
    for i in 0..agents {
        let node = format!("idle-{i:03}");
        let mut labels = vec![("gpushare.io/config", "balanced")];
        if i % 2 == 0 {
            labels.push(("gpushare.io/mig.on-demand", "true"));
        }
        cluster.create_node(&node, &labels);
        let home = dir.path().join(&node);
        std::fs::create_dir_all(&home).unwrap();
        let kubeconfig = home.join("agent.kubeconfig");
        cluster.pod_token_kubeconfig(NS, "gpushare-agent", &node, &kubeconfig);
        running.push(AgentProcess::start(&home, &kubeconfig, &node, CONFIGMAP));
    }
    let started = Instant::now();
    wait_for(
        "every node at its layout",
        Duration::from_secs(120 + agents as u64),
        || {
            let done = cluster
                .nodes()
                .iter()
                .filter(|n| {
                    n.metadata
                        .labels
                        .as_ref()
                        .and_then(|l| l.get(STATE))
                        .is_some_and(|s| s == "success")
                })
                .count();
            (done == agents).then_some(())
        },
    );
    eprintln!(
        "{agents} agents at their layouts {:.1} s after the last started",
        started.elapsed().as_secs_f64()
    );
    std::thread::sleep(settle);
    let user = format!("system:serviceaccount:{NS}:gpushare-agent");
    let (from, before) = audited(&log, 0, &user);
    std::thread::sleep(window);
    let (_, events) = audited(&log, from, &user);
    let mut load = Load {
        agents,
        minutes: window.as_secs_f64() / 60.0,
        requests: BTreeMap::new(),
        watches: 0,
        patches_before: before
            .iter()
            .filter(|(verb, resource, _)| verb == "patch" && resource == "nodes")
            .count(),
    };
    for (verb, resource, stage) in events {
        match (verb.as_str(), stage.as_str()) {
            ("watch", "ResponseStarted") => load.watches += 1,
            ("watch", _) => {}
            (_, "ResponseComplete" | "Panic") => {
                *load
                    .requests
                    .entry(format!("{verb} {resource}"))
                    .or_default() += 1;
            }
            _ => {}
        }
    }
    for agent in &running {
        assert!(
            !agent.log().contains("panicked"),
            "an agent panicked: {}",
            agent.log()
        );
    }
    drop(running);
    drop(server);
    Some(load)
}

#[test]
fn idle_agents_make_no_request_but_their_watches() {
    let Some(load) = measure(
        "idle_agents_make_no_request_but_their_watches",
        4,
        Duration::from_secs(12),
        Duration::from_secs(30),
    ) else {
        return;
    };
    // Each agent set its state label, and two published their MIG state.
    assert!(load.patches_before >= 6, "{}", load.patches_before);
    // Publishing every 10 s, agents that read their Node with a GET would make 6 here.
    assert!(
        load.requests.is_empty(),
        "requests besides watches: {:?}",
        load.requests
    );
}

/// `bench/agents-idle.sh`: AGENTS agents (100), WINDOW seconds (180).
#[test]
#[ignore = "a bench: bench/agents-idle.sh runs it"]
fn idle_agents_bench() {
    let number = |key: &str, default: u64| {
        std::env::var(key)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let agents = number("AGENTS", 100) as usize;
    let window = Duration::from_secs(number("WINDOW", 180));
    let Some(load) = measure("idle_agents_bench", agents, Duration::from_secs(20), window) else {
        return;
    };
    println!(
        "{} agents, {:.1} min: {:.3} non-watch requests per agent per minute (goal <= 0.2); {} watches started",
        load.agents,
        load.minutes,
        load.per_agent_per_minute(),
        load.watches
    );
    for (request, n) in &load.requests {
        println!("  {request}: {n}");
    }
}
