//! Where a process is, from its `/proc/PID/cgroup`: in a pod (its UID, and its container's ID
//! when it is in one), or outside every pod. The layouts read are the kubelet's, under either
//! cgroup driver, for containerd, CRI-O and Docker (cri-dockerd), on cgroup v1 and v2:
//!
//! - cgroupfs: `/kubepods/burstable/pod<uid>/<id>` (`crio-<id>` for CRI-O), with the kubelet's
//!   `cgroupRoot` before it;
//! - systemd: `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid_>.slice/`
//!   `cri-containerd-<id>.scope` (`crio-<id>.scope`, `docker-<id>.scope`), the UID's dashes as
//!   underscores.
//!
//! Read from inside a cgroup namespace the path is relative to its root (`/../../kubepods…`);
//! a path that stays inside the reader's own namespace is the reader's own container, which
//! the path cannot name.

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

/// The place the cgroup file `text` names; `private_namespace`: the reader is in a cgroup
/// namespace of its own. Err when the file is not a cgroup file or names two pods.
pub(crate) fn place(text: &str, private_namespace: bool) -> Result<Place, String> {
    let mut found: Option<(String, Option<String>)> = None;
    let mut own = false;
    let mut lines = 0;
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.is_empty()) {
        lines += 1;
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(_), Some(path)) = (fields.next(), fields.next(), fields.next()) else {
            return Err(format!("line {} is not ID:CONTROLLERS:PATH", n + 1));
        };
        if private_namespace && !path.starts_with("/..") {
            own = true;
        }
        let Some((uid, id)) = in_pod(path) else {
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

/// The pod UID and container ID a cgroup path names, if it is a pod's.
fn in_pod(path: &str) -> Option<(String, Option<String>)> {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    for (i, seg) in segments.iter().enumerate() {
        let before = &segments[..i];
        let Some(uid) = pod_segment(seg, before) else {
            continue;
        };
        let container_id = segments.get(i + 1).and_then(|s| container_segment(s));
        return Some((uid, container_id));
    }
    None
}

/// `pod<uid>` under a `kubepods` cgroup (or at the top of a namespace seen from inside), or
/// `kubepods-<qos>-pod<uid_>.slice`.
fn pod_segment(seg: &str, before: &[&str]) -> Option<String> {
    if let Some(uid) = seg.strip_prefix("pod") {
        let under_kubepods = before.iter().any(|s| s.contains("kubepods"))
            || (!before.is_empty() && before.iter().all(|s| *s == ".."));
        return (under_kubepods && is_uid(uid)).then(|| uid.to_string());
    }
    let stem = seg.strip_suffix(".slice")?;
    let at = stem.rfind("-pod")?;
    let uid = stem[at + 4..].replace('_', "-");
    (stem[..at].contains("kubepods") && is_uid(&uid)).then_some(uid)
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
            // a node in a container (kind): the kubelet's slice under another
            format!(
                "/system.slice/docker-abc.scope/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod{u}.slice/cri-containerd-{ID}.scope"
            ),
            // a cgroupRoot before kubepods
            format!("/kube-node-x1/kubepods/besteffort/pod{UID}/{ID}"),
            // read from a pod with a cgroup namespace of its own
            format!("/../../kubepods-besteffort-pod{u}.slice/cri-containerd-{ID}.scope"),
            format!("/../../pod{UID}/{ID}"),
        ] {
            assert_eq!(
                place(&format!("0::{path}\n"), false),
                Ok(pod(true)),
                "{path}"
            );
        }
    }

    #[test]
    fn cgroup_v1_hierarchies_agree_and_a_hybrid_unified_line_does_not_matter() {
        let v1 = format!(
            "12:pids:/kubepods/besteffort/pod{UID}/{ID}\n11:memory:/kubepods/besteffort/pod{UID}/{ID}\n\
             4:cpu,cpuacct:/kubepods/besteffort/pod{UID}/{ID}\n1:name=systemd:/kubepods/besteffort/pod{UID}/{ID}\n0::/\n"
        );
        assert_eq!(place(&v1, false), Ok(pod(true)));
        // A hierarchy the runtime did not place it in still names the pod elsewhere.
        let partial = format!("5:memory:/kubepods/pod{UID}\n4:pids:/kubepods/pod{UID}/{ID}\n");
        assert_eq!(place(&partial, false), Ok(pod(true)));
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
            &format!("0::/../../system.slice/pod{UID}.service\n"),
        ] {
            assert_eq!(place(host, false), Ok(Place::Outside), "{host}");
        }
        let u = UID.replace('-', "_");
        let conmon = format!("0::/kubepods.slice/kubepods-pod{u}.slice/crio-conmon-{ID}.scope\n");
        assert_eq!(place(&conmon, false), Ok(pod(false)));
        assert_eq!(
            place(&format!("0::/kubepods/pod{UID}\n"), false),
            Ok(pod(false))
        );
        // Inside the reader's namespace: its own container, which the path cannot name.
        assert_eq!(place("0::/\n", true), Ok(Place::ReadersNamespace));
        assert_eq!(
            place("0::/../../system.slice/x.service\n", true),
            Ok(Place::Outside)
        );
    }

    #[test]
    fn a_file_that_is_not_a_cgroup_file_or_names_two_pods_is_refused() {
        assert!(place("", false).unwrap_err().contains("empty"));
        assert!(place("garbage\n", false).unwrap_err().contains("line 1"));
        let other = "1b9f1c6e-3d4a-4f5b-8c7d-123456789abc";
        let two = format!("1:memory:/kubepods/pod{UID}/{ID}\n2:pids:/kubepods/pod{other}/{ID}\n");
        assert!(place(&two, false).unwrap_err().contains("two pods"));
        let not_uid = "0::/kubepods/podxyz/abc\n";
        assert_eq!(place(not_uid, false), Ok(Place::Outside));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        #[test]
        fn any_text_is_placed_or_refused_without_panicking(text in "\\PC{0,300}") {
            let _ = place(&text, false);
            let _ = place(&text, true);
        }
    }
}
