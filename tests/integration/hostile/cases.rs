//! The hostile-input corpus: each case a file and where its error must point.
//!
//! Most cases are a known-good file with one line replaced, so the error must name that line.

/// Which file a case is, and so which command it is given to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// gpushare.toml, to `apply -c` on a simulated DGX A100.
    Toml,
    /// A mig-parted v1 config, to `mig apply -f … -c c`.
    MigParted,
    /// A vgpu-device-manager config, to `vgpu apply -f … -c c` on a fake vGPU host (2× A100).
    VgpuDm,
    /// A node file, to `--sim FILE detect`.
    NodeFile,
    /// A simulator state file, to `--sim-state FILE apply`.
    SimState,
}

impl Kind {
    pub fn extension(self) -> &'static str {
        match self {
            Kind::Toml | Kind::NodeFile => "toml",
            Kind::MigParted | Kind::VgpuDm => "yaml",
            Kind::SimState => "json",
        }
    }
}

/// Where the error must point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// `file:LINE:COLUMN`, this line.
    Line(usize),
    /// `file:LINE:COLUMN`, exactly there.
    At(usize, usize),
    /// `file:LINE:COLUMN`, anywhere.
    Somewhere,
    /// The file, without a position (the input has no lines to point at).
    Whole,
}

pub struct Case {
    pub kind: Kind,
    pub name: String,
    pub bytes: Vec<u8>,
    pub place: Place,
    /// Something the message must say.
    pub says: Option<&'static str>,
}

fn case(kind: Kind, name: impl Into<String>, text: impl Into<Vec<u8>>, place: Place) -> Case {
    Case {
        kind,
        name: name.into(),
        bytes: text.into(),
        place,
        says: None,
    }
}

impl Case {
    fn says(mut self, text: &'static str) -> Case {
        self.says = Some(text);
        self
    }
}

/// A long string: a type or profile name far beyond any real one.
fn huge(n: usize) -> String {
    "A".repeat(n)
}

/// `n` nested arrays: a parser without a depth limit overflows its stack.
fn nested(n: usize) -> String {
    format!("{}{}", "[".repeat(n), "]".repeat(n))
}

/// Bytes that are text up to `bad`, then not UTF-8.
fn not_utf8(before: &str) -> Vec<u8> {
    let mut b = before.as_bytes().to_vec();
    b.extend_from_slice(b"\xff\xfe bad\n");
    b
}

