use super::*;
use crate::cluster::on_demand::claims::Claims;
use crate::cluster::on_demand::demand;
use crate::cluster::on_demand::reshape::tests::sevens;
use k8s_openapi::api::core::v1::Pod;
use serde_json::json;

fn node(name: &str, labels: serde_json::Value) -> Node {
    serde_json::from_value(json!({ "metadata": { "name": name, "labels": labels } })).unwrap()
}

/// Eight GPUs of seven 1g.5gb; `held[g]` the starts held on GPU g.
fn view<'n>(n: &'n Node, held: &[&[u32]], status: Status) -> NodeView<'n> {
    let gpus = (0..8)
        .map(|g| {
            let mut s = sevens(held.get(g).copied().unwrap_or(&[]));
            s.index = g as u32;
            s
        })
        .collect();
    NodeView {
        name: n.metadata.name.clone().unwrap(),
        node: n,
        gpus,
        status,
        has_layout: false,
        give_back_due: false,
    }
}

fn pod(name: &str, second: u32, wants: &[(&str, u32)], selector: serde_json::Value) -> Pod {
    let limits: serde_json::Map<String, serde_json::Value> = wants
        .iter()
        .map(|(p, n)| (format!("nvidia.com/mig-{p}"), json!(n.to_string())))
        .collect();
    serde_json::from_value(json!({
        "metadata": { "name": name, "namespace": "ns", "creationTimestamp": format!("2026-01-01T00:00:{second:02}Z") },
        "spec": { "nodeSelector": selector, "containers": [{ "name": "c", "resources": { "limits": limits } }] },
        "status": { "phase": "Pending", "conditions": [{ "type": "PodScheduled", "status": "False", "reason": "Unschedulable" }] },
    }))
    .unwrap()
}

const LIMITS: Limits = Limits { max_reshaping: 4 };

fn reshaped(d: &Decision, pod: &str) -> Option<(String, Vec<u32>, usize)> {
    d.verdicts
        .iter()
        .find(|(p, _)| p == pod)
        .and_then(|(_, v)| match v {
            Verdict::Reshaping {
                node,
                gpus,
                destroyed,
            } => Some((node.clone(), gpus.clone(), *destroyed)),
            _ => None,
        })
}

#[test]
fn a_pod_goes_where_the_fewest_idle_instances_go_and_nothing_held_is_touched() {
    let (a, b) = (node("a", json!({})), node("b", json!({})));
    // On every GPU of `a` a pod holds the 1g.5gb at 5: a 3g.20gb there costs four idle ones.
    let held: Vec<&[u32]> = vec![&[5]; 8];
    let mut nodes = vec![view(&a, &held, Status::Ready), view(&b, &[], Status::Ready)];
    let pods = vec![pod("big", 1, &[("3g.20gb", 1)], json!({}))];
    let d = decide(
        &mut nodes,
        &demand::pending(&pods, &Claims::default()),
        &LIMITS,
    );
    assert_eq!(reshaped(&d, "ns/big"), Some(("b".into(), vec![0], 3)));
    let Change::Layout(layout, why) = &d.changes["b"] else {
        panic!()
    };
    assert_eq!(layout[&0].last(), Some(&("3g.20gb".to_string(), 4)));
    assert_eq!(layout[&0].len(), 5);
    assert!(why.contains("ns/big") && why.contains("3 idle"), "{why}");
    assert!(!d.changes.contains_key("a"));
}

#[test]
fn a_burst_touches_as_few_nodes_as_it_can_and_what_cannot_fit_says_why() {
    let (a, b, c) = (
        node("a", json!({})),
        node("b", json!({})),
        node("c", json!({})),
    );
    let full: Vec<&[u32]> = vec![&[0, 1, 2, 3, 4, 5, 6]; 8];
    let mut nodes = vec![
        view(&a, &full, Status::Ready),
        view(&b, &[], Status::Ready),
        view(&c, &[], Status::Ready),
    ];
    let mut pods: Vec<Pod> = (0..8)
        .map(|i| pod(&format!("whole-{i}"), i, &[("7g.40gb", 1)], json!({})))
        .collect();
    pods.extend((0..10).map(|i| pod(&format!("half-{i}"), 10 + i, &[("3g.20gb", 1)], json!({}))));
    pods.push(pod(
        "pinned",
        30,
        &[("3g.20gb", 1)],
        json!({ "kubernetes.io/hostname": "a" }),
    ));
    let a_labels = node("a", json!({ "kubernetes.io/hostname": "a" }));
    nodes[0].node = &a_labels;
    let d = decide(
        &mut nodes,
        &demand::pending(&pods, &Claims::default()),
        &LIMITS,
    );
    assert_eq!(d.changes.keys().collect::<Vec<_>>(), ["b", "c"]);
    for i in 0..8 {
        assert_eq!(reshaped(&d, &format!("ns/whole-{i}")).unwrap().0, "b");
    }
    for i in 0..10 {
        assert_eq!(reshaped(&d, &format!("ns/half-{i}")).unwrap().0, "c");
    }
    let (_, v) = d.verdicts.iter().find(|(p, _)| p == "ns/pinned").unwrap();
    let Verdict::NoFit(why) = v else {
        panic!("{v:?}")
    };
    assert!(
        why.contains("a: no GPU can hold a 3g.20gb without destroying instances in use"),
        "{why}"
    );
    // One 3g.20gb per GPU first (three idle 1g.5gb each), then a second on two of them (four).
    let Change::Layout(layout, _) = &d.changes["c"] else {
        panic!()
    };
    let halves = layout
        .values()
        .flatten()
        .filter(|(p, _)| p == "3g.20gb")
        .count();
    assert_eq!(halves, 10);
    assert_eq!(
        layout
            .values()
            .filter(|l| l.iter().any(|(p, _)| p == "3g.20gb"))
            .count(),
        8
    );
    assert_eq!(reshaped(&d, "ns/half-9").unwrap().2, 4);
}

