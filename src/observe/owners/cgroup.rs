//! Where a process is, from its `/proc/PID/cgroup`: in a pod (its UID, and its container's ID
//! when it is in one), or outside every pod. The layouts read are the kubelet's, under either
//! cgroup driver, for containerd, CRI-O and Docker (cri-dockerd), on cgroup v1 and v2:
//!
//! - cgroupfs: `<cgroupRoot>/kubepods/burstable/pod<uid>/<id>` (`crio-<id>` for CRI-O);
//! - systemd: `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid_>.slice/`
//!   `cri-containerd-<id>.scope` (`crio-<id>.scope`, `docker-<id>.scope`), the UID's dashes as
//!   underscores; under a `cgroupRoot` of `/kubelet`, `/kubelet.slice/kubelet-kubepods.slice/…`.
//!
//! A pod is recognised only where the kubelet puts pods: directly under the pods' cgroup of one
//! of the kubelet's cgroup roots ([`PodCgroups`]: `/` unless the operator names others, such as
//! a node-in-container's prefix), or under its QoS cgroup. Anyone may make a cgroup named like a
//! pod in a subtree delegated to them (`/user.slice/…/user@1000.service/…`); such a process is
//! the host's, never the pod it names.
//!
//! Read from inside a cgroup namespace the path is relative to its root (`/../../kubepods…`):
//! what follows the climb must start at the pods' cgroup, a QoS cgroup or a pod. A path that
//! stays inside the reader's own namespace is the reader's own container, which the path cannot
//! name.

/// Where the cgroup file puts a process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Place {
    Pod {
        uid: String,
        /// None: in the pod's cgroup but in no container's (or one whose name no runtime here
        /// gives).
        container_id: Option<String>,
    },
    /// In no pod's cgroup.
    Outside,
    /// Inside the reader's own cgroup namespace, which hides where that is.
    ReadersNamespace,
}

/// The QoS classes that have a cgroup of their own (guaranteed pods sit directly below).
const QOS: [&str; 2] = ["besteffort", "burstable"];

/// Where the kubelet puts pods: the pods' cgroup of each of its cgroup roots, in the cgroupfs
/// driver's form (`<root>/kubepods`) and the systemd driver's (`<root as slices>/…kubepods.slice`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PodCgroups {
    /// Each pods' cgroup, as its path's segments, with whether it is a systemd slice.
    parents: Vec<(Vec<String>, bool)>,
}

impl Default for PodCgroups {
    fn default() -> Self {
        PodCgroups::new(&["/".to_string()]).expect("/ is a cgroup root")
    }
}

impl PodCgroups {
    /// The pods' cgroups of the kubelet's cgroup roots `roots` (its `cgroupRoot`, `/` by
    /// default; for a node in a container, the path of its cgroup root as the host sees it,
    /// such as `/system.slice/docker-<id>.scope/kubelet.slice`). Err for a root that is not an
    /// absolute cgroup path.
    pub(crate) fn new(roots: &[String]) -> Result<PodCgroups, String> {
        let mut parents = Vec::new();
        for root in roots {
            let segments: Vec<&str> = root.split('/').filter(|s| !s.is_empty()).collect();
            let bad =
                |s: &&str| *s == "." || *s == ".." || s.chars().any(|c| c.is_control() || c == ':');
            if !root.starts_with('/') || segments.iter().any(bad) || root.len() > 4096 {
                return Err(format!(
                    "{root:?} is not a cgroup path (absolute, without . or .. segments)"
                ));
            }
            let owned = |v: Vec<&str>| v.into_iter().map(String::from).collect::<Vec<_>>();
            let mut cgroupfs = owned(segments.clone());
            cgroupfs.push("kubepods".into());
            parents.push((cgroupfs, false));
            // The systemd driver names `/a/b` `/a.slice/a-b.slice`; a path that names units
            // already is taken as it is.
            let mut systemd: Vec<String> = if segments.iter().any(|s| s.contains('.')) {
                owned(segments)
            } else {
                (1..=segments.len())
                    .map(|n| format!("{}.slice", segments[..n].join("-")))
                    .collect()
            };
            let stem = systemd
                .last()
                .and_then(|s| s.strip_suffix(".slice"))
                .map(|s| format!("{s}-"))
                .unwrap_or_default();
            systemd.push(format!("{stem}kubepods.slice"));
            parents.push((systemd, true));
        }
        Ok(PodCgroups { parents })
    }
}