/// `template` with line `line` (1-based) replaced by `with`.
fn replace_line(template: &str, line: usize, with: &str) -> String {
    template
        .lines()
        .enumerate()
        .map(|(i, l)| if i + 1 == line { with } else { l })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// The files the cases break, each valid as it is.
pub fn templates() -> Vec<(Kind, &'static str)> {
    vec![
        (Kind::Toml, TOML_MIG),
        (Kind::Toml, TOML_MPS),
        (Kind::Toml, TOML_TS),
        (Kind::MigParted, MIG_PARTED),
        (Kind::VgpuDm, VGPU_DM),
        (Kind::NodeFile, NODE),
        (Kind::SimState, SIM_STATE),
    ]
}

pub fn all() -> Vec<Case> {
    let mut all = Vec::new();
    all.extend(toml_cases());
    all.extend(mig_parted_cases());
    all.extend(vgpu_cases());
    all.extend(node_file_cases());
    all.extend(sim_state_cases());
    all.extend(oversize_cases());
    all.extend(limit_cases());
    all
}

/// One gpushare.toml entry; line 4 is the mode's section.
const TOML_MIG: &str =
    "[[gpus]]\nselect = [0, 1]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 2 }\n";
const TOML_MPS: &str = "[[gpus]]\nselect = [2]\nmode = \"mps\"\nmps = { clients = 4 }\n";
const TOML_TS: &str =
    "[[gpus]]\nselect = [3]\nmode = \"time-slicing\"\ntime_slicing.replicas = 4\n";
const TOML_VGPU: &str =
    "[[gpus]]\nselect = [4]\nmode = \"vgpu\"\nvgpu.devices = { \"A100-4C\" = 2 }\n";

fn toml_cases() -> Vec<Case> {
    let t = |name: &str, text: String, place: Place| case(Kind::Toml, name, text, place);
    let mut v = Vec::new();
    let long = huge(200_000);
    for devices in [
        "{ \"1g.5gb\" = 8 }",
        "{ \"1g.5gb\" = -1 }",
        "{ \"1g.5gb\" = 4294967296 }",
        "{ \"1g.5gb\" = 1.5 }",
        "{ \"1g.5gb\" = \"2\" }",
        "{ \"9g.99gb\" = 1 }",
        "{ \"\" = 1 }",
        "{ \"1g.5gb\" = 1, \"1g.5gb\" = 1 }",
        "{ \"\\u001b[2J\\u001b]0;owned\\u0007\" = 1 }",
        "{ \"1g.5gb\\u0000\" = 1 }",
        "{ \"7g.40gb\" = 2 }",
        "{ \"3g.20gb\" = 3 }",
        "{ \"1c.7g.40gb\" = 8 }",
        "{ \"1g.20gb\" = 1 }",
        "{ \"4g.20gb\" = 2 }",
        "{ \"3g.20gb\" = 2, \"1g.5gb\" = 2 }",
        "[\"1g.5gb\"]",
        "\"1g.5gb\"",
        "{ \"1g.5gb\" = { count = 1 } }",
        "{ \"1g.5gb\" = nan }",
        "{ \"1g.5gb\" = inf }",
    ] {
        v.push(t(
            &format!("mig.devices = {devices}"),
            replace_line(TOML_MIG, 4, &format!("mig.devices = {devices}")),
            Place::Line(4),
        ));
    }
    v.push(t(
        "a 200 KB profile name",
        replace_line(TOML_MIG, 4, &format!("mig.devices = {{ \"{long}\" = 1 }}")),
        Place::Line(4),
    ));
    for instances in [
        "[{ profile = \"3g.20gb\", start = 99 }]",
        "[{ profile = \"3g.20gb\", start = -1 }]",
        "[{ profile = \"3g.20gb\", start = 1 }]",
        "[{ profile = \"3g.20gb\", start = 4 }, { profile = \"3g.20gb\", start = 4 }]",
        "[{ profile = \"bogus\" }]",
        "[{ start = 0 }]",
        "[{ profile = \"1g.5gb\", start = 0, extra = 1 }]",
        "[1, 2]",
    ] {
        v.push(t(
            &format!("mig.instances = {instances}"),
            replace_line(TOML_MIG, 4, &format!("mig.instances = {instances}")),
            Place::Line(4),
        ));
    }
    v.push(t(
        "mig.mps with no clients",
        replace_line(
            TOML_MIG,
            4,
            "mig = { devices = { \"1g.5gb\" = 2 }, mps = { clients = 0 } }",
        ),
        Place::Line(4),
    ));
    for mps in [
        "{ clients = 0 }",
        "{ clients = 49 }",
        "{ clients = -1 }",
        "{ clients = 4294967296 }",
        "{ thread_percentage = 0 }",
        "{ thread_percentage = 101 }",
        "{ memory_limit = \"0\" }",
        "{ memory_limit = \"1X\" }",
        "{ memory_limit = \"99999T\" }",
        "{ memory_limit = -5 }",
        "{ memory_limit = \"nan\" }",
        "{ memory_limit = \"inf\" }",
        "{ memory_limit = \"41G\" }",
        "{}",
        "{ clients = 4, bogus = 1 }",
        "{ clients = \"4\" }",
    ] {
        v.push(t(
            &format!("mps = {mps}"),
            replace_line(TOML_MPS, 4, &format!("mps = {mps}")),
            Place::Line(4),
        ));
    }
    for replicas in ["1", "1025", "0", "-1", "\"4\"", "4.0", "{}"] {
        v.push(t(
            &format!("time_slicing.replicas = {replicas}"),
            replace_line(TOML_TS, 4, &format!("time_slicing.replicas = {replicas}")),
            Place::Line(4),
        ));
    }
    for devices in [
        "{ \"A100-4C\" = 0 }",
        "{ \"A100 4C\" = 1 }",
        "{ \"A100-4C\" = 4294967296 }",
        "{ \"A100-4C\" = -3 }",
        "{ \"\" = 1 }",
    ] {
        v.push(t(
            &format!("vgpu.devices = {devices}"),
            replace_line(TOML_VGPU, 4, &format!("vgpu.devices = {devices}")),
            Place::Line(4),
        ));
    }
    v.push(t(
        "a 200 KB vGPU type name",
        replace_line(
            TOML_VGPU,
            4,
            &format!("vgpu.devices = {{ \"{long}\" = 1 }}"),
        ),
        Place::Line(4),
    ));
    for select in [
        "[99]",
        "[-1]",
        "\"some\"",
        "{ model = \"Tesla*\" }",
        "{ pci_device_id = \"0xZZZZ\" }",
        "{ pci_device_id = \"0x20B010DE\", bogus = 1 }",
        "[4294967296]",
        "[0.5]",
        "42",
        "[[0]]",
        "true",
        "[0, 8]",
    ] {
        v.push(t(
            &format!("select = {select}"),
            replace_line(TOML_MIG, 2, &format!("select = {select}")),
            Place::Line(2),
        ));
    }
    for mode in ["\"bogus\"", "1", "\"MIG\"", "\"\"", "\"mig\\u001b[2J\""] {
        v.push(t(
            &format!("mode = {mode}"),
            replace_line(TOML_MIG, 3, &format!("mode = {mode}")),
            Place::Line(3),
        ));
    }
    v.push(t(
        "a 200 KB mode",
        replace_line(TOML_MIG, 3, &format!("mode = \"{long}\"")),
        Place::Line(3),
    ));
    let k8s = |body: &str| format!("{TOML_MIG}\n[kubernetes]\n{body}\n");
    for body in [
        "targets = [\"bogus\"]",
        "namespace = \"Bad_NS\"",
        "namespace = \"\"",
        "namespace = \"a\\u001b[2Jb\"",
        "version = \"x.y\"",
        "targets = \"cdi\"",
        "bogus = 1",
    ] {
        v.push(t(
            &format!("[kubernetes] {body}"),
            k8s(body),
            Place::Line(7),
        ));
    }
    let structural: Vec<(&str, String, Place)> = vec![
        (
            "version = 2",
            format!("version = 2\n{TOML_MIG}"),
            Place::Line(1),
        ),
        (
            "version = -1",
            format!("version = -1\n{TOML_MIG}"),
            Place::Line(1),
        ),
        (
            "version = \"1\"",
            format!("version = \"1\"\n{TOML_MIG}"),
            Place::Line(1),
        ),
        ("gpus is a string", "gpus = \"x\"\n".into(), Place::Line(1)),
        ("gpus holds numbers", "gpus = [1]\n".into(), Place::Line(1)),
        (
            "gpus is a table",
            "[gpus]\nselect = [0]\nmode = \"none\"\n".into(),
            Place::Somewhere,
        ),
        (
            "an unknown top-level key",
            format!("{TOML_MIG}bogus = 1\n"),
            Place::Line(5),
        ),
        (
            "no mode",
            "[[gpus]]\nselect = [0]\n".into(),
            Place::Somewhere,
        ),
        (
            "no select",
            "[[gpus]]\nmode = \"none\"\n".into(),
            Place::Somewhere,
        ),
        (
            "mode mig without a mig section",
            "[[gpus]]\nselect = [0]\nmode = \"mig\"\n".into(),
            Place::Line(3),
        ),
        (
            "an mps section under mode mig",
            format!("{TOML_MIG}mps = {{ clients = 2 }}\n"),
            Place::Line(5),
        ),
        (
            "two entries for GPU 0",
            format!("{TOML_MIG}\n[[gpus]]\nselect = [0]\nmode = \"none\"\n"),
            Place::Line(7),
        ),
        (
            "an unterminated string",
            "[[gpus]]\nselect = [0]\nmode = \"none\n".into(),
            Place::Line(3),
        ),
        (
            "a key with no value",
            "[[gpus]]\nselect =\n".into(),
            Place::Line(2),
        ),
        (
            "an unclosed table header",
            "[[gpus]\nselect = [0]\n".into(),
            Place::Line(1),
        ),
        (
            "a NUL byte",
            "[[gpus]]\nselect = [0]\0\nmode = \"none\"\n".into(),
            Place::Line(2),
        ),
        (
            "100 000 nested arrays",
            format!("[[gpus]]\nselect = {}\nmode = \"none\"\n", nested(100_000)),
            Place::Line(2),
        ),
        (
            "a raw escape sequence in a comment and a bad value",
            "# \u{1b}]0;owned\u{7}\n[[gpus]]\nselect = [0]\nmode = \"\u{1b}[2J\"\n".into(),
            Place::Line(1),
        ),
        (
            "CRLF lines with a bad value",
            "[[gpus]]\r\nselect = [0]\r\nmode = \"bogus\"\r\n".into(),
            Place::Line(3),
        ),
        (
            "a BOM then a bad value",
            "\u{feff}[[gpus]]\nselect = [0]\nmode = \"bogus\"\n".into(),
            Place::Line(3),
        ),
        (
            "100 000 comment lines then a bad value",
            format!(
                "{}[[gpus]]\nselect = [0]\nmode = \"bogus\"\n",
                "# c\n".repeat(100_000)
            ),
            Place::Line(100_003),
        ),
        (
            "a 1 MB line then a bad value",
            format!(
                "# {}\n[[gpus]]\nselect = [0]\nmode = \"bogus\"\n",
                "x".repeat(1 << 20)
            ),
            Place::Line(4),
        ),
        (
            "a duplicated table key",
            format!("{TOML_MIG}select = [2]\n"),
            Place::Line(5),
        ),
        (
            "a date as select",
            "[[gpus]]\nselect = 1979-05-27\nmode = \"none\"\n".into(),
            Place::Line(2),
        ),
    ];
    for (name, text, place) in structural {
        v.push(t(name, text, place));
    }
    // GPU clients: names given to systemctl and modprobe as root, never options or patterns.
    for (key, value) in [
        ("systemd", "\"--now\""),
        ("systemd", "\"nvsm*.service\""),
        ("systemd", "\"../../x.service\""),
        ("systemd", "\"a b.service\""),
        ("systemd", "\"\\u001b[2J.service\""),
        ("systemd", "1"),
        ("modules", "\"-r\""),
        ("modules", "\"nvidia drm\""),
        ("modules", "\"\""),
    ] {
        v.push(t(
            &format!("[clients] {key} = [{value}]"),
            format!("{TOML_MIG}\n[clients]\n{key} = [{value}]\n"),
            Place::Line(7),
        ));
    }
    v.push(t(
        "an unknown key in [clients]",
        format!("{TOML_MIG}\n[clients]\nservices = []\n"),
        Place::Line(7),
    ));
    v.push(case(
        Kind::Toml,
        "bytes that are not UTF-8",
        not_utf8("[[gpus]]\nselect = [0]\nmode = \""),
        Place::At(3, 9),
    ));
    v
}

/// A mig-parted config; line 5 is `mig-enabled`, line 7 the profile counts.
const MIG_PARTED: &str = "version: v1\nmig-configs:\n  c:\n    - devices: all\n      mig-enabled: true\n      mig-devices:\n        \"1g.5gb\": 2\n";

fn mig_parted_cases() -> Vec<Case> {
    let m = |name: &str, text: String, place: Place| case(Kind::MigParted, name, text, place);
    let mut v = Vec::new();
    let long = huge(200_000);
    for (line, with) in [
        (1, "version: v2"),
        (1, "version: 1"),
        (1, "version: [v1]"),
        (1, "version: \"\""),
        (1, "version: !foo v1"),
        (4, "    - devices: some"),
        (4, "    - devices: [99]"),
        (4, "    - devices: [-1]"),
        (4, "    - devices: [4294967296]"),
        (4, "    - devices: [0.5]"),
        (4, "    - devices: {a: 1}"),
        (4, "    - devices: [\"0\"]"),
        (4, "    - devices: null"),
        (4, "    - devices: !!python/object:os.system all"),
        (4, "    - device-filter: \"0xZZ\"\n      devices: all"),
        (
            4,
            "    - device-filter: [\"0x20B010DE:junk\"]\n      devices: all",
        ),
        (4, "    - device-filter: {a: b}\n      devices: all"),
        (4, "    - bogus: 1"),
        (5, "      mig-enabled: \"yes\""),
        (5, "      mig-enabled: yes"),
        (5, "      mig-enabled: \"true\""),
        (5, "      mig-enabled: on"),
        (5, "      mig-enabled: 1"),
        (5, "      mig-enabled: !foo true"),
        (5, "      mig-enabled: [true]"),
        (7, "        \"1g.5gb\": -1"),
        (7, "        \"1g.5gb\": 8"),
        (7, "        \"x\": 1"),
        (7, "        \"1g.5gb\": two"),
        (7, "        \"1g.5gb\": 99999999999999999999"),
        (7, "        \"1g.5gb\": 1.5"),
        (7, "        \"\": 1"),
        (7, "        \"7g.40gb\": 2"),
        (7, "        \"\\e[2J\\e]0;owned\\a\": 1"),
        (7, "        \"1g.5gb\": !foo 1"),
        (7, "        !foo \"1g.5gb\": 1"),
        (7, "        \"1g.5gb\": [1]"),
        (7, "        \"1g.5gb\": {a: 1}"),
        (7, "        \"1g.5gb\": .nan"),
        (7, "        \"1g.5gb\": 0x7fffffffffffffff"),
        (7, "\t\"1g.5gb\": 2"),
    ] {
        v.push(m(
            with.trim(),
            replace_line(MIG_PARTED, line, with),
            Place::Line(line),
        ));
    }
    v.push(m(
        "a 200 KB profile name",
        replace_line(MIG_PARTED, 7, &format!("        \"{long}\": 1")),
        Place::Line(7),
    ));
    let whole: Vec<(&str, String, Place)> = vec![
        ("no version", MIG_PARTED.replacen("version: v1\n", "", 1), Place::Somewhere),
        ("no mig-configs", "version: v1\n".into(), Place::Somewhere),
        ("empty mig-configs", "version: v1\nmig-configs: {}\n".into(), Place::Line(2)),
        ("mig-configs is a list", "version: v1\nmig-configs: [c]\n".into(), Place::Line(2)),
        ("mig-configs is a string", "version: v1\nmig-configs: c\n".into(), Place::Line(2)),
        ("a label with no entry", "version: v1\nmig-configs:\n  c: []\n".into(), Place::Line(3)),
        ("a label that is a string", "version: v1\nmig-configs:\n  c: x\n".into(), Place::Line(3)),
        ("an entry that is a number", "version: v1\nmig-configs:\n  c:\n    - 1\n".into(), Place::Line(4)),
        (
            "no devices",
            replace_line(MIG_PARTED, 4, "    - mig-enabled: true").replacen("      mig-enabled: true\n", "", 1),
            Place::Line(4),
        ),
        (
            "no mig-enabled",
            MIG_PARTED.replacen("      mig-enabled: true\n", "", 1),
            Place::Line(4),
        ),
        (
            "no mig-devices with MIG enabled",
            "version: v1\nmig-configs:\n  c:\n    - devices: all\n      mig-enabled: true\n".into(),
            Place::Line(4),
        ),
        (
            "mig-devices with MIG disabled",
            replace_line(MIG_PARTED, 5, "      mig-enabled: false"),
            Place::Line(7),
        ),
        ("no label c", MIG_PARTED.replacen("  c:", "  other:", 1), Place::Line(3)),
        (
            "mig-enabled: null",
            replace_line(MIG_PARTED, 5, "      mig-enabled: null"),
            Place::Line(4),
        ),
        (
            "a profile twice",
            replace_line(MIG_PARTED, 7, "        \"1g.5gb\": 2\n        \"1g.5gb\": 1"),
            Place::Line(8),
        ),
        ("an unknown top-level key", format!("{MIG_PARTED}bogus: 1\n"), Place::Line(8)),
        (
            "a duplicated label",
            format!("{MIG_PARTED}  c:\n    - devices: all\n      mig-enabled: false\n"),
            Place::Line(8),
        ),
        (
            "an alias bomb",
            format!(
                "version: v1\nx: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n{}mig-configs: {{}}\n",
                (b'b'..=b'j')
                    .map(|c| {
                        let prev = (c - 1) as char;
                        format!("{}: &{} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n", c as char, c as char)
                    })
                    .collect::<String>()
            ),
            Place::Somewhere,
        ),
        ("an unterminated quote", "version: \"v1\nmig-configs: {}\n".into(), Place::Somewhere),
        ("an unclosed flow list", "version: v1\nmig-configs: [\n".into(), Place::Somewhere),
        ("two documents", format!("{MIG_PARTED}---\n{MIG_PARTED}"), Place::Somewhere),
        ("bad indentation", "version: v1\n mig-configs:\n  c: []\n".into(), Place::Line(2)),
        ("100 000 nested lists", format!("version: v1\nmig-configs: {}\n", nested(100_000)), Place::Somewhere),
        ("a NUL byte", "version: v1\0\nmig-configs: {}\n".into(), Place::Line(1)),
        ("a merge key from an alias", "version: v1\nbase: &b {devices: all}\nmig-configs:\n  c:\n    - <<: *b\n      mig-enabled: yes\n".into(), Place::Somewhere),
        ("a directive", "%YAML 1.1\n%TAG ! tag:evil.example,2000:\n---\nversion: !x v1\n".into(), Place::Somewhere),
        ("a document of nothing", "---\n...\n".into(), Place::Somewhere),
        ("a scalar document", "just text\n".into(), Place::Somewhere),
    ];
    for (name, text, place) in whole {
        v.push(m(name, text, place));
    }
    v.push(case(
        Kind::MigParted,
        "bytes that are not UTF-8",
        not_utf8("version: v1\nmig-configs:\n  "),
        Place::At(3, 3),
    ));
    v
}

/// A vgpu-device-manager config; line 4 is `devices`, line 6 the type counts (the fake host's
/// A100s have 4 VFs each).
const VGPU_DM: &str = "version: v1\nvgpu-configs:\n  c:\n    - devices: all\n      vgpu-devices:\n        \"A100-4C\": 4\n";

fn vgpu_cases() -> Vec<Case> {
    let g = |name: &str, text: String, place: Place| case(Kind::VgpuDm, name, text, place);
    let mut v = Vec::new();
    let long = huge(200_000);
    for (line, with) in [
        (1, "version: v2"),
        (1, "version: 1"),
        (1, "version: !foo v1"),
        (4, "    - devices: some"),
        (4, "    - devices: [99]"),
        (4, "    - devices: [0, 2]"),
        (4, "    - devices: [-1]"),
        (4, "    - devices: [4294967296]"),
        (4, "    - devices: [0.5]"),
        (4, "    - devices: {a: 1}"),
        (4, "    - device-filter: \"0xZZ\"\n      devices: all"),
        (4, "    - device-filter: 5\n      devices: all"),
        (4, "    - bogus: 1"),
        (6, "        \"A100-4C\": 4294967296"),
        (6, "        \"A100-4C\": -1"),
        (6, "        \"A100-4C\": 0"),
        (6, "        \"A100-99C\": 1"),
        (6, "        \"A100-4C\": 5"),
        (6, "        \"A100-40C\": 2"),
        (6, "        \"A100 4C\": 1"),
        (6, "        \"A100-4C\": x"),
        (6, "        \"A100-4C\": 1.5"),
        (6, "        \"A100-4C\": 99999999999999999999"),
        (6, "        \"A100-4C\": !foo 1"),
        (6, "        \"\": 1"),
        (6, "        \"\\e[2J\\e]0;owned\\a\": 1"),
        (6, "        \"T4-16Q\": 1"),
    ] {
        v.push(g(
            with.trim(),
            replace_line(VGPU_DM, line, with),
            Place::Line(line),
        ));
    }
    v.push(g(
        "a 200 KB type name",
        replace_line(VGPU_DM, 6, &format!("        \"{long}\": 1")),
        Place::Line(6),
    ));
    let whole: Vec<(&str, String, Place)> = vec![
        (
            "no version",
            VGPU_DM.replacen("version: v1\n", "", 1),
            Place::Somewhere,
        ),
        ("no vgpu-configs", "version: v1\n".into(), Place::Somewhere),
        (
            "empty vgpu-configs",
            "version: v1\nvgpu-configs: {}\n".into(),
            Place::Line(2),
        ),
        (
            "vgpu-configs is a list",
            "version: v1\nvgpu-configs: [c]\n".into(),
            Place::Line(2),
        ),
        (
            "a label with no entry",
            "version: v1\nvgpu-configs:\n  c: []\n".into(),
            Place::Line(3),
        ),
        (
            "no vgpu-devices",
            "version: v1\nvgpu-configs:\n  c:\n    - devices: all\n".into(),
            Place::Line(4),
        ),
        (
            "vgpu-devices is a list",
            replace_line(VGPU_DM, 5, "      vgpu-devices: [1]").replacen(
                "        \"A100-4C\": 4\n",
                "",
                1,
            ),
            Place::Line(5),
        ),
        (
            "no label c",
            VGPU_DM.replacen("  c:", "  other:", 1),
            Place::Line(3),
        ),
        (
            "a type twice",
            replace_line(VGPU_DM, 6, "        \"A100-4C\": 2\n        \"A100-4C\": 3"),
            Place::Line(7),
        ),
        (
            "time-sliced and MIG-backed types on one GPU",
            replace_line(
                VGPU_DM,
                6,
                "        \"A100-4C\": 2\n        \"A100-1-5C\": 1",
            ),
            Place::Line(7),
        ),
        (
            "two entries for GPU 0",
            format!("{VGPU_DM}    - devices: [0]\n      vgpu-devices: {{}}\n"),
            Place::Line(7),
        ),
        (
            "an unknown top-level key",
            format!("{VGPU_DM}bogus: 1\n"),
            Place::Line(7),
        ),
        (
            "an unterminated quote",
            "version: \"v1\nvgpu-configs: {}\n".into(),
            Place::Somewhere,
        ),
        (
            "100 000 nested lists",
            format!("version: v1\nvgpu-configs: {}\n", nested(100_000)),
            Place::Somewhere,
        ),
        (
            "a NUL byte",
            "version: v1\0\nvgpu-configs: {}\n".into(),
            Place::Line(1),
        ),
        (
            "two documents",
            format!("{VGPU_DM}---\n{VGPU_DM}"),
            Place::Somewhere,
        ),
        ("a scalar document", "just text\n".into(), Place::Somewhere),
    ];
    for (name, text, place) in whole {
        v.push(g(name, text, place));
    }
    v.push(case(
        Kind::VgpuDm,
        "bytes that are not UTF-8",
        not_utf8("version: v1\nvgpu-configs:\n  "),
        Place::At(3, 3),
    ));
    v
}

/// A node file; line 2 is the model, line 3 the count.
const NODE: &str = "[[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\ncount = 2\n";

fn node_file_cases() -> Vec<Case> {
    let n = |name: &str, text: String, place: Place| case(Kind::NodeFile, name, text, place);
    let mut v = Vec::new();
    let long = huge(200_000);
    for (line, with) in [
        (2, "model = \"NVIDIA X100\""),
        (2, "model = \"\""),
        (2, "model = 123"),
        (2, "model = \"\\u001b[2J\\u001b]0;owned\\u0007\""),
        (3, "count = 0"),
        (3, "count = 65"),
        (3, "count = -1"),
        (3, "count = 4294967296"),
        (3, "count = \"2\""),
        (3, "mig = \"bogus\""),
        (3, "compute_mode = \"bogus\""),
        (3, "vgpu_host_mode = \"bogus\""),
        (3, "reset = \"no\""),
        (3, "persistence_mode = 1"),
        (3, "bogus = 1"),
        (3, "instances = [{ profile = \"bogus\" }]"),
        (3, "instances = [{ profile = \"3g.20gb\", start = 99 }]"),
        (3, "instances = [{ profile = \"3g.20gb\", start = 1 }]"),
        (
            3,
            "instances = [{ profile = \"3g.20gb\", start = 4 }, { profile = \"3g.20gb\", start = 4 }]",
        ),
        (
            3,
            "instances = [{ profile = \"1g.5gb\" }, { profile = \"1g.5gb\" }, { profile = \"1g.5gb\" }, { profile = \"1g.5gb\" }, { profile = \"1g.5gb\" }, { profile = \"1g.5gb\" }, { profile = \"1g.5gb\" }, { profile = \"1g.5gb\" }]",
        ),
        (
            3,
            "instances = [{ profile = \"3g.20gb\", compute_instances = [\"9c.3g.20gb\"] }]",
        ),
        (
            3,
            "instances = [{ profile = \"3g.20gb\", compute_instances = [\"2c.3g.20gb\", \"2c.3g.20gb\"] }]",
        ),
        (
            3,
            "processes = [{ pid = 1, name = \"p\", used_memory_mib = 1, gpu_instance = 5 }]",
        ),
        (
            3,
            "processes = [{ pid = -1, name = \"p\", used_memory_mib = 1 }]",
        ),
        (
            3,
            "processes = [{ pid = 1, name = \"p\", used_memory_mib = -1 }]",
        ),
        (3, "processes = [{ pid = 1, used_memory_mib = 1 }]"),
        (
            3,
            "processes = [{ pid = 1, name = \"p\", used_memory_mib = 99999999999 }]",
        ),
    ] {
        v.push(n(with, replace_line(NODE, line, with), Place::Line(line)));
    }
    v.push(n(
        "a 200 KB model",
        replace_line(NODE, 2, &format!("model = \"{long}\"")),
        Place::Line(2),
    ));
    v.push(n(
        "instances with MIG disabled",
        replace_line(
            NODE,
            3,
            "mig = \"disabled\"\ninstances = [{ profile = \"3g.20gb\" }]",
        ),
        Place::Line(4),
    ));
    v.push(n(
        "a process on a compute instance that does not exist",
        replace_line(
            NODE,
            3,
            "instances = [{ profile = \"3g.20gb\" }]\nprocesses = [{ pid = 1, name = \"p\", used_memory_mib = 1, gpu_instance = 0, compute_instance = 9 }]",
        ),
        Place::Line(4),
    ));
    v.push(n(
        "MIG on a T4",
        "[[gpus]]\nmodel = \"Tesla T4\"\nmig = \"enabled\"\n".into(),
        Place::Line(3),
    ));
    let whole: Vec<(&str, String, Place)> = vec![
        ("no gpus", "name = \"x\"\n".into(), Place::Somewhere),
        ("gpus is a string", "gpus = \"x\"\n".into(), Place::Line(1)),
        (
            "holders of an unknown kind",
            format!("holders = [{{ name = \"x\", kind = \"bogus\" }}]\n{NODE}"),
            Place::Line(1),
        ),
        (
            "holders named by numbers",
            format!("holders = [{{ name = 1 }}]\n{NODE}"),
            Place::Line(1),
        ),
        (
            "driver_version is a number",
            format!("driver_version = 5\n{NODE}"),
            Place::Line(1),
        ),
        (
            "an unknown top-level key",
            format!("bogus = 1\n{NODE}"),
            Place::Line(1),
        ),
        (
            "65 GPUs in entries",
            "[[gpus]]\nmodel = \"Tesla T4\"\ncount = 64\n[[gpus]]\nmodel = \"Tesla T4\"\n".into(),
            Place::Somewhere,
        ),
        (
            "an unterminated string",
            "[[gpus]]\nmodel = \"Tesla T4\n".into(),
            Place::Line(2),
        ),
        (
            "100 000 nested arrays",
            format!("x = {}\n", nested(100_000)),
            Place::Line(1),
        ),
        (
            "a NUL byte",
            "[[gpus]]\nmodel = \"Tesla T4\"\0\n".into(),
            Place::Line(2),
        ),
    ];
    for (name, text, place) in whole {
        v.push(n(name, text, place));
    }
    v.push(case(
        Kind::NodeFile,
        "bytes that are not UTF-8",
        not_utf8("[[gpus]]\nmodel = \""),
        Place::At(2, 10),
    ));
    v
}

/// A valid simulator state (an A100 with one MIG device), written out so that cases can break it.
const SIM_STATE: &str = r#"{
  "version": 1,
  "name": "case",
  "driver_version": "580.105.08",
  "cuda_driver_version": "13.0",
  "gpus": [
    {
      "model": "NVIDIA A100-SXM4-40GB",
      "uuid": "GPU-11111111-2222-3333-4444-555555555555",
      "pci_bus_id": "00000000:07:00.0",
      "compute_mode": "default",
      "persistence_mode": true,
      "mig_current": "enabled",
      "mig_pending": "enabled",
      "mig_serial": 1,
      "instances": [
        {
          "id": 1,
          "profile_id": 9,
          "start": 4,
          "compute_instances": [
            {
              "id": 0,
              "profile_id": 2,
              "start": 0,
              "uuid": "MIG-11111111-2222-3333-4444-555555555555",
              "compute_mode": "default"
            }
          ]
        }
      ],
      "processes": []
    }
  ],
  "holders": []
}
"#;