#[test]
fn idle_or_coming_instances_are_waited_for_and_selectors_are_respected() {
    let (a, b) = (
        node("a", json!({ "pool": "x" })),
        node("b", json!({ "pool": "y" })),
    );
    let mut nodes = vec![
        view(&a, &[], Status::Ready),
        view(&b, &[], Status::Reshaping),
    ];
    // b's layout under way brings an idle 3g.20gb.
    let three = nodes[1].gpus[2].profile_index("3g.20gb").unwrap();
    let add = nodes[1].gpus[2].best_addition(three).unwrap();
    nodes[1].gpus[2].add(&add, "earlier");
    nodes[1].gpus[2]
        .slots
        .iter_mut()
        .for_each(|s| s.pinned = None);
    let pods = vec![
        pod("to-b", 1, &[("3g.20gb", 1)], json!({ "pool": "y" })),
        pod("also-b", 2, &[("3g.20gb", 1)], json!({ "pool": "y" })),
        pod("small", 3, &[("1g.5gb", 2)], json!({ "pool": "x" })),
        pod("nowhere", 4, &[("1g.5gb", 1)], json!({ "pool": "z" })),
    ];
    let d = decide(
        &mut nodes,
        &demand::pending(&pods, &Claims::default()),
        &LIMITS,
    );
    let verdict = |p: &str| d.verdicts.iter().find(|(n, _)| n == p).unwrap().1.clone();
    assert_eq!(verdict("ns/to-b"), Verdict::Waiting { node: "b".into() });
    // b is reshaping already, a is not for this pod: it waits.
    let Verdict::NoFit(why) = verdict("ns/also-b") else {
        panic!()
    };
    assert!(why.contains("b: being reshaped already"), "{why}");
    assert_eq!(verdict("ns/small"), Verdict::Waiting { node: "a".into() });
    let Verdict::NoFit(why) = verdict("ns/nowhere") else {
        panic!()
    };
    assert!(why.contains("matches its node selector"), "{why}");
    assert!(d.changes.is_empty());
}

#[test]
fn at_most_so_many_nodes_reshape_at_once() {
    let (a, b) = (node("a", json!({})), node("b", json!({})));
    let mut nodes = vec![view(&a, &[], Status::Ready), view(&b, &[], Status::Ready)];
    let pods: Vec<Pod> = (0..9)
        .map(|i| pod(&format!("w-{i}"), i, &[("7g.40gb", 1)], json!({})))
        .collect();
    let d = decide(
        &mut nodes,
        &demand::pending(&pods, &Claims::default()),
        &Limits { max_reshaping: 1 },
    );
    assert_eq!(d.changes.len(), 1);
    let Verdict::NoFit(why) = &d.verdicts[8].1 else {
        panic!()
    };
    assert!(
        why.contains("b: at most 1 node(s) reshape at once"),
        "{why}"
    );
    let mut cooling = vec![view(&a, &[], Status::Cooling(30))];
    let d = decide(
        &mut cooling,
        &demand::pending(&pods[..1], &Claims::default()),
        &LIMITS,
    );
    let Verdict::NoFit(why) = &d.verdicts[0].1 else {
        panic!()
    };
    assert!(why.contains("a: changed recently (cooling down)"), "{why}");
}