impl PodCgroups {
    /// `--kubelet-cgroup-root`: roots separated by commas.
    pub(crate) fn parse(text: &str) -> Result<PodCgroups, String> {
        let roots: Vec<String> = text.split(',').map(|r| r.trim().to_string()).collect();
        PodCgroups::new(&roots)
    }
}

/// The place the cgroup file `text` names; `private_namespace`: the reader is in a cgroup
/// namespace of its own. Err when the file is not a cgroup file or names two pods.
pub(crate) fn place(
    text: &str,
    private_namespace: bool,
    pods: &PodCgroups,
) -> Result<Place, String> {
    let mut found: Option<(String, Option<String>)> = None;
    let mut own = false;
    let mut lines = 0;
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.is_empty()) {
        lines += 1;
        let Some(path) = cgroup_line(line) else {
            return Err(format!(
                "line {} is not a cgroup line (HIERARCHY-ID:CONTROLLERS:/PATH); is it a cgroup file?",
                n + 1
            ));
        };
        if private_namespace && !path.starts_with("/..") {
            own = true;
        }
        let Some((uid, id)) = in_pod(path, pods) else {
            continue;
        };
        match &mut found {
            None => found = Some((uid, id)),
            Some((u, _)) if *u != uid => {
                return Err(format!("it names two pods, {u} and {uid}"));
            }
            Some((_, known @ None)) => *known = id,
            Some((_, Some(known))) => {
                if id.as_ref().is_some_and(|id| id != known) {
                    return Err(format!(
                        "it names two containers, {known} and {}",
                        id.unwrap_or_default()
                    ));
                }
            }
        }
    }
    if lines == 0 {
        return Err("it is empty".into());
    }
    Ok(match found {
        Some((uid, container_id)) => Place::Pod { uid, container_id },
        None if own => Place::ReadersNamespace,
        None => Place::Outside,
    })
}

/// The path of a line of a cgroup file: `<hierarchy id>:<controllers>:<path>`, the id a number,
/// the controllers names (`cpu,cpuacct`, `name=systemd`, none for v2) and the path absolute.
fn cgroup_line(line: &str) -> Option<&str> {
    let mut fields = line.splitn(3, ':');
    let (id, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
    let id_ok = !id.is_empty() && id.len() <= 10 && id.bytes().all(|b| b.is_ascii_digit());
    let controllers_ok = controllers
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"_=,.-".contains(&b));
    (id_ok && controllers_ok && path.starts_with('/')).then_some(path)
}

/// The pod UID and container ID a cgroup path names, if it is where the kubelet puts pods.
fn in_pod(path: &str, pods: &PodCgroups) -> Option<(String, Option<String>)> {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let climbed = segments.iter().take_while(|s| **s == "..").count();
    let rest = &segments[climbed..];
    for (parent, systemd) in &pods.parents {
        let stem = parent
            .last()
            .map_or("", |p| p.strip_suffix(".slice").unwrap_or(p));
        let below = |at: &[&str]| below_pods(at, stem, *systemd);
        if rest.len() > parent.len()
            && rest.iter().zip(parent).all(|(a, b)| a == b)
            && let Some(found) = below(&rest[parent.len()..])
        {
            return Some(found);
        }
        // Seen from inside a namespace, the climb may end at the pods' or a QoS cgroup.
        if climbed > 0
            && let Some(found) = below(rest)
        {
            return Some(found);
        }
    }
    None
}

/// What is below the pods' cgroup `stem` (`kubepods`, `kubelet-kubepods`): an optional QoS
/// cgroup, then the pod, then its container.
fn below_pods(segments: &[&str], stem: &str, systemd: bool) -> Option<(String, Option<String>)> {
    let (qos, rest) = match segments.first() {
        Some(s)
            if QOS
                .iter()
                .any(|q| qos_segment(s, stem, systemd) == Some(*q)) =>
        {
            (qos_segment(s, stem, systemd), &segments[1..])
        }
        _ => (None, segments),
    };
    let uid = pod_segment(rest.first()?, stem, qos, systemd)?;
    let container_id = rest.get(1).and_then(|s| container_segment(s));
    Some((uid, container_id))
}

/// The QoS class a segment is the cgroup of: `burstable`, or `kubepods-burstable.slice`.
fn qos_segment<'a>(seg: &'a str, stem: &str, systemd: bool) -> Option<&'a str> {
    if !systemd {
        return QOS.iter().any(|q| q == &seg).then_some(seg);
    }
    let qos = seg
        .strip_suffix(".slice")?
        .strip_prefix(stem)?
        .strip_prefix('-')?;
    QOS.contains(&qos).then_some(qos)
}

