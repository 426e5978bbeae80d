//! `gpushare controller`: MIG on demand for the cluster. One Deployment; its replicas elect a
//! leader with a Lease ([`lease`]), and the leader, every `--interval`, reads the nodes that opt
//! in and the pods (from watched caches, [`crate::cluster::api_client::cache`]), builds each node's view
//! ([`crate::cluster::on_demand::view`]), decides ([`crate::cluster::on_demand::decide`]) and writes the layouts
//! it chose in node annotations, which the nodes' agents apply through the pipeline. It never
//! touches a node's driver. Every decision is an Event on the pod (why it waits, which node is
//! reshaped for it) and on the node.
//!
//! Each write is one node's whole layout, so a controller killed between two writes leaves
//! every node with a layout that is whole; the next leader sees the layouts under way (their
//! coming instances are promised to the pods waiting) and decides the rest.

pub(crate) mod lease;

use crate::change::pipeline::signals::Trap;
use crate::cluster::api_client::cache::Cache;
use crate::cluster::api_client::link::Link;
use crate::cluster::api_client::{self, EventType, call, event_about};
use crate::cluster::on_demand::claims::Claims;
use crate::cluster::on_demand::decide::{self, Change, Limits, Verdict};
use crate::cluster::on_demand::{self, demand, layout, view};
use crate::node::Context;
use crate::observe::liveness::Liveness;
use crate::support::error::{Error, Exit, Result};
use crate::support::output::Output;
use k8s_openapi::api::core::v1::{Event, Node, ObjectReference, Pod};
use k8s_openapi::api::resource::v1::ResourceClaim;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::runtime::watcher;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

const COMPONENT: &str = "gpushare-controller";

/// What `gpushare controller` is told (its flags: `commands::cli::ControllerArgs`).
pub(crate) struct Options {
    pub kubeconfig: Option<std::path::PathBuf>,
    pub namespace: String,
    pub lease: String,
    pub id: Option<String>,
    pub lease_seconds: u64,
    pub interval_ms: u64,
    pub max_reshaping: u32,
    pub cooldown: u64,
    pub give_back_after: u64,
    pub health_addr: std::net::SocketAddr,
}

pub(crate) fn run(ctx: &mut Context, args: &Options) -> Result<Exit> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("gpushare-controller-api")
        .enable_all()
        .build()
        .map_err(|e| Error::failed(format!("cannot start the controller's runtime: {e}")))?;
    let client = runtime.block_on(api_client::client(args.kubeconfig.as_deref()))?;
    let identity = args.id.clone().unwrap_or_else(|| {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        format!("{}-{}", host.trim(), std::process::id())
    });
    let mut elector = lease::Elector::new(
        client.clone(),
        &args.namespace,
        &args.lease,
        &identity,
        Duration::from_secs(args.lease_seconds),
    );
    let mut controller = Controller {
        handle: runtime.handle().clone(),
        client,
        args,
        out: ctx.out.clone(),
        needed_at: BTreeMap::new(),
        told: BTreeMap::new(),
        writes: 0,
        started: Instant::now(),
        seen_pending: BTreeSet::new(),
        deferred: 0,
        leads_until: None,
        caches: None,
    };
    let liveness = Arc::new(Liveness::replica(&identity));
    let addr = crate::observe::liveness::serve(args.health_addr, liveness.clone())?;
    ctx.out.note(format!(
        "gpushare controller {identity}: lease {}/{}; MIG on demand for nodes labelled {}=true; health at http://{addr}/healthz",
        args.namespace,
        args.lease,
        on_demand::OPT_IN_LABEL
    ));
    let trap = Trap::install();
    // None until the first answer: each change, the first included, is said.
    let mut leading: Option<bool> = None;
    let stopped = loop {
        if let Some(signal) = trap.received() {
            break signal;
        }
        let turn = Instant::now();
        liveness.turn();
        liveness.update(|s| s.busy = true);
        let held = elector.hold(&controller.handle);
        controller.leads_until = elector.leads_until();
        liveness.update(|s| s.leads_until = controller.leads_until);
        match held {
            Ok(now_leading) => {
                liveness.update(|s| {
                    s.api_reachable = true;
                    s.state = if now_leading { "leading" } else { "standby" }.into();
                });
                if Some(now_leading) != leading {
                    ctx.out.note(if now_leading {
                        "leading: this replica decides"
                    } else {
                        "not leading: another replica holds the lease"
                    });
                    controller.needed_at.clear();
                    controller.started = Instant::now();
                }
                leading = Some(now_leading);
            }
            Err(e) => {
                ctx.out.warn(format!("{}; trying again", e.message));
                liveness.update(|s| s.api_reachable = false);
                leading = None;
            }
        }
        if leading == Some(true)
            && let Err(e) = controller.turn()
        {
            ctx.out.warn(format!("{}; trying again", e.message));
        }
        liveness.update(|s| s.busy = false);
        let wait = Duration::from_millis(args.interval_ms).saturating_sub(turn.elapsed());
        std::thread::sleep(wait.min(Duration::from_millis(args.interval_ms)));
    };
    ctx.out
        .note(format!("gpushare controller: stopping on {stopped}"));
    drop(controller);
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(Exit::Ok)
}