fn sim_state_cases() -> Vec<Case> {
    let s = |name: &str, text: String, place: Place| case(Kind::SimState, name, text, place);
    let mut v = Vec::new();
    let line_of = |needle: &str| {
        SIM_STATE
            .lines()
            .position(|l| l.contains(needle))
            .map_or(1, |i| i + 1)
    };
    // Truncated at every tenth of the file: a crash while it was written (by another tool).
    for tenth in 1..10 {
        let cut = SIM_STATE.len() * tenth / 10;
        v.push(s(
            &format!("truncated at {tenth}/10"),
            SIM_STATE[..cut].to_string(),
            Place::Somewhere,
        ));
    }
    for (needle, with) in [
        ("\"version\"", "  \"version\": 99,"),
        ("\"version\"", "  \"version\": -1,"),
        ("\"version\"", "  \"version\": \"1\","),
        ("\"name\"", "  \"name\": 5,"),
        ("\"gpus\"", "  \"gpus\": \"x\", \"unused\": ["),
        ("\"model\"", "      \"model\": \"NVIDIA X100\","),
        ("\"model\"", "      \"model\": 5,"),
        (
            "\"model\"",
            "      \"model\": \"\\u001b[2J\\u001b]0;owned\\u0007\",",
        ),
        (
            "\"compute_mode\": \"default\",",
            "      \"compute_mode\": \"bogus\",",
        ),
        ("\"mig_current\"", "      \"mig_current\": \"x\","),
        ("\"persistence_mode\"", "      \"persistence_mode\": 1,"),
        ("\"profile_id\": 9", "          \"profile_id\": 999,"),
        ("\"profile_id\": 9", "          \"profile_id\": -1,"),
        ("\"start\": 4", "          \"start\": 99,"),
        ("\"start\": 4", "          \"start\": 1e999,"),
        ("\"start\": 4", "          \"start\": NaN,"),
        ("\"profile_id\": 2", "              \"profile_id\": 999,"),
        ("\"id\": 1,", "          \"id\": 4294967296,"),
        ("\"processes\"", "      \"processes\": [{\"pid\": -1}]"),
        (
            "\"processes\"",
            "      \"processes\": [{\"pid\": 1, \"name\": \"p\", \"used_memory_mib\": 1, \"gpu_instance_id\": 99, \"compute_instance_id\": 0}]",
        ),
        ("\"holders\"", "  \"holders\": [{\"bogus\": 1}],"),
        (
            "\"mig_serial\"",
            "      \"mig_serial\": -1,\n      \"bogus\": 1,",
        ),
        ("\"uuid\": \"GPU", "      \"uuid\": \"GPU-\u{1b}[2J\","),
    ] {
        let line = line_of(needle);
        v.push(s(
            with.trim(),
            replace_line(SIM_STATE, line, with),
            Place::Line(line),
        ));
    }
    let whole: Vec<(&str, String, Place)> = vec![
        ("an empty object", "{}\n".into(), Place::Somewhere),
        ("a list", "[]\n".into(), Place::Somewhere),
        ("null", "null\n".into(), Place::Somewhere),
        ("a string", "\"state\"\n".into(), Place::Somewhere),
        ("nothing", String::new(), Place::Somewhere),
        ("100 000 nested lists", nested(100_000), Place::Somewhere),
        (
            "a duplicated key",
            SIM_STATE.replacen("\"version\": 1,", "\"version\": 1, \"version\": 1,", 1),
            Place::Line(2),
        ),
        (
            "a NUL byte in a string",
            SIM_STATE.replacen("\"case\"", "\"ca\0se\"", 1),
            Place::Line(3),
        ),
        (
            "a 200 KB model",
            SIM_STATE.replacen("NVIDIA A100-SXM4-40GB", &huge(200_000), 1),
            Place::Line(8),
        ),
        (
            "an unknown key",
            SIM_STATE.replacen("  \"holders\"", "  \"holders_\"", 1),
            Place::Line(line_of("\"holders\"")),
        ),
    ];
    for (name, text, place) in whole {
        v.push(s(name, text, place));
    }
    v.push(case(
        Kind::SimState,
        "bytes that are not UTF-8",
        not_utf8("{\n  \"version\": 1,\n  \"name\": \""),
        Place::At(3, 12),
    ));
    v
}

