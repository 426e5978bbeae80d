//! NVIDIA's device plugin on the NVML stand-in, strict, after `gpushare mig apply`, with the
//! config and container environment `gpushare manifests --target nvidia-device-plugin`
//! generated, registered with the stand-in kubelet: what it advertises through `ListAndWatch`
//! is exactly the MIG devices `gpushare detect` reports, and `Allocate` hands a container the
//! device it was asked for, for the `mixed` and `single` strategies.

use crate::common;
use common::device_plugin::{DevicePlugin, by_resource, generated, mig_devices, mig_minor};
use common::nvidia_tools::{NvidiaNode, tools};
use std::collections::BTreeMap;

/// The plugin advertises exactly `wanted`, every device healthy, and allocates each device by
/// its UUID.
fn check_plugin(plugin: &mut DevicePlugin, wanted: &BTreeMap<String, Vec<String>>, what: &str) {
    let resources: Vec<String> = wanted.keys().cloned().collect();
    let listed = plugin.listed(&resources);
    let advertised: BTreeMap<String, Vec<String>> = listed
        .iter()
        .map(|(name, p)| {
            let mut ids: Vec<String> = p.devices.iter().map(|d| d.id.clone()).collect();
            ids.sort();
            (name.clone(), ids)
        })
        .collect();
    assert_eq!(
        &advertised,
        wanted,
        "{what}: ListAndWatch\n{}",
        plugin.log()
    );
    for (name, p) in &listed {
        assert_eq!(
            p.healthy().len(),
            p.devices.len(),
            "{what}: {name}: {:?}",
            p.devices
        );
        assert!(
            p.options.get_preferred_allocation_available,
            "{what}: {name}"
        );
        let preferred = plugin
            .kubelet
            .preferred_allocation(name, &wanted[name], &[], 1)
            .unwrap();
        assert!(
            preferred.len() == 1 && wanted[name].contains(&preferred[0]),
            "{what}: {name}: preferred {preferred:?}"
        );
        for id in &wanted[name] {
            let answer = plugin
                .kubelet
                .allocate(name, std::slice::from_ref(id))
                .unwrap();
            assert_eq!(
                answer.envs.get("NVIDIA_VISIBLE_DEVICES"),
                Some(id),
                "{what}: Allocate {id} of {name}: {answer:?}"
            );
        }
    }
    assert!(
        plugin.kubelet.refused().is_empty(),
        "{:?}",
        plugin.kubelet.refused()
    );
}

#[test]
fn device_plugin_lists_and_allocates_the_mig_devices_gpushare_made_mixed() {
    let test = "nvidia_device_plugin::mixed";
    let Some(tools) = tools(test) else { return };
    let node = NvidiaNode::new(tools, "dgx-a100");
    node.mig_apply("all-balanced");
    let (config, env, parsed) = generated(&node, &[]);
    assert_eq!(parsed["flags"]["migStrategy"], "mixed");
    let devices = mig_devices(&node.detect());
    let wanted = by_resource(&devices, |d| format!("nvidia.com/mig-{}", d.profile));
    assert_eq!(wanted.len(), 3, "{wanted:?}");
    assert_eq!(wanted.values().map(Vec::len).sum::<usize>(), 32);
    let Some(mut plugin) = DevicePlugin::start(test, &node, &config, &env) else {
        return;
    };
    check_plugin(&mut plugin, &wanted, "mixed");

    // A device of another resource is not the kubelet's to give.
    let one = &wanted["nvidia.com/mig-1g.5gb"][0];
    assert!(
        plugin
            .kubelet
            .allocate("nvidia.com/mig-3g.20gb", std::slice::from_ref(one))
            .is_err()
    );
}

#[test]
fn device_plugin_passes_the_capability_devices_of_each_mig_device() {
    // With device specs passed, the plugin names each MIG device's GPU and its GPU and compute
    // instances' capability devices: the stand-in's instance IDs are the ones gpushare reports.
    let test = "nvidia_device_plugin::device_specs";
    let Some(tools) = tools(test) else { return };
    let node = NvidiaNode::new(tools, "dgx-h100");
    node.mig_apply("all-balanced");
    let (config, env, _) = generated(&node, &[]);
    let text = std::fs::read_to_string(&config).unwrap();
    let flipped = text.replace("passDeviceSpecs: false", "passDeviceSpecs: true");
    assert_ne!(text, flipped, "{text}");
    std::fs::write(&config, flipped).unwrap();
    let devices = mig_devices(&node.detect());
    let wanted = by_resource(&devices, |d| format!("nvidia.com/mig-{}", d.profile));
    let Some(mut plugin) = DevicePlugin::start(test, &node, &config, &env) else {
        return;
    };
    plugin.listed(&wanted.keys().cloned().collect::<Vec<_>>());
    for d in &devices {
        let resource = format!("nvidia.com/mig-{}", d.profile);
        let answer = plugin
            .kubelet
            .allocate(&resource, std::slice::from_ref(&d.uuid))
            .unwrap();
        let mut paths: Vec<&str> = answer
            .devices
            .iter()
            .map(|s| s.host_path.as_str())
            .collect();
        paths.sort();
        let mut expected = vec![
            format!("/dev/nvidia{}", d.gpu),
            format!(
                "/dev/nvidia-caps/nvidia-cap{}",
                mig_minor(d.gpu, d.gi, None)
            ),
            format!(
                "/dev/nvidia-caps/nvidia-cap{}",
                mig_minor(d.gpu, d.gi, Some(d.ci))
            ),
        ];
        expected.sort();
        assert_eq!(paths, expected, "{d:?}: {answer:?}");
    }
}

#[test]
fn device_plugin_lists_and_allocates_the_mig_devices_gpushare_made_single() {
    let test = "nvidia_device_plugin::single";
    let Some(tools) = tools(test) else { return };
    let node = NvidiaNode::new(tools, "dgx-a100");
    node.mig_apply("all-1g.5gb");
    let (config, env, parsed) = generated(&node, &[]);
    assert_eq!(parsed["flags"]["migStrategy"], "single");
    let devices = mig_devices(&node.detect());
    assert_eq!(devices.len(), 56);
    let wanted = by_resource(&devices, |_| "nvidia.com/gpu".to_string());
    let Some(mut plugin) = DevicePlugin::start(test, &node, &config, &env) else {
        return;
    };
    check_plugin(&mut plugin, &wanted, "single");
}