struct Controller<'a> {
    handle: tokio::runtime::Handle,
    client: kube::Client,
    args: &'a Options,
    out: crate::support::output::Output,
    /// When each node last had a pod that needed its reshaped capacity.
    needed_at: BTreeMap<String, Instant>,
    /// What each pod was last told, so an event is recorded once per change.
    told: BTreeMap<String, String>,
    /// Layout writes made (for `GPUSHARE_CONTROLLER_STOP_AFTER_WRITES`).
    writes: u32,
    /// Since when this replica leads: the grace period starts there for every node.
    started: Instant,
    /// The pending pods of the last turn, and for how many turns new ones kept coming.
    seen_pending: BTreeSet<String>,
    deferred: u32,
    /// This replica leads until then: no write after it.
    leads_until: Option<Instant>,
    /// The nodes that opt in and the pods, watched from the first turn this replica leads.
    caches: Option<Caches>,
}

struct Caches {
    nodes: Cache<Node>,
    pods: Cache<Pod>,
    /// None where the cluster serves no `resource.k8s.io/v1` (before 1.34): no DRA demand.
    claims: Option<Cache<ResourceClaim>>,
}

impl Caches {
    fn start(
        handle: &tokio::runtime::Handle,
        client: &kube::Client,
        out: &Output,
    ) -> Result<Caches> {
        // The lease's renewals say whether the API server answers; the watches only log.
        let link = Link::new(handle, client.clone(), out.clone(), |_| {});
        let selector = format!("{}=true", on_demand::OPT_IN_LABEL);
        let claims = if serves_claims(handle, client)? {
            Some(Cache::start(
                handle,
                Api::all(client.clone()),
                watcher::Config::default(),
                "resource claims",
                link.clone(),
                || {},
            ))
        } else {
            out.note(
                "the cluster serves no resource.k8s.io/v1 ResourceClaims (Kubernetes 1.34+): demand through DRA claims is not read",
            );
            None
        };
        Ok(Caches {
            claims,
            nodes: Cache::start(
                handle,
                Api::all(client.clone()),
                watcher::Config::default().labels(&selector),
                format!("nodes labelled {selector}"),
                link.clone(),
                || {},
            ),
            pods: Cache::start(
                handle,
                Api::all(client.clone()),
                watcher::Config::default().fields("status.phase!=Succeeded,status.phase!=Failed"),
                "pods not finished",
                link,
                || {},
            ),
        })
    }
}

/// Whether the cluster serves `resource.k8s.io/v1` ResourceClaims.
fn serves_claims(handle: &tokio::runtime::Handle, client: &kube::Client) -> Result<bool> {
    call(handle, "discover resource.k8s.io/v1", async {
        match client.list_api_group_resources("resource.k8s.io/v1").await {
            Ok(list) => Ok(list.resources.iter().any(|r| r.name == "resourceclaims")),
            Err(kube::Error::Api(s)) if s.code == 404 => Ok(false),
            Err(e) => Err(e),
        }
    })
}