/// One file of each kind just over the 16 MiB gpushare reads: refused before it is parsed.
fn oversize_cases() -> Vec<Case> {
    let big = |prefix: &str| {
        let mut b = prefix.as_bytes().to_vec();
        b.resize(16 * 1024 * 1024 + 1, b'\n');
        b
    };
    [
        (Kind::Toml, "# big\n"),
        (Kind::MigParted, "# big\n"),
        (Kind::VgpuDm, "# big\n"),
        (Kind::NodeFile, "# big\n"),
        (Kind::SimState, "\n"),
    ]
    .into_iter()
    .map(|(kind, prefix)| {
        case(kind, "just over 16 MiB", big(prefix), Place::Whole).says("larger than 16 MiB")
    })
    .collect()
}

/// Each limit of a parser is named with its value, at the place it was reached.
fn limit_cases() -> Vec<Case> {
    let dotted = format!("{TOML_MIG}x{} = 1\n", ".a".repeat(120));
    let units: Vec<String> = (0..65).map(|i| format!("\"u{i}.service\"")).collect();
    let clients = format!(
        "[clients]\nsystemd = [\n{}\n]\n{TOML_MIG}",
        units.join(",\n")
    );
    vec![
        case(Kind::Toml, "100 dotted key parts", dotted, Place::At(5, 1))
            .says("recursion limit (80"),
        case(Kind::Toml, "65 GPU clients", clients, Place::At(67, 1)).says("more than 64"),
        case(Kind::NodeFile, "gpus = []", "gpus = []\n", Place::At(1, 1))
            .says("at least one [[gpus]]"),
    ]
}