#[test]
fn idle_capacity_goes_back_to_the_baseline_and_then_the_layout_goes() {
    let a = node("a", json!({}));
    let mut v = view(&a, &[], Status::Ready);
    let three = v.gpus[0].profile_index("3g.20gb").unwrap();
    for g in [0, 1] {
        let add = v.gpus[g].best_addition(three).unwrap();
        v.gpus[g].add(&add, "gone");
    }
    // GPU 1's 3g.20gb is still held; GPU 0's is idle.
    v.gpus[0].slots.iter_mut().for_each(|s| s.pinned = None);
    v.has_layout = true;
    v.give_back_due = true;
    let mut nodes = vec![v];
    let d = decide(&mut nodes, &[], &LIMITS);
    let Change::Layout(layout, why) = &d.changes["a"] else {
        panic!("{:?}", d.changes)
    };
    assert_eq!(layout[&0].len(), 7);
    assert!(layout[&1].iter().any(|(p, _)| p == "3g.20gb"));
    assert!(why.contains("GPU(s) 0 "), "{why}");
    // Once every GPU is back, the layout is removed; not before the grace period.
    nodes[0].gpus[1] = sevens(&[]);
    nodes[0].gpus[1].index = 1;
    let d = decide(&mut nodes, &[], &LIMITS);
    assert_eq!(d.changes["a"], Change::Baseline);
    nodes[0].give_back_due = false;
    assert!(decide(&mut nodes, &[], &LIMITS).changes.is_empty());
}

#[test]
fn a_request_no_node_could_ever_hold_is_told_the_limit_without_a_list_of_it() {
    let a = node("a", json!({}));
    let mut nodes = vec![view(&a, &[], Status::Ready)];
    let pods: Vec<Pod> = [
        ("max", "4294967295"),
        ("thousand", "1000"),
        ("million", "1M"),
        ("fits", "56"),
    ]
    .iter()
    .enumerate()
    .map(|(i, (name, n))| {
        let mut p = pod(name, i as u32, &[("1g.5gb", 1)], json!({}));
        p.spec.as_mut().unwrap().containers[0]
            .resources
            .as_mut()
            .unwrap()
            .limits
            .as_mut()
            .unwrap()
            .insert(
                "nvidia.com/mig-1g.5gb".into(),
                k8s_openapi::apimachinery::pkg::api::resource::Quantity(n.to_string()),
            );
        p
    })
    .collect();
    let mut more = pods.clone();
    more.push(pod("nowhere", 9, &[("9g.99gb", 1)], json!({})));
    let d = decide(
        &mut nodes,
        &demand::pending(&more, &Claims::default()),
        &LIMITS,
    );
    let why = |name: &str| match &d.verdicts.iter().find(|(p, _)| p == name).unwrap().1 {
        Verdict::NoFit(why) => why.clone(),
        other => panic!("{name}: {other:?}"),
    };
    // Eight GPUs of at most seven 1g.5gb each.
    for (name, n) in [
        ("ns/max", "4294967295"),
        ("ns/thousand", "1000"),
        ("ns/million", "1000000"),
    ] {
        assert_eq!(
            why(name),
            format!(
                "it asks for {n} nvidia.com/mig-1g.5gb; the most any node that opts in could hold is 56"
            )
        );
    }
    assert_eq!(
        why("ns/nowhere"),
        "no node that opts in to MIG on demand offers nvidia.com/mig-9g.99gb"
    );
    // 56 fit the node's count, and every instance is idle: the pod waits for them.
    assert!(matches!(
        d.verdicts.iter().find(|(p, _)| p == "ns/fits").unwrap().1,
        Verdict::Waiting { .. }
    ));
}

#[test]
fn a_profile_with_attributes_is_asked_for_by_its_resource_name() {
    let a = node("a", json!({}));
    let mut nodes = vec![view(&a, &[], Status::Ready)];
    // The A100's 1g.5gb+me: one per GPU, on any slice.
    for g in &mut nodes[0].gpus {
        let mut profiles = g.profiles.to_vec();
        let mut me = profiles[0].clone();
        me.name = "1g.5gb+me".into();
        me.max_instances = 1;
        profiles.push(me);
        g.profiles = profiles.into();
    }
    let pods = vec![pod("me", 1, &[("1g.5gb.me", 1)], json!({}))];
    let d = decide(
        &mut nodes,
        &demand::pending(&pods, &Claims::default()),
        &LIMITS,
    );
    let (_, v) = &d.verdicts[0];
    assert!(
        matches!(v, Verdict::Reshaping { .. }),
        "nvidia.com/mig-1g.5gb.me is 1g.5gb+me: {v:?}"
    );
    let Change::Layout(layout, _) = &d.changes["a"] else {
        panic!()
    };
    assert!(
        layout[&0].iter().any(|(p, _)| p == "1g.5gb+me"),
        "{layout:?}"
    );
}
