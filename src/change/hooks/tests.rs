use super::*;
use crate::support::output::Output;

fn quiet() -> Output {
    Output::new(Default::default(), true, Default::default())
}

fn fixture(name: &str) -> SourceFile {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mig-parted")
        .join(name);
    SourceFile::read(&path).unwrap()
}

fn parse(text: &str) -> Result<Hooks> {
    Hooks::parse(
        &SourceFile::inline("hooks.yaml", text),
        FlagValues::default(),
        &quiet(),
    )
}

#[test]
fn mig_parteds_own_hooks_files_are_read_unchanged() {
    let flags = FlagValues {
        config_file: "/etc/nvidia-mig-manager/config.yaml".into(),
        selected_config: "all-1g.5gb".into(),
        ..FlagValues::default()
    };
    let hooks = Hooks::parse(&fixture("hooks-default.yaml"), flags, &quiet()).unwrap();
    for point in HookPoint::ALL {
        assert!(hooks.at(point).is_some(), "{}", point.name());
    }
    let exit = hooks.at(HookPoint::ApplyExit).unwrap();
    assert_eq!(exit.commands.len(), 2);
    assert_eq!(exit.commands[1].workdir, "/etc/nvidia-mig-manager");
    assert_eq!(
        exit.commands[1].describe(),
        "/bin/bash -x -c 'source hooks.sh; refresh-cdi'"
    );
    assert_eq!(exit.vars["MIG_PARTED_SELECTED_CONFIG"], "all-1g.5gb");
    assert_eq!(exit.vars["MIG_PARTED_SKIP_RESET"], "false");
    assert!(exit.vars["MIG_PARTED_HOOKS_FILE"].ends_with("hooks-default.yaml"));

    let minimal = Hooks::parse(
        &fixture("systemd-hooks-minimal.yaml"),
        FlagValues::default(),
        &quiet(),
    )
    .unwrap();
    assert!(minimal.at(HookPoint::ApplyStart).is_some());
    assert!(
        minimal.at(HookPoint::PreApplyMode).is_none(),
        "missing hooks are skipped"
    );
}

#[test]
fn bad_hooks_files_are_refused_with_their_place() {
    let e = parse("version: v2\nhooks: {}\n").unwrap_err();
    assert!(
        e.message.contains("hooks.yaml:1:") && e.message.contains("only v1"),
        "{}",
        e.message
    );
    let e = parse("hooks: {}\n").unwrap_err();
    assert!(e.message.contains("no `version`"), "{}", e.message);
    let e = parse("version: v1\nhooks:\n  apply-start:\n  - command: /bin/true\n    arg: [x]\n")
        .unwrap_err();
    assert!(e.message.contains("hooks.yaml:5:"), "{}", e.message);
    let e = parse("version: v1\nhooks:\n  apply-start:\n  - command: \"\"\n").unwrap_err();
    assert!(
        e.message.contains("hooks.yaml:4:") && e.message.contains("empty"),
        "{}",
        e.message
    );
    let e = parse(
        "version: v1\nhooks:\n  apply-exit:\n  - command: /bin/true\n    envs: {\"A=B\": x}\n",
    )
    .unwrap_err();
    assert!(e.message.contains("not a variable name"), "{}", e.message);
    // A hook mig-parted never runs is only a warning.
    assert!(parse("version: v1\nhooks:\n  apply-begin: []\n").is_ok());
}

#[test]
fn a_hook_gets_exactly_mig_parteds_environment_and_stops_at_its_first_failure() {
    let dir = tempfile::tempdir().unwrap();
    let env_file = dir.path().join("env");
    let pwd_file = dir.path().join("pwd");
    let text = format!(
        "version: v1\nhooks:\n  apply-exit:\n  - command: /bin/sh\n    args: [\"-c\", \"/usr/bin/env > {env}; pwd > {pwd}\"]\n    workdir: {dir}\n    envs: {{HOOK_VAR: one, MIG_PARTED_SKIP_RESET: hook}}\n  pre-apply-mode:\n  - command: /bin/false\n  - command: /bin/sh\n    args: [\"-c\", \"touch {dir}/ran\"]\n",
        env = env_file.display(),
        pwd = pwd_file.display(),
        dir = dir.path().display(),
    );
    let flags = FlagValues {
        config_file: "c.yaml".into(),
        skip_reset: true,
        ..FlagValues::default()
    };
    let hooks = Hooks::parse(&SourceFile::inline("hooks.yaml", &text), flags, &quiet()).unwrap();
    hooks
        .at(HookPoint::ApplyExit)
        .unwrap()
        .run(&quiet())
        .unwrap();
    let env = std::fs::read_to_string(&env_file).unwrap();
    let mut names: Vec<&str> = env
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k))
        // The shell adds its own PWD.
        .filter(|k| *k != "PWD")
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "HOOK_VAR",
            "MIG_PARTED_CONFIG_FILE",
            "MIG_PARTED_HOOKS_FILE",
            "MIG_PARTED_MODE_CHANGE_ONLY",
            "MIG_PARTED_SELECTED_CONFIG",
            "MIG_PARTED_SKIP_RESET",
        ],
        "{env}"
    );
    assert!(
        env.contains("MIG_PARTED_SKIP_RESET=true\n"),
        "the flags win: {env}"
    );
    assert!(env.contains("MIG_PARTED_CONFIG_FILE=c.yaml\n"), "{env}");
    assert!(env.contains("MIG_PARTED_SELECTED_CONFIG=\n"), "{env}");
    assert_eq!(
        std::fs::read_to_string(&pwd_file).unwrap().trim(),
        dir.path().canonicalize().unwrap().display().to_string()
    );

    let e = hooks
        .at(HookPoint::PreApplyMode)
        .unwrap()
        .run(&quiet())
        .unwrap_err();
    assert_eq!(
        e.message,
        "error running pre-apply-mode hook: /bin/false exited with status 1"
    );
    assert!(
        !dir.path().join("ran").exists(),
        "the failure stops the hook"
    );
}