/// A burst of pods arrives over a few turns: new demand waits while it grows (up to this many
/// turns), so that the burst is decided at once and touches the fewest nodes.
const MAX_DEFER: u32 = 4;

impl Controller<'_> {
    /// One look at the cluster and what follows from it.
    fn turn(&mut self) -> Result<()> {
        if self.caches.is_none() {
            self.caches = Some(Caches::start(&self.handle, &self.client, &self.out)?);
        }
        let Some(caches) = &self.caches else {
            return Ok(());
        };
        let nodes = caches.nodes.objects()?;
        let pods = caches.pods.objects()?;
        let claims = match &caches.claims {
            Some(c) => Claims::new(&c.objects()?),
            None => Claims::default(),
        };
        let pending = demand::pending(&pods, &claims);
        let names: BTreeSet<String> = pending.iter().map(|p| p.name.clone()).collect();
        let grew = names.iter().any(|n| !self.seen_pending.contains(n));
        self.seen_pending = names;
        if grew && self.deferred < MAX_DEFER {
            self.deferred += 1;
            return Ok(());
        }
        self.deferred = 0;
        let timing = view::Timing {
            now: crate::support::clock::unix_now() as u64,
            cooldown: self.args.cooldown,
        };
        let grace = Duration::from_secs(self.args.give_back_after);
        let mut unreadable = Vec::new();
        let mut node_views = Vec::new();
        for n in &nodes {
            let name = n.metadata.name.clone().unwrap_or_default();
            let since = self.needed_at.get(&name).copied().unwrap_or(self.started);
            match view::view(n, &pods, &claims, &timing, since.elapsed() >= grace) {
                Ok(v) => node_views.push(v),
                Err(why) => unreadable.push(format!("{name}: {why}")),
            }
        }
        let decided = Instant::now();
        let decision = decide::decide(
            &mut node_views,
            &pending,
            &Limits {
                max_reshaping: self.args.max_reshaping as usize,
            },
        );
        let took = decided.elapsed();
        for (_, verdict) in &decision.verdicts {
            if let Verdict::Waiting { node } | Verdict::Reshaping { node, .. } = verdict {
                self.needed_at.insert(node.clone(), Instant::now());
            }
        }
        if !decision.changes.is_empty() {
            self.out.note(format!(
                "decided for {} pending pod(s) over {} node(s) in {:.1} ms",
                pending.len(),
                node_views.len(),
                took.as_secs_f64() * 1000.0
            ));
        }
        for (name, change) in &decision.changes {
            let listed = nodes
                .iter()
                .find(|n| n.metadata.name.as_deref() == Some(name.as_str()));
            if let Some(node) = listed {
                self.write(node, name, change)?;
            }
        }
        let by_name: BTreeMap<String, &Pod> =
            pending.iter().map(|p| (p.name.clone(), p.pod)).collect();
        for (pod, verdict) in &decision.verdicts {
            let mut v = verdict.clone();
            if let Verdict::NoFit(why) = &mut v
                && !unreadable.is_empty()
            {
                why.push_str(&format!("; not planned for: {}", unreadable.join("; ")));
            }
            if let Some(p) = by_name.get(pod) {
                self.tell(p, pod, &v)?;
            }
        }
        let waiting: BTreeSet<&String> = by_name.keys().collect();
        self.told.retain(|pod, _| waiting.contains(pod));
        Ok(())
    }

    /// Write one node's layout (or remove it), and say so on the node.
    fn write(&mut self, node: &Node, name: &str, change: &Change) -> Result<()> {
        let (annotations, reason, message) = match change {
            Change::Layout(l, why) => (
                BTreeMap::from([
                    (
                        on_demand::LAYOUT_ANNOTATION.to_string(),
                        // Never a text that does not read back; the other nodes go on.
                        match layout::render(l) {
                            Ok(text) => Some(text),
                            Err(e) => {
                                self.out
                                    .warn(format!("node {name}: the layout is not written: {e}"));
                                return Ok(());
                            }
                        },
                    ),
                    (
                        on_demand::WRITTEN_ANNOTATION.to_string(),
                        Some((crate::support::clock::unix_now() as u64).to_string()),
                    ),
                ]),
                "MigReshape",
                why.clone(),
            ),
            Change::Baseline => (
                BTreeMap::from([
                    (on_demand::LAYOUT_ANNOTATION.to_string(), None),
                    (on_demand::WRITTEN_ANNOTATION.to_string(), None),
                ]),
                "MigBaseline",
                "the node has its baseline layout again: the controller's layout is removed"
                    .to_string(),
            ),
        };
        // A turn that outlived the lease's renew deadline leaves the rest to the next leader.
        if self.leads_until.is_none_or(|t| Instant::now() >= t) {
            return Err(Error::failed(format!(
                "node {name}: not written: this replica's lease ran out during the turn"
            )));
        }
        let patch = crate::cluster::api_client::merge_patch(&BTreeMap::new(), &annotations);
        let api: Api<Node> = Api::all(self.client.clone());
        let params = PatchParams {
            field_manager: Some(COMPONENT.into()),
            ..Default::default()
        };
        let patched = call(
            &self.handle,
            &format!("patch node {name}"),
            api.patch(name, &params, &Patch::Merge(&patch)),
        )?;
        // The next turn reads the layout written, even before the watch brings it.
        if let Some(caches) = &self.caches {
            caches.nodes.wrote(patched);
        }
        self.out.note(format!("node {name}: {message}"));
        let about = ObjectReference {
            api_version: Some("v1".into()),
            kind: Some("Node".into()),
            name: Some(name.into()),
            uid: node.metadata.uid.clone(),
            ..Default::default()
        };
        self.record(
            api_client::EVENTS_NAMESPACE,
            about,
            EventType::Normal,
            reason,
            &message,
        )?;
        self.writes += 1;
        // A test hook: stop as a killed process would, between two writes of one decision.
        if std::env::var("GPUSHARE_CONTROLLER_STOP_AFTER_WRITES")
            .ok()
            .and_then(|n| n.parse::<u32>().ok())
            .is_some_and(|n| self.writes >= n)
        {
            self.out
                .warn("stopping after the writes asked for (a test)");
            std::process::exit(137);
        }
        Ok(())
    }

    /// Tell a pending pod where it stands, once per change.
    fn tell(&mut self, pod: &Pod, name: &str, verdict: &Verdict) -> Result<()> {
        let (kind, reason, message) = match verdict {
            Verdict::Waiting { node } => (
                EventType::Normal,
                "MigWaiting",
                format!("idle MIG instances for it are on node {node} (or coming there)"),
            ),
            Verdict::Reshaping {
                node,
                gpus,
                destroyed,
            } => (
                EventType::Normal,
                "MigReshaping",
                format!(
                    "node {node} is being reshaped for it: GPU(s) {} ({destroyed} idle instance(s) replaced)",
                    crate::change::plan::join(gpus)
                ),
            ),
            Verdict::NoFit(why) => (EventType::Warning, "MigNoFit", why.clone()),
        };
        if self.told.get(name) == Some(&message) {
            return Ok(());
        }
        self.told.insert(name.to_string(), message.clone());
        let namespace = pod.metadata.namespace.as_deref().unwrap_or("default");
        let about = ObjectReference {
            api_version: Some("v1".into()),
            kind: Some("Pod".into()),
            name: pod.metadata.name.clone(),
            namespace: Some(namespace.into()),
            uid: pod.metadata.uid.clone(),
            ..Default::default()
        };
        self.record(namespace, about, kind, reason, &message)
    }

    fn record(
        &self,
        namespace: &str,
        about: ObjectReference,
        kind: EventType,
        reason: &str,
        message: &str,
    ) -> Result<()> {
        let api: Api<Event> = Api::namespaced(self.client.clone(), namespace);
        let mut event = event_about(about, COMPONENT, COMPONENT, kind, reason, message);
        event.metadata.namespace = Some(namespace.into());
        call(
            &self.handle,
            &format!("create event {reason}"),
            api.create(&PostParams::default(), &event),
        )
        .map(|_| ())
    }
}
