//! Fake vGPU hosts for the integration tests: a sysfs tree under a temporary root, shaped like the
//! real layouts (mdev on the GPU, mdev on SR-IOV VFs, vendor-specific VFIO on VFs), the fake
//! kernel's type table, a node file for `--sim`, and a stand-in `sriov-manage` that creates the
//! VFs in the tree.

use assert_cmd::Command;
use std::fmt::Write as _;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

/// Bus numbers the simulator gives GPUs 0, 1, … (`src/node/backend/sim/node_file.rs`).
const SIM_BUSES: [u32; 4] = [0x07, 0x0F, 0x47, 0x4E];

#[derive(Debug, Clone)]
pub struct TypeSpec {
    pub id: u32,
    pub name: &'static str,
    pub framebuffer_mib: u64,
    pub max: u32,
}

pub fn t(id: u32, name: &'static str, gb: u64, max: u32) -> TypeSpec {
    TypeSpec {
        id,
        name,
        framebuffer_mib: gb * 1024,
        max,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// mdev types on the GPU itself (Turing and older).
    MdevOnGpu,
    /// mdev types on each SR-IOV VF (Ampere).
    MdevOnVfs,
    /// `nvidia/current_vgpu_type` on each VF (Ada, Hopper, Blackwell).
    VendorVfio,
}

#[derive(Debug, Clone)]
pub struct GpuSpec {
    /// A name from the GPU catalog, for the node file.
    pub model: &'static str,
    pub device_id: u16,
    pub layout: Layout,
    pub vfs: u32,
    /// VFs already enabled (else the stand-in sriov-manage creates them).
    pub vfs_enabled: bool,
    pub heterogeneous: bool,
    pub types: Vec<TypeSpec>,
}

enum Op {
    Dir(PathBuf),
    File(PathBuf, String),
    Link(PathBuf, PathBuf),
}

fn run(ops: &[Op]) {
    for op in ops {
        match op {
            Op::Dir(p) => std::fs::create_dir_all(p).unwrap(),
            Op::File(p, text) => {
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, text).unwrap();
            }
            Op::Link(link, target) => {
                std::fs::create_dir_all(link.parent().unwrap()).unwrap();
                symlink(target, link).unwrap();
            }
        }
    }
}

fn quote(p: &Path) -> String {
    quote_str(&p.display().to_string())
}