/// `pod<uid>`, or `<stem>[-<qos>]-pod<uid_>.slice` for the systemd driver.
fn pod_segment(seg: &str, stem: &str, qos: Option<&str>, systemd: bool) -> Option<String> {
    let uid = if systemd {
        // Without its QoS cgroup in the path (seen from a namespace inside that QoS cgroup),
        // the pod's slice still names its class.
        let unit = seg
            .strip_suffix(".slice")?
            .strip_prefix(stem)?
            .strip_prefix('-')?;
        let unit = match qos {
            Some(q) => unit.strip_prefix(q)?.strip_prefix('-')?,
            None => QOS
                .iter()
                .find_map(|q| unit.strip_prefix(q)?.strip_prefix('-'))
                .unwrap_or(unit),
        };
        unit.strip_prefix("pod")?.replace('_', "-")
    } else {
        seg.strip_prefix("pod")?.to_string()
    };
    is_uid(&uid).then_some(uid)
}

/// A container's cgroup: its ID bare (cgroupfs), `crio-<id>`, or a systemd scope
/// (`cri-containerd-<id>.scope`, `crio-<id>.scope`, `docker-<id>.scope`). CRI-O's `conmon`
/// monitor has a scope of its own beside the container: it is not the container.
fn container_segment(seg: &str) -> Option<String> {
    let unit = seg.strip_suffix(".scope").unwrap_or(seg);
    if unit.starts_with("crio-conmon-") {
        return None;
    }
    let id = ["cri-containerd-", "crio-", "docker-"]
        .iter()
        .find_map(|p| unit.strip_prefix(p))
        .unwrap_or(unit);
    // A scope names its runtime; a bare segment is an ID only when it looks like one.
    let scoped = seg.ends_with(".scope") && id.len() != unit.len();
    (is_container_id(id) && (scoped || !seg.ends_with(".scope"))).then(|| id.to_string())
}

/// A Kubernetes UID: a UUID, or the 32 hex digits of a static pod's hash.
fn is_uid(s: &str) -> bool {
    (32..=36).contains(&s.len())
        && s.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
        && s.chars().filter(|c| c.is_ascii_hexdigit()).count() == 32
}