fn quote_str(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn shell(ops: &[Op]) -> String {
    let mut s = String::new();
    for op in ops {
        match op {
            Op::Dir(p) => writeln!(s, "mkdir -p {}", quote(p)).unwrap(),
            Op::File(p, text) => {
                writeln!(s, "mkdir -p {}", quote(p.parent().unwrap())).unwrap();
                writeln!(s, "printf '%s' {} > {}", quote_str(text), quote(p)).unwrap();
            }
            Op::Link(link, target) => {
                writeln!(s, "mkdir -p {}", quote(link.parent().unwrap())).unwrap();
                writeln!(s, "ln -s {} {}", quote(target), quote(link)).unwrap();
            }
        }
    }
    s
}

pub struct FakeHost {
    pub dir: tempfile::TempDir,
    pub gpus: Vec<GpuSpec>,
    next_group: std::cell::Cell<u32>,
}

impl FakeHost {
    pub fn new(gpus: Vec<GpuSpec>) -> FakeHost {
        let host = FakeHost {
            dir: tempfile::tempdir().unwrap(),
            gpus,
            next_group: std::cell::Cell::new(10),
        };
        let mut script_cases = String::new();
        let mut marker = String::from("# fake vGPU host built by the tests\n");
        let mut node = String::new();
        for (i, g) in host.gpus.iter().enumerate() {
            let pf = host.pf(i);
            run(&host.pf_ops(g, &pf));
            let vf_ops = host.vf_ops(g, &pf);
            if g.vfs_enabled {
                run(&vf_ops);
            } else if !vf_ops.is_empty() {
                write!(script_cases, "  {pf})\n{}    ;;\n", shell(&vf_ops)).unwrap();
            }
            writeln!(
                marker,
                "[[gpus]]\npci_bus_id = \"{pf}\"\nheterogeneous = {}\ntypes = [",
                g.heterogeneous
            )
            .unwrap();
            for t in &g.types {
                writeln!(
                    marker,
                    "  {{ id = {}, name = \"NVIDIA {}\", framebuffer_mib = {}, max_instances = {} }},",
                    t.id, t.name, t.framebuffer_mib, t.max
                )
                .unwrap();
            }
            marker.push_str("]\n");
            let mode = if g.layout == Layout::MdevOnGpu {
                "non_sriov"
            } else {
                "sriov"
            };
            writeln!(
                node,
                "[[gpus]]\nmodel = \"{}\"\nvgpu_host_mode = \"{mode}\"",
                g.model
            )
            .unwrap();
        }
        run(&[
            Op::Dir(host.root().join("sys/module/nvidia_vgpu_vfio")),
            Op::Dir(host.root().join("sys/class/mdev_bus")),
            Op::Dir(host.root().join("proc")),
            Op::File(host.root().join("gpushare-fake-kernel.toml"), marker),
            Op::File(host.dir.path().join("node.toml"), node),
        ]);
        let log = host.sriov_log();
        let script = format!(
            "#!/bin/sh\n# stand-in for the vGPU Manager's sriov-manage\necho \"$@\" >> {}\n\
             [ \"$1\" = \"-e\" ] || {{ echo 'usage: sriov-manage -e <bdf>' >&2; exit 2; }}\n\
             case \"$2\" in\n{script_cases}  *) echo \"sriov-manage: no SR-IOV GPU $2\" >&2; exit 1 ;;\nesac\n",
            quote(&log)
        );
        let bin = host.dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let path = bin.join("sriov-manage");
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        host
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    pub fn state_root(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    pub fn sriov_log(&self) -> PathBuf {
        self.dir.path().join("sriov-manage.log")
    }

    pub fn pf(&self, i: usize) -> String {
        format!("0000:{:02x}:00.0", SIM_BUSES[i])
    }

    /// The VFs of GPU `i`, at the addresses SR-IOV gives them (first VF at function 4).
    pub fn vfs(&self, i: usize) -> Vec<String> {
        (0..self.gpus[i].vfs)
            .map(|n| {
                let devfn = 4 + n;
                format!("0000:{:02x}:{:02x}.{}", SIM_BUSES[i], devfn / 8, devfn % 8)
            })
            .collect()
    }

    pub fn device_dir(&self, bdf: &str) -> PathBuf {
        self.root().join("sys/bus/pci/devices").join(bdf)
    }

    fn group(&self) -> u32 {
        let g = self.next_group.get();
        self.next_group.set(g + 1);
        g
    }

    fn common_ops(&self, dir: &Path, device_id: u16, driver: &str) -> Vec<Op> {
        let group = self
            .root()
            .join(format!("sys/kernel/iommu_groups/{}", self.group()));
        vec![
            Op::File(dir.join("vendor"), "0x10de\n".into()),
            Op::File(dir.join("device"), format!("0x{device_id:04x}\n")),
            Op::File(dir.join("class"), "0x030200\n".into()),
            Op::Dir(group.clone()),
            Op::Link(dir.join("iommu_group"), group),
            Op::Dir(self.root().join("sys/bus/pci/drivers").join(driver)),
            Op::Link(
                dir.join("driver"),
                self.root().join("sys/bus/pci/drivers").join(driver),
            ),
        ]
    }

    fn mdev_type_ops(
        &self,
        parent_dir: &Path,
        g: &GpuSpec,
        per_parent_max: Option<u32>,
    ) -> Vec<Op> {
        let mut ops = Vec::new();
        for t in &g.types {
            let d = parent_dir.join(format!("mdev_supported_types/nvidia-{}", t.id));
            ops.push(Op::File(d.join("name"), format!("NVIDIA {}\n", t.name)));
            ops.push(Op::File(
                d.join("description"),
                format!(
                    "num_heads=1, frl_config=60, framebuffer={}M, max_resolution=4096x2160, max_instance={}\n",
                    t.framebuffer_mib, t.max
                ),
            ));
            ops.push(Op::File(
                d.join("available_instances"),
                format!("{}\n", per_parent_max.unwrap_or(t.max)),
            ));
            ops.push(Op::File(d.join("device_api"), "vfio-pci\n".into()));
            ops.push(Op::File(d.join("create"), String::new()));
            ops.push(Op::Dir(d.join("devices")));
        }
        ops
    }

    fn pf_ops(&self, g: &GpuSpec, pf: &str) -> Vec<Op> {
        let dir = self.device_dir(pf);
        let mut ops = self.common_ops(&dir, g.device_id, "nvidia");
        if g.layout == Layout::MdevOnGpu {
            ops.extend(self.mdev_type_ops(&dir, g, None));
            ops.push(Op::Link(
                self.root().join("sys/class/mdev_bus").join(pf),
                dir,
            ));
        } else {
            ops.push(Op::File(dir.join("sriov_totalvfs"), format!("{}\n", g.vfs)));
            ops.push(Op::File(dir.join("sriov_numvfs"), "0\n".into()));
        }
        ops
    }

    /// The VFs of a GPU and everything the driver shows on them once SR-IOV is on.
    fn vf_ops(&self, g: &GpuSpec, pf: &str) -> Vec<Op> {
        if g.layout == Layout::MdevOnGpu {
            return Vec::new();
        }
        let i = (0..self.gpus.len()).find(|i| self.pf(*i) == pf).unwrap();
        let pf_dir = self.device_dir(pf);
        let mut ops = Vec::new();
        let creatable: String = std::iter::once("ID    : vGPU Name\n".to_string())
            .chain(
                g.types
                    .iter()
                    .map(|t| format!("{:<5} : NVIDIA {}\n", t.id, t.name)),
            )
            .collect();
        for (n, vf) in self.vfs(i).iter().enumerate() {
            let dir = self.device_dir(vf);
            ops.extend(self.common_ops(&dir, g.device_id + 1, "nvidia"));
            ops.push(Op::Link(dir.join("physfn"), pf_dir.clone()));
            ops.push(Op::Link(pf_dir.join(format!("virtfn{n}")), dir.clone()));
            match g.layout {
                Layout::MdevOnVfs => {
                    ops.extend(self.mdev_type_ops(&dir, g, Some(1)));
                    ops.push(Op::Link(
                        self.root().join("sys/class/mdev_bus").join(vf),
                        dir,
                    ));
                }
                Layout::VendorVfio => {
                    ops.push(Op::File(dir.join("nvidia/current_vgpu_type"), "0\n".into()));
                    ops.push(Op::File(
                        dir.join("nvidia/creatable_vgpu_types"),
                        creatable.clone(),
                    ));
                    ops.push(Op::Dir(dir.join(format!("vfio-dev/vfio{}", 100 * i + n))));
                }
                Layout::MdevOnGpu => {}
            }
        }
        ops.push(Op::File(
            pf_dir.join("sriov_numvfs"),
            format!("{}\n", g.vfs),
        ));
        ops
    }

    /// `gpushare --sim <node> vgpu ARGS --sysfs-root <tree>`, with the stand-in sriov-manage
    /// first on PATH (then tests/support/bin: the stand-in mdevctl keeps its definitions in
    /// [`FakeHost::mdevctl_dir`]) and state kept in the test's directory.
    pub fn vgpu(&self, args: &[&str]) -> Command {
        self.vgpu_with_state(&self.state_root(), args)
    }

    /// The same, with another state root (what gpushare has learned lives there).
    pub fn vgpu_with_state(&self, state_root: &Path, args: &[&str]) -> Command {
        let mut cmd = super::gpushare();
        let path = format!(
            "{}:{}:{}",
            self.dir.path().join("bin").display(),
            super::repo().join("tests/support/bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        cmd.env("PATH", path)
            .env("MDEVCTL_STANDIN_DIR", self.mdevctl_dir())
            .env("STANDIN_LOG", self.dir.path().join("standin.log"))
            .arg("--sim")
            .arg(self.dir.path().join("node.toml"))
            .arg("--state-root")
            .arg(state_root)
            .arg("vgpu")
            .args(args)
            .arg("--sysfs-root")
            .arg(self.root());
        cmd
    }

    /// The mdev devices the stand-in mdevctl has definitions of (their UUIDs, sorted).
    pub fn mdevctl_dir(&self) -> PathBuf {
        self.dir.path().join("mdevctl")
    }

    pub fn defined(&self) -> Vec<String> {
        let mut uuids: Vec<String> = std::fs::read_dir(self.mdevctl_dir())
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        uuids.sort();
        uuids
    }

    /// Write a file in the test directory (configs).
    pub fn file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    /// A fake VM process holding a VFIO node (`/dev/vfio/<group>` or `/dev/vfio/devices/vfioN`).
    pub fn vm_holds(&self, pid: u32, vfio_node: &str) {
        let proc_dir = self.root().join(format!("proc/{pid}"));
        std::fs::create_dir_all(proc_dir.join("fd")).unwrap();
        std::fs::write(proc_dir.join("comm"), "qemu-system-x86\n").unwrap();
        let n = std::fs::read_dir(proc_dir.join("fd")).unwrap().count() + 20;
        symlink(vfio_node, proc_dir.join(format!("fd/{n}"))).unwrap();
    }

    /// Every path of the tree with its content or link target: equal digests, unchanged tree.
    pub fn digest(&self) -> Vec<String> {
        fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
            let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
            entries.sort_by_key(|e| e.file_name());
            for e in entries {
                let p = e.path();
                let rel = p.strip_prefix(base).unwrap().display().to_string();
                let meta = std::fs::symlink_metadata(&p).unwrap();
                if meta.file_type().is_symlink() {
                    out.push(format!(
                        "{rel} -> {}",
                        std::fs::read_link(&p).unwrap().display()
                    ));
                } else if meta.is_dir() {
                    out.push(format!("{rel}/"));
                    walk(&p, base, out);
                } else {
                    out.push(format!(
                        "{rel} = {:?}",
                        std::fs::read_to_string(&p).unwrap()
                    ));
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.root(), &self.root(), &mut out);
        out
    }
}

/// Two A100 40GB, mdev on their SR-IOV VFs (Ampere), VFs enabled.
pub fn a100_mdev_host() -> FakeHost {
    let types = vec![
        t(698, "A100-1-5C", 5, 7),
        t(699, "A100-2-10C", 10, 3),
        t(472, "A100-4C", 4, 10),
        t(473, "A100-5C", 5, 8),
        t(474, "A100-8C", 8, 5),
        t(475, "A100-10C", 10, 4),
        t(476, "A100-20C", 20, 2),
        t(477, "A100-40C", 40, 1),
    ];
    let gpu = GpuSpec {
        model: "NVIDIA A100-SXM4-40GB",
        device_id: 0x20b0,
        layout: Layout::MdevOnVfs,
        vfs: 16,
        vfs_enabled: true,
        heterogeneous: false,
        types,
    };
    FakeHost::new(vec![gpu.clone(), gpu])
}

/// One Tesla T4, mdev on the GPU itself (no SR-IOV).
pub fn t4_mdev_host() -> FakeHost {
    FakeHost::new(vec![GpuSpec {
        model: "Tesla T4",
        device_id: 0x1eb8,
        layout: Layout::MdevOnGpu,
        vfs: 0,
        vfs_enabled: false,
        heterogeneous: false,
        types: vec![
            t(222, "T4-1Q", 1, 16),
            t(223, "T4-2Q", 2, 8),
            t(224, "T4-4Q", 4, 4),
            t(225, "T4-8Q", 8, 2),
            t(226, "T4-16Q", 16, 1),
        ],
    }])
}

fn l40s_types() -> Vec<TypeSpec> {
    vec![
        t(1153, "L40S-4Q", 4, 12),
        t(1154, "L40S-8Q", 8, 6),
        t(1155, "L40S-12Q", 12, 4),
        t(1156, "L40S-24Q", 24, 2),
        t(1157, "L40S-48Q", 48, 1),
    ]
}

/// One L40S with vendor-specific VFIO, VFs enabled (vGPU 17+).
pub fn l40s_vfio_host() -> FakeHost {
    FakeHost::new(vec![GpuSpec {
        model: "NVIDIA L40S",
        device_id: 0x26b9,
        layout: Layout::VendorVfio,
        vfs: 16,
        vfs_enabled: true,
        heterogeneous: false,
        types: l40s_types(),
    }])
}

/// Two H100 80GB with vendor-specific VFIO and SR-IOV not enabled yet.
pub fn h100_sriov_off_host() -> FakeHost {
    let gpu = GpuSpec {
        model: "NVIDIA H100 80GB HBM3",
        device_id: 0x2330,
        layout: Layout::VendorVfio,
        vfs: 16,
        vfs_enabled: false,
        heterogeneous: false,
        types: vec![
            t(1300, "H100-1-10C", 10, 7),
            t(1301, "H100-2-20C", 20, 3),
            t(1310, "H100-10C", 10, 8),
            t(1311, "H100-20C", 20, 4),
            t(1312, "H100-40C", 40, 2),
            t(1313, "H100-80C", 80, 1),
        ],
    };
    FakeHost::new(vec![gpu.clone(), gpu])
}

/// One L40S in heterogeneous (mixed-size) mode.
pub fn l40s_heterogeneous_host() -> FakeHost {
    FakeHost::new(vec![GpuSpec {
        model: "NVIDIA L40S",
        device_id: 0x26b9,
        layout: Layout::VendorVfio,
        vfs: 16,
        vfs_enabled: true,
        heterogeneous: true,
        types: l40s_types(),
    }])
}