/// A runtime's container ID: hex digits (64 from containerd, CRI-O and Docker).
fn is_container_id(s: &str) -> bool {
    (12..=128).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    const UID: &str = "0b9f1c6e-3d4a-4f5b-8c7d-123456789abc";
    const ID: &str = "5f2c9a1e7b3d4c6f8a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f";

    fn at(text: &str, private_namespace: bool) -> Result<Place, String> {
        place(text, private_namespace, &PodCgroups::default())
    }

    fn pod(container: bool) -> Place {
        Place::Pod {
            uid: UID.into(),
            container_id: container.then(|| ID.into()),
        }
    }

    #[test]
    fn every_runtime_and_driver_on_cgroup_v2() {
        let u = UID.replace('-', "_");
        for path in [
            // containerd, systemd driver
            format!(
                "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod{u}.slice/cri-containerd-{ID}.scope"
            ),
            // CRI-O, systemd driver (guaranteed QoS has no QoS slice)
            format!("/kubepods.slice/kubepods-pod{u}.slice/crio-{ID}.scope"),
            // cri-dockerd, systemd driver
            format!(
                "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{u}.slice/docker-{ID}.scope"
            ),
            // containerd (and Docker), cgroupfs driver
            format!("/kubepods/burstable/pod{UID}/{ID}"),
            format!("/kubepods/pod{UID}/{ID}"),
            // CRI-O, cgroupfs driver
            format!("/kubepods/besteffort/pod{UID}/crio-{ID}"),
            // read from a pod with a cgroup namespace of its own
            format!("/../../kubepods-besteffort-pod{u}.slice/cri-containerd-{ID}.scope"),
            format!("/../../pod{UID}/{ID}"),
        ] {
            assert_eq!(at(&format!("0::{path}\n"), false), Ok(pod(true)), "{path}");
        }
    }

    #[test]
    fn the_kubelets_own_cgroup_roots() {
        let u = UID.replace('-', "_");
        for (root, path) in [
            // a node in a container (kind): the kubelet's slice under the node's
            (
                "/system.slice/docker-abc.scope/kubelet.slice",
                format!(
                    "/system.slice/docker-abc.scope/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod{u}.slice/cri-containerd-{ID}.scope"
                ),
            ),
            // a cgroupRoot before kubepods, cgroupfs
            (
                "/kube-node-x1",
                format!("/kube-node-x1/kubepods/besteffort/pod{UID}/{ID}"),
            ),
            // a cgroupRoot of /kubelet, systemd
            (
                "/kubelet",
                format!(
                    "/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod{u}.slice/crio-{ID}.scope"
                ),
            ),
        ] {
            let pods = PodCgroups::parse(root).unwrap();
            let text = format!("0::{path}\n");
            assert_eq!(place(&text, false, &pods), Ok(pod(true)), "{root} {path}");
            // Under the default root alone it is not where the kubelet puts pods.
            assert_eq!(at(&text, false), Ok(Place::Outside), "{path}");
        }
        let both = PodCgroups::parse("/, /kube-node-x1").unwrap();
        for path in [
            format!("/kubepods/pod{UID}/{ID}"),
            format!("/kube-node-x1/kubepods/pod{UID}/{ID}"),
        ] {
            assert_eq!(
                place(&format!("0::{path}\n"), false, &both),
                Ok(pod(true)),
                "{path}"
            );
        }
        for bad in ["relative/root", "/a/../b", "/a:b", ""] {
            assert!(PodCgroups::parse(bad).is_err(), "{bad}");
        }
    }

    /// Cgroups anyone may make, named like the kubelet's: a user's delegated subtree, a service's
    /// own, a pod-like name at the wrong depth. None is a pod.
    #[test]
    fn a_pod_named_outside_the_kubelets_cgroups_is_the_hosts() {
        let u = UID.replace('-', "_");
        let delegated = "/user.slice/user-1000.slice/user@1000.service/app.slice";
        for path in [
            format!("{delegated}/kubepods-burstable-pod{u}.slice/cri-containerd-{ID}.scope"),
            format!(
                "{delegated}/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{u}.slice/cri-containerd-{ID}.scope"
            ),
            format!(
                "/user.slice/user-1000.slice/user@1000.service/kubepods/burstable/pod{UID}/{ID}"
            ),
            format!("/user.slice/user-1000.slice/user@1000.service/kubepods/pod{UID}/{ID}"),
            format!("/system.slice/evil.service/kubepods/pod{UID}/{ID}"),
            format!(
                "/kubepods.slice/kubepods-burstable.slice/x.slice/kubepods-burstable-pod{u}.slice/cri-containerd-{ID}.scope"
            ),
            format!("/kubepods/burstable/extra/pod{UID}/{ID}"),
            format!("/kubepods/guaranteed/pod{UID}/{ID}"),
            format!("/kubepods.slice/other-pod{u}.slice/cri-containerd-{ID}.scope"),
            format!("/kubepods.slice/kubepods-besteffort.slice/kubepods-burstable-pod{u}.slice/x"),
            format!("/notkubepods/pod{UID}/{ID}"),
            // seen from a namespace: the climb reaches the top, and a user's tree is below it
            format!(
                "/../../../..{delegated}/kubepods-burstable-pod{u}.slice/cri-containerd-{ID}.scope"
            ),
            format!("/../../../../user.slice/kubepods/pod{UID}/{ID}"),
        ] {
            assert_eq!(
                at(&format!("0::{path}\n"), false),
                Ok(Place::Outside),
                "{path}"
            );
            let from_namespace = if path.starts_with("/..") {
                Place::Outside
            } else {
                Place::ReadersNamespace
            };
            assert_eq!(
                at(&format!("0::{path}\n"), true),
                Ok(from_namespace),
                "{path}"
            );
        }
    }

    #[test]
    fn a_file_that_is_not_a_cgroup_file_is_refused() {
        for text in [
            "root:$6$salt$hash:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n",
            "x:memory:/kubepods\n",
            "1:memory:relative/path\n",
            "1:mem ory:/\n",
            "12345678901:memory:/\n",
        ] {
            let e = at(text, false).unwrap_err();
            assert!(e.contains("not a cgroup line"), "{text}: {e}");
        }
    }

    #[test]
    fn cgroup_v1_hierarchies_agree_and_a_hybrid_unified_line_does_not_matter() {
        let v1 = format!(
            "12:pids:/kubepods/besteffort/pod{UID}/{ID}\n11:memory:/kubepods/besteffort/pod{UID}/{ID}\n\
             4:cpu,cpuacct:/kubepods/besteffort/pod{UID}/{ID}\n1:name=systemd:/kubepods/besteffort/pod{UID}/{ID}\n0::/\n"
        );
        assert_eq!(at(&v1, false), Ok(pod(true)));
        // A hierarchy the runtime did not place it in still names the pod elsewhere.
        let partial = format!("5:memory:/kubepods/pod{UID}\n4:pids:/kubepods/pod{UID}/{ID}\n");
        assert_eq!(at(&partial, false), Ok(pod(true)));
    }

    #[test]
    fn outside_the_pods_a_conmon_and_the_readers_own_namespace() {
        for host in [
            "0::/system.slice/nvidia-persistenced.service\n",
            "0::/user.slice/user-1000.slice/session-3.scope\n",
            "0::/init.scope\n",
            "12:memory:/\n1:name=systemd:/system.slice/cron.service\n",
            // Named like a pod, not under the kubelet's cgroups.
            &format!("0::/system.slice/pod{UID}/{ID}\n"),
            &format!("0::/system.slice/kubepods/pod{UID}/{ID}\n"),
            &format!("0::/../../system.slice/pod{UID}.service\n"),
        ] {
            assert_eq!(at(host, false), Ok(Place::Outside), "{host}");
        }
        let u = UID.replace('-', "_");
        let conmon = format!("0::/kubepods.slice/kubepods-pod{u}.slice/crio-conmon-{ID}.scope\n");
        assert_eq!(at(&conmon, false), Ok(pod(false)));
        assert_eq!(
            at(&format!("0::/kubepods/pod{UID}\n"), false),
            Ok(pod(false))
        );
        // Inside the reader's namespace: its own container, which the path cannot name.
        assert_eq!(at("0::/\n", true), Ok(Place::ReadersNamespace));
        assert_eq!(
            at("0::/../../system.slice/x.service\n", true),
            Ok(Place::Outside)
        );
    }

    #[test]
    fn a_file_that_is_not_a_cgroup_file_or_names_two_pods_is_refused() {
        assert!(at("", false).unwrap_err().contains("empty"));
        assert!(at("garbage\n", false).unwrap_err().contains("line 1"));
        let other = "1b9f1c6e-3d4a-4f5b-8c7d-123456789abc";
        let two = format!("1:memory:/kubepods/pod{UID}/{ID}\n2:pids:/kubepods/pod{other}/{ID}\n");
        assert!(at(&two, false).unwrap_err().contains("two pods"));
        let not_uid = "0::/kubepods/podxyz/abc\n";
        assert_eq!(at(not_uid, false), Ok(Place::Outside));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        #[test]
        fn any_text_is_placed_or_refused_without_panicking(text in "\\PC{0,300}") {
            let _ = at(&text, false);
            let _ = at(&text, true);
        }

        /// Whatever cgroups come before a pod-like tail, it is a pod only when they are the
        /// pods' cgroup of the kubelet's root (or a climb out of the reader's namespace).
        #[test]
        fn only_the_kubelets_cgroups_hold_pods(
            prefix in proptest::collection::vec("[a-z@0-9.-]{1,12}(\\.slice|\\.service|\\.scope)?", 0..5),
            systemd in proptest::bool::ANY,
            qos in proptest::option::of(0usize..2),
        ) {
            let u = UID.replace('-', "_");
            let tail = match (systemd, qos) {
                (true, Some(q)) => format!("kubepods.slice/kubepods-{0}.slice/kubepods-{0}-pod{u}.slice/cri-containerd-{ID}.scope", QOS[q]),
                (true, None) => format!("kubepods.slice/kubepods-pod{u}.slice/cri-containerd-{ID}.scope"),
                (false, Some(q)) => format!("kubepods/{}/pod{UID}/{ID}", QOS[q]),
                (false, None) => format!("kubepods/pod{UID}/{ID}"),
            };
            let path = format!("/{}", prefix.iter().map(|p| format!("{p}/")).collect::<String>() + &tail);
            let placed = at(&format!("0::{path}\n"), false).unwrap();
            if prefix.is_empty() {
                proptest::prop_assert_eq!(placed, pod(true));
            } else {
                proptest::prop_assert_eq!(placed, Place::Outside, "{}", path);
            }
        }
    }
}
