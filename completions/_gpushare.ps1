
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'gpushare' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'gpushare'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'gpushare' {
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Set up a bare node in one go: choose a layout, write gpushare.toml, apply it, write the cluster manifests, and check the result with the probe')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'Show what `apply` would change to bring the node to gpushare.toml (every mode)')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Change the node to gpushare.toml: MIG, MPS, time-slicing and vGPU, in one plan')
            [CompletionResult]::new('detect', 'detect', [CompletionResultType]::ParameterValue, 'Show the GPUs of this node: models, memory, MIG, compute mode, processes and whose they are (pod and container, or host, from each process''s cgroup under --host-root)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'One screen of what the node shares now: per GPU its mode, its MIG instances drawn over its memory slices with their holders, its MPS daemon and claims'' shares, time-slicing replicas and health; then the layout in force and what `apply` would still change')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check that this node is ready to share its GPUs (driver, devices, runtime, CDI, blockers)')
            [CompletionResult]::new('mig', 'mig', [CompletionResultType]::ParameterValue, 'MIG: profiles, declarative layouts (gpushare.toml or mig-parted v1), safe incremental apply')
            [CompletionResult]::new('mps', 'mps', [CompletionResultType]::ParameterValue, 'MPS: several processes at once on a GPU or MIG device, with per-client limits')
            [CompletionResult]::new('vgpu', 'vgpu', [CompletionResultType]::ParameterValue, 'vGPU on KVM hosts: list types, show devices, apply a layout (mdev and SR-IOV, through sysfs)')
            [CompletionResult]::new('manifests', 'manifests', [CompletionResultType]::ParameterValue, 'Generate cluster wiring for this node: device plugin, gpushare extender, HAMi, DRA, CDI, node agent')
            [CompletionResult]::new('agent', 'agent', [CompletionResultType]::ParameterValue, 'Run as the node agent of a Kubernetes DaemonSet: apply the layout the node''s label names')
            [CompletionResult]::new('controller', 'controller', [CompletionResultType]::ParameterValue, 'MIG on demand for the cluster: reshape idle MIG capacity of the nodes labelled gpushare.io/mig.on-demand=true for pods that wait for `nvidia.com/mig-<profile>`, never touching an instance a pod holds, and give it back to each node''s own layout once no pod waits. One Deployment; replicas elect a leader with a Lease. It writes layouts in node annotations; each node''s agent applies them. Runs until SIGTERM')
            [CompletionResult]::new('dra-plugin', 'dra-plugin', [CompletionResultType]::ParameterValue, 'gpushare''s DRA kubelet plugin (driver gpu.gpushare.io): publishes the node''s GPUs and MIG devices as a ResourceSlice (exactly the node, each unhealthy device tainted), registers with the kubelet, and prepares each claim''s devices as a CDI spec from gpushare''s CDI generator (removed at unprepare; a restarted plugin finds what it prepared). Runs until SIGTERM')
            [CompletionResult]::new('probe', 'probe', [CompletionResultType]::ParameterValue, 'Measure memory, bandwidth and latency on every GPU, MIG device and MPS client, and check that each gives what it was promised')
            [CompletionResult]::new('metrics', 'metrics', [CompletionResultType]::ParameterValue, 'The node''s metrics for Prometheus: GPUs and MIG devices (memory, processes, utilisation, the pod that holds each, the memory each pod''s containers use, health), MIG, MPS and time-slicing, the changes made, the probe''s last verdict')
            [CompletionResult]::new('recover', 'recover', [CompletionResultType]::ParameterValue, 'Reset the GPUs that a fatal fault left unhealthy: an Xid of `[health] fatal_xids` or a double-bit ECC error, as the health watch recorded it')
            [CompletionResult]::new('unit', 'unit', [CompletionResultType]::ParameterValue, 'Print, install or remove the boot unit that applies gpushare.toml at every boot')
            [CompletionResult]::new('sim', 'sim', [CompletionResultType]::ParameterValue, 'Simulated nodes: presets, the GPU models they can hold, a reboot')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff), or write one per command')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpushare;init' {
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Take the layout from this gpushare.toml instead of --mode')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Take the layout from this gpushare.toml instead of --mode')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'How to share the GPUs')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, '--mode mig: the MIG profile, e.g. 1g.10gb (`gpushare mig profiles` lists them)')
            [CompletionResult]::new('--clients', '--clients', [CompletionResultType]::ParameterName, '--mode mps: clients per GPU (each gets 1/N of the threads and of the memory)')
            [CompletionResult]::new('--replicas', '--replicas', [CompletionResultType]::ParameterName, '--mode time-slicing: workloads that take turns on each GPU, 2 to 1024; --mode mig: on each MIG device')
            [CompletionResult]::new('--slices', '--slices', [CompletionResultType]::ParameterName, '--mode auto: slices per GPU')
            [CompletionResult]::new('--min-memory', '--min-memory', [CompletionResultType]::ParameterName, '--mode auto: the least memory a slice may have, e.g. 10G')
            [CompletionResult]::new('--config-out', '--config-out', [CompletionResultType]::ParameterName, 'Where to write gpushare.toml [default: /etc/gpushare/gpushare.toml, under --state-root]')
            [CompletionResult]::new('--manifests-out', '--manifests-out', [CompletionResultType]::ParameterName, 'Where to write the manifests of the `[kubernetes] targets` [default: /etc/gpushare/manifests, under --state-root]')
            [CompletionResult]::new('--sysfs-root', '--sysfs-root', [CompletionResultType]::ParameterName, 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Overwrite a gpushare.toml that says something else, and change the node as `apply --force` does (a MIG mode change that processes keep from its reset is left pending until the next reboot, MPS clients in the way are ended)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (it is never asked without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (it is never asked without a terminal)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the layout and the plan, and stop: nothing is written or changed')
            [CompletionResult]::new('--no-probe', '--no-probe', [CompletionResultType]::ParameterName, 'Do not run the probe at the end')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;plan' {
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'The desired layout (`-`: read it from stdin) [default: /etc/gpushare/gpushare.toml, under --state-root]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The desired layout (`-`: read it from stdin) [default: /etc/gpushare/gpushare.toml, under --state-root]')
            [CompletionResult]::new('--sysfs-root', '--sysfs-root', [CompletionResultType]::ParameterName, 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Exit 3 when the node differs from the file (5 when only a reboot is missing)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Plan as `apply --force` would')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;apply' {
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'The desired layout (`-`: read it from stdin) [default: /etc/gpushare/gpushare.toml, under --state-root]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The desired layout (`-`: read it from stdin) [default: /etc/gpushare/gpushare.toml, under --state-root]')
            [CompletionResult]::new('--sysfs-root', '--sysfs-root', [CompletionResultType]::ParameterName, 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)')
            [CompletionResult]::new('--gpu-clients-file', '--gpu-clients-file', [CompletionResultType]::ParameterName, 'mig-parted''s GPU clients file: host services that hold the GPUs, stopped before MIG mode changes and resets and started again after them (with those of `[clients]`)')
            [CompletionResult]::new('-k', '-k', [CompletionResultType]::ParameterName, 'mig-parted''s hooks file: commands run at apply-start, pre-apply-mode, pre-apply-config and apply-exit')
            [CompletionResult]::new('--hooks-file', '--hooks-file', [CompletionResultType]::ParameterName, 'mig-parted''s hooks file: commands run at apply-start, pre-apply-mode, pre-apply-config and apply-exit')
            [CompletionResult]::new('--hooks-timeout', '--hooks-timeout', [CompletionResultType]::ParameterName, 'Seconds one hook command may run; then it is killed with what it started, and the apply stops as after a failed step (GPU clients started again, the apply-exit hook run)')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the plan and change nothing')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Go ahead where something is in use: MIG modes of busy GPUs change at the next reboot (exit 5), MPS daemons with clients are stopped (clients ended), vGPU devices VMs hold are removed. MIG instances in use are never destroyed')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (it is never asked without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (it is never asked without a terminal)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;detect' {
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids')
            [CompletionResult]::new('--host-root', '--host-root', [CompletionResultType]::ParameterName, 'Ask the kubelet under DIR which pods hold the devices (DIR/var/lib/kubelet/pod-resources/kubelet.sock), and read whose each GPU process is (DIR/proc/PID/cgroup, DIR/var/log/pods); on a real node DIR is / unless given, on a simulated one both are read only when it is given')
            [CompletionResult]::new('--kubelet-cgroup-root', '--kubelet-cgroup-root', [CompletionResultType]::ParameterName, 'The kubelet''s cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container, that root''s path as this host sees it): a process is a pod''s only under the pods'' cgroup there (`ROOT/kubepods`, or the systemd driver''s `…kubepods.slice`), never where anyone may make a cgroup named like a pod')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;status' {
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'The layout to compare the node with [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The layout to compare the node with [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists]')
            [CompletionResult]::new('--host-root', '--host-root', [CompletionResultType]::ParameterName, 'Ask the kubelet under DIR which pods hold the devices (DIR/var/lib/kubelet/pod-resources/kubelet.sock), and read whose each GPU process is (DIR/proc/PID/cgroup, DIR/var/log/pods); on a real node DIR is / unless given, on a simulated one both are read only when it is given')
            [CompletionResult]::new('--kubelet-cgroup-root', '--kubelet-cgroup-root', [CompletionResultType]::ParameterName, 'The kubelet''s cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container, that root''s path as this host sees it): a process is a pod''s only under the pods'' cgroup there (`ROOT/kubepods`, or the systemd driver''s `…kubepods.slice`), never where anyone may make a cgroup named like a pod')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;doctor' {
            [CompletionResult]::new('--host-root', '--host-root', [CompletionResultType]::ParameterName, 'Check the host files (/dev, /proc, /sys, /etc) under DIR instead of /')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;mig' {
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('profiles', 'profiles', [CompletionResultType]::ParameterValue, 'Every GPU-instance profile of the MIG-capable GPUs: id, slices, memory, counts, placements')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Change the node to the MIG layout of a file, with the fewest changes')
            [CompletionResult]::new('assert', 'assert', [CompletionResultType]::ParameterValue, 'Exit 0 when the node has the MIG layout of a file, 3 when it does not')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Print the node''s MIG layout as a mig-parted v1 config')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Destroy every GPU and compute instance of the selected GPUs (MIG stays enabled)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpushare;mig;profiles' {
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;mig;apply' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)')
            [CompletionResult]::new('--config-file', '--config-file', [CompletionResultType]::ParameterName, 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'The label of the mig-parted config to use (not needed when the file has one label)')
            [CompletionResult]::new('--selected-config', '--selected-config', [CompletionResultType]::ParameterName, 'The label of the mig-parted config to use (not needed when the file has one label)')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'The label of the mig-parted config to use (not needed when the file has one label)')
            [CompletionResult]::new('--gpu-clients-file', '--gpu-clients-file', [CompletionResultType]::ParameterName, 'mig-parted''s GPU clients file: host services that hold the GPUs, stopped before MIG mode changes and resets and started again after them (with those of `[clients]`)')
            [CompletionResult]::new('-k', '-k', [CompletionResultType]::ParameterName, 'mig-parted''s hooks file: commands run at apply-start, pre-apply-mode, pre-apply-config and apply-exit')
            [CompletionResult]::new('--hooks-file', '--hooks-file', [CompletionResultType]::ParameterName, 'mig-parted''s hooks file: commands run at apply-start, pre-apply-mode, pre-apply-config and apply-exit')
            [CompletionResult]::new('--hooks-timeout', '--hooks-timeout', [CompletionResultType]::ParameterName, 'Seconds one hook command may run; then it is killed with what it started, and the apply stops as after a failed step (GPU clients started again, the apply-exit hook run)')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the plan and change nothing')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Change the MIG mode of GPUs that processes or services keep busy, leaving the change pending until the next reboot (exit 5). Instances in use are never destroyed')
            [CompletionResult]::new('-m', '-m', [CompletionResultType]::ParameterName, 'Only the MIG mode of the layout: instances are neither created nor destroyed')
            [CompletionResult]::new('--mode-only', '--mode-only', [CompletionResultType]::ParameterName, 'Only the MIG mode of the layout: instances are neither created nor destroyed')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Set the MIG mode without resetting GPUs: a change a GPU leaves pending takes effect at its next reset or reboot (exit 5)')
            [CompletionResult]::new('--skip-reset', '--skip-reset', [CompletionResultType]::ParameterName, 'Set the MIG mode without resetting GPUs: a change a GPU leaves pending takes effect at its next reset or reboot (exit 5)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;mig;assert' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)')
            [CompletionResult]::new('--config-file', '--config-file', [CompletionResultType]::ParameterName, 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'The label of the mig-parted config to use (not needed when the file has one label)')
            [CompletionResult]::new('--selected-config', '--selected-config', [CompletionResultType]::ParameterName, 'The label of the mig-parted config to use (not needed when the file has one label)')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'The label of the mig-parted config to use (not needed when the file has one label)')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;mig;export' {
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'The label of the exported config')
            [CompletionResult]::new('--config-label', '--config-label', [CompletionResultType]::ParameterName, 'The label of the exported config')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;mig;clear' {
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the plan and change nothing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;mig;help' {
            [CompletionResult]::new('profiles', 'profiles', [CompletionResultType]::ParameterValue, 'Every GPU-instance profile of the MIG-capable GPUs: id, slices, memory, counts, placements')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Change the node to the MIG layout of a file, with the fewest changes')
            [CompletionResult]::new('assert', 'assert', [CompletionResultType]::ParameterValue, 'Exit 0 when the node has the MIG layout of a file, 3 when it does not')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Print the node''s MIG layout as a mig-parted v1 config')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Destroy every GPU and compute instance of the selected GPUs (MIG stays enabled)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpushare;mig;help;profiles' {
            break
        }
        'gpushare;mig;help;apply' {
            break
        }
        'gpushare;mig;help;assert' {
            break
        }
        'gpushare;mig;help;export' {
            break
        }
        'gpushare;mig;help;clear' {
            break
        }
        'gpushare;mig;help;help' {
            break
        }
        'gpushare;mps' {
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('start', 'start', [CompletionResultType]::ParameterValue, 'Start MPS daemons: compute mode EXCLUSIVE_PROCESS, limits sent before any client connects')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the MPS daemons gpushare started: servers, clients, limits, compute modes')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop MPS daemons: refuse while clients are connected, restore compute mode DEFAULT')
            [CompletionResult]::new('unit', 'unit', [CompletionResultType]::ParameterValue, 'Print, or install, a systemd unit that starts the daemons at boot with the same settings')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpushare;mps;start' {
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'GPUs to share: `all`, indexes `0,2`, ranges `0-3`, UUIDs (`MIG-…` for single MIG devices)')
            [CompletionResult]::new('--clients', '--clients', [CompletionResultType]::ParameterName, 'An equal share for N clients: 100/N percent of the threads, 1/N of the memory each')
            [CompletionResult]::new('--thread-percentage', '--thread-percentage', [CompletionResultType]::ParameterName, 'Active thread percentage per client, 1 to 100')
            [CompletionResult]::new('--memory-limit', '--memory-limit', [CompletionResultType]::ParameterName, 'Pinned device memory per client, e.g. `4G` or `512M` (overrides the share of --clients)')
            [CompletionResult]::new('--pipe-dir', '--pipe-dir', [CompletionResultType]::ParameterName, 'Pipe directory of the daemon (default /run/gpushare/mps/NAME/pipe)')
            [CompletionResult]::new('--log-dir', '--log-dir', [CompletionResultType]::ParameterName, 'Log directory of the daemon (default /run/gpushare/mps/NAME/log)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Start what the `mps` and `mig.mps` sections of gpushare.toml ask for')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Start what the `mps` and `mig.mps` sections of gpushare.toml ask for')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds to wait for each answer of the daemon')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--multiuser', '--multiuser', [CompletionResultType]::ParameterName, 'Let clients of every user share one server (-multiuser-server; Volta or newer, root)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;mps;status' {
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds to wait for each answer of a daemon')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;mps;stop' {
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'Stop only the daemons that serve these GPUs')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds to wait for each answer of a daemon, and for it to exit')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Stop even while clients are connected: end them with terminate_client first')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;mps;unit' {
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'GPUs to share: `all`, indexes `0,2`, ranges `0-3`, UUIDs (`MIG-…` for single MIG devices)')
            [CompletionResult]::new('--clients', '--clients', [CompletionResultType]::ParameterName, 'An equal share for N clients: 100/N percent of the threads, 1/N of the memory each')
            [CompletionResult]::new('--thread-percentage', '--thread-percentage', [CompletionResultType]::ParameterName, 'Active thread percentage per client, 1 to 100')
            [CompletionResult]::new('--memory-limit', '--memory-limit', [CompletionResultType]::ParameterName, 'Pinned device memory per client, e.g. `4G` or `512M` (overrides the share of --clients)')
            [CompletionResult]::new('--pipe-dir', '--pipe-dir', [CompletionResultType]::ParameterName, 'Pipe directory of the daemon (default /run/gpushare/mps/NAME/pipe)')
            [CompletionResult]::new('--log-dir', '--log-dir', [CompletionResultType]::ParameterName, 'Log directory of the daemon (default /run/gpushare/mps/NAME/log)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Start what the `mps` and `mig.mps` sections of gpushare.toml ask for')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Start what the `mps` and `mig.mps` sections of gpushare.toml ask for')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds to wait for each answer of the daemon')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--multiuser', '--multiuser', [CompletionResultType]::ParameterName, 'Let clients of every user share one server (-multiuser-server; Volta or newer, root)')
            [CompletionResult]::new('--install', '--install', [CompletionResultType]::ParameterName, 'Write the unit under /etc/systemd/system (atomically) instead of printing it')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;mps;help' {
            [CompletionResult]::new('start', 'start', [CompletionResultType]::ParameterValue, 'Start MPS daemons: compute mode EXCLUSIVE_PROCESS, limits sent before any client connects')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the MPS daemons gpushare started: servers, clients, limits, compute modes')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop MPS daemons: refuse while clients are connected, restore compute mode DEFAULT')
            [CompletionResult]::new('unit', 'unit', [CompletionResultType]::ParameterValue, 'Print, or install, a systemd unit that starts the daemons at boot with the same settings')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpushare;mps;help;start' {
            break
        }
        'gpushare;mps;help;status' {
            break
        }
        'gpushare;mps;help;stop' {
            break
        }
        'gpushare;mps;help;unit' {
            break
        }
        'gpushare;mps;help;help' {
            break
        }
        'gpushare;vgpu' {
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('types', 'types', [CompletionResultType]::ParameterValue, 'List the vGPU types each GPU supports and how many more of each it can create now')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the vGPU devices that exist, their types, and which VMs hold them')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Create and remove vGPU devices to match gpushare.toml or a vgpu-device-manager config')
            [CompletionResult]::new('assert', 'assert', [CompletionResultType]::ParameterValue, 'Exit 0 when the vGPU devices match the file, 3 when they differ')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Remove every vGPU device of the selected GPUs')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpushare;vgpu;types' {
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids')
            [CompletionResult]::new('--sysfs-root', '--sysfs-root', [CompletionResultType]::ParameterName, 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;vgpu;status' {
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids')
            [CompletionResult]::new('--sysfs-root', '--sysfs-root', [CompletionResultType]::ParameterName, 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;vgpu;apply' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'gpushare.toml (its `mode = "vgpu"` entries) or a vgpu-device-manager config (YAML); `-` reads stdin [default: /etc/gpushare/gpushare.toml]')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'gpushare.toml (its `mode = "vgpu"` entries) or a vgpu-device-manager config (YAML); `-` reads stdin [default: /etc/gpushare/gpushare.toml]')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Which config of a vgpu-device-manager file to apply (a label under `vgpu-configs`)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Which config of a vgpu-device-manager file to apply (a label under `vgpu-configs`)')
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'Only these GPUs of the file''s layout: `all`, indexes, ranges, UUIDs or PCI bus ids')
            [CompletionResult]::new('--sysfs-root', '--sysfs-root', [CompletionResultType]::ParameterName, 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the changes without making them')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Also remove vGPU devices that a VM holds open (the kernel may still refuse)')
            [CompletionResult]::new('--heterogeneous', '--heterogeneous', [CompletionResultType]::ParameterName, 'The GPUs run in heterogeneous mode (`nvidia-smi vgpu -shm 1`): allow several time-sliced types on one GPU')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;vgpu;assert' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'gpushare.toml (its `mode = "vgpu"` entries) or a vgpu-device-manager config (YAML); `-` reads stdin [default: /etc/gpushare/gpushare.toml]')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'gpushare.toml (its `mode = "vgpu"` entries) or a vgpu-device-manager config (YAML); `-` reads stdin [default: /etc/gpushare/gpushare.toml]')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Which config of a vgpu-device-manager file to apply (a label under `vgpu-configs`)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Which config of a vgpu-device-manager file to apply (a label under `vgpu-configs`)')
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'Only these GPUs of the file''s layout')
            [CompletionResult]::new('--sysfs-root', '--sysfs-root', [CompletionResultType]::ParameterName, 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--heterogeneous', '--heterogeneous', [CompletionResultType]::ParameterName, 'The GPUs run in heterogeneous mode (`nvidia-smi vgpu -shm 1`): allow several time-sliced types on one GPU, as `vgpu apply --heterogeneous` does')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;vgpu;clear' {
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'GPUs to clear: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids')
            [CompletionResult]::new('--sysfs-root', '--sysfs-root', [CompletionResultType]::ParameterName, 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the changes without making them')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Also remove vGPU devices that a VM holds open (the kernel may still refuse)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;vgpu;help' {
            [CompletionResult]::new('types', 'types', [CompletionResultType]::ParameterValue, 'List the vGPU types each GPU supports and how many more of each it can create now')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the vGPU devices that exist, their types, and which VMs hold them')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Create and remove vGPU devices to match gpushare.toml or a vgpu-device-manager config')
            [CompletionResult]::new('assert', 'assert', [CompletionResultType]::ParameterValue, 'Exit 0 when the vGPU devices match the file, 3 when they differ')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Remove every vGPU device of the selected GPUs')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpushare;vgpu;help;types' {
            break
        }
        'gpushare;vgpu;help;status' {
            break
        }
        'gpushare;vgpu;help;apply' {
            break
        }
        'gpushare;vgpu;help;assert' {
            break
        }
        'gpushare;vgpu;help;clear' {
            break
        }
        'gpushare;vgpu;help;help' {
            break
        }
        'gpushare;manifests' {
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'What to generate (repeatable; default: `[kubernetes] targets` of -c)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'The desired layout (gpushare.toml; `-`: from stdin) [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists; without one, the node as it is now]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The desired layout (gpushare.toml; `-`: from stdin) [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists; without one, the node as it is now]')
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'Write one file per object (and NOTES.txt) into DIR instead of stdout; a run for another node class adds to the manifests already there (one device-plugin ConfigMap with a key per layout), so `kubectl apply -f DIR` applies the whole fleet')
            [CompletionResult]::new('--k8s-version', '--k8s-version', [CompletionResultType]::ParameterName, 'Kubernetes release of the cluster, 1.29 to 1.37 [default: 1.34]')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the namespaced objects (default: each target''s usual one)')
            [CompletionResult]::new('--image', '--image', [CompletionResultType]::ParameterName, 'Image of a component: device-plugin, gpushare-extender, gpushare-device-plugin, hami, cuda, kube-scheduler, gpushare (repeatable)')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Name of this layout: the node label value that selects it, and part of object names [default: the stem of -c; for gpushare.toml or no file, gpushare-HASH, from the layout]')
            [CompletionResult]::new('--node-name', '--node-name', [CompletionResultType]::ParameterName, 'Kubernetes name of this node, for the label commands in the notes (and HAMi''s node config)')
            [CompletionResult]::new('--mig-strategy', '--mig-strategy', [CompletionResultType]::ParameterName, 'The device plugin''s MIG strategy: `auto` is `single` where every GPU has MIG devices of one profile, `mixed` otherwise; `mixed` always names a resource per profile (what MIG on demand needs: `gpushare controller` changes the profiles)')
            [CompletionResult]::new('--dev-root', '--dev-root', [CompletionResultType]::ParameterName, 'CDI: read device nodes and MIG minors under DIR (`DIR/dev`, `DIR/proc/driver`), every link resolved inside it [default: /]')
            [CompletionResult]::new('--driver-root', '--driver-root', [CompletionResultType]::ParameterName, 'CDI: mount the driver''s libraries, tools and firmware from under DIR (a containerized driver''s root) [default: the --dev-root, or / on a node]')
            [CompletionResult]::new('--host-root', '--host-root', [CompletionResultType]::ParameterName, 'CDI from inside a container whose host''s / is mounted at DIR (gpushare''s DRA plugin DaemonSet mounts it at /host): device nodes and driver files are read under DIR (the default of --dev-root), and the spec names them as the host''s container runtime sees them')
            [CompletionResult]::new('--nvidia-cdi-hook-path', '--nvidia-cdi-hook-path', [CompletionResultType]::ParameterName, 'CDI: the nvidia-cdi-hook program (on the host) that the spec''s hooks run: SONAME links, the loader''s cache, CUDA compatibility [default: /usr/bin/nvidia-cdi-hook when it exists; no hooks otherwise]')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--helm-values', '--helm-values', [CompletionResultType]::ParameterName, 'nvidia-device-plugin: write Helm values for the chart instead of plain manifests')
            [CompletionResult]::new('--examples', '--examples', [CompletionResultType]::ParameterName, 'Add a pod per target that requests one slice')
            [CompletionResult]::new('--install', '--install', [CompletionResultType]::ParameterName, 'cdi: write the spec to /etc/cdi/nvidia.yaml (atomically, 0644) instead of printing it')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;agent' {
            [CompletionResult]::new('--node', '--node', [CompletionResultType]::ParameterName, 'This node''s name in Kubernetes')
            [CompletionResult]::new('--configmap', '--configmap', [CompletionResultType]::ParameterName, 'The ConfigMap of named layouts')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'kubeconfig file(s) to reach the API server [default: the pod''s service account]')
            [CompletionResult]::new('--health-addr', '--health-addr', [CompletionResultType]::ParameterName, 'Serve the health endpoint (GET /healthz) and the node''s metrics (GET /metrics, as `gpushare metrics`) on this address')
            [CompletionResult]::new('--pause-timeout', '--pause-timeout', [CompletionResultType]::ParameterName, 'Seconds the paused GPU clients get to leave the node before the change is given up')
            [CompletionResult]::new('--retry', '--retry', [CompletionResultType]::ParameterName, 'Seconds before a failed run is tried again (bad layouts wait for a change instead)')
            [CompletionResult]::new('--host-root', '--host-root', [CompletionResultType]::ParameterName, 'Ask the kubelet under DIR which pods hold which devices (DIR/var/lib/kubelet/pod-resources/kubelet.sock), and read whose each GPU process is (DIR/proc/PID/cgroup; names from the API) [default: / on a real node; a simulated node reads them only when it is given]')
            [CompletionResult]::new('--kubelet-cgroup-root', '--kubelet-cgroup-root', [CompletionResultType]::ParameterName, 'The kubelet''s cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container, that root''s path as this host sees it): a process is a pod''s only under the pods'' cgroup there (`ROOT/kubepods`, or the systemd driver''s `…kubepods.slice`), never where anyone may make a cgroup named like a pod')
            [CompletionResult]::new('--publish-every', '--publish-every', [CompletionResultType]::ParameterName, 'Seconds between publications of the node''s MIG state for `gpushare controller` (on a node labelled gpushare.io/mig.on-demand=true; only a change is written)')
            [CompletionResult]::new('--sysfs-root', '--sysfs-root', [CompletionResultType]::ParameterName, 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--reset-unhealthy-gpus', '--reset-unhealthy-gpus', [CompletionResultType]::ParameterName, 'Reset a GPU that a fatal fault left unhealthy (an Xid of `[health] fatal_xids`, a double-bit ECC error) once no pod holds it and nothing runs on it, through the pipeline of `gpushare recover`')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;controller' {
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'kubeconfig file(s) to reach the API server [default: the pod''s service account]')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the leader-election Lease')
            [CompletionResult]::new('--lease', '--lease', [CompletionResultType]::ParameterName, 'Name of the leader-election Lease')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'This replica''s identity in the Lease [default: hostname-pid]')
            [CompletionResult]::new('--lease-seconds', '--lease-seconds', [CompletionResultType]::ParameterName, 'Seconds a leader''s Lease lasts unrenewed before another replica takes over')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'Milliseconds between two looks at the cluster')
            [CompletionResult]::new('--max-reshaping', '--max-reshaping', [CompletionResultType]::ParameterName, 'At most this many nodes reshaping at once')
            [CompletionResult]::new('--cooldown', '--cooldown', [CompletionResultType]::ParameterName, 'Seconds after a layout is written before that node is changed again')
            [CompletionResult]::new('--give-back-after', '--give-back-after', [CompletionResultType]::ParameterName, 'Seconds a node''s reshaped capacity stays once no pod waits for it, before it goes back to the node''s own layout')
            [CompletionResult]::new('--health-addr', '--health-addr', [CompletionResultType]::ParameterName, 'Serve the health endpoint (GET /healthz) on this address')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;dra-plugin' {
            [CompletionResult]::new('--node-name', '--node-name', [CompletionResultType]::ParameterName, 'This node''s name in Kubernetes (the pool and the slice''s node)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Talk to the API server through this kubeconfig [default: the pod''s service account]')
            [CompletionResult]::new('--registry-dir', '--registry-dir', [CompletionResultType]::ParameterName, 'The kubelet''s plugin registry')
            [CompletionResult]::new('--plugin-dir', '--plugin-dir', [CompletionResultType]::ParameterName, 'The plugin''s own directory (its DRA socket)')
            [CompletionResult]::new('--cdi-root', '--cdi-root', [CompletionResultType]::ParameterName, 'Where the container runtime reads CDI specs (each prepared claim''s is written there)')
            [CompletionResult]::new('--dev-root', '--dev-root', [CompletionResultType]::ParameterName, 'CDI: read device nodes and MIG minors under DIR (`DIR/dev`, `DIR/proc/driver`), every link resolved inside it [default: /]')
            [CompletionResult]::new('--driver-root', '--driver-root', [CompletionResultType]::ParameterName, 'CDI: mount the driver''s libraries, tools and firmware from under DIR (a containerized driver''s root) [default: the --dev-root, or / on a node]')
            [CompletionResult]::new('--host-root', '--host-root', [CompletionResultType]::ParameterName, 'CDI from inside a container whose host''s / is mounted at DIR (gpushare''s DRA plugin DaemonSet mounts it at /host): device nodes and driver files are read under DIR (the default of --dev-root), and the spec names them as the host''s container runtime sees them')
            [CompletionResult]::new('--nvidia-cdi-hook-path', '--nvidia-cdi-hook-path', [CompletionResultType]::ParameterName, 'CDI: the nvidia-cdi-hook program (on the host) that the spec''s hooks run: SONAME links, the loader''s cache, CUDA compatibility [default: /usr/bin/nvidia-cdi-hook when it exists; no hooks otherwise]')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'The node''s gpushare.toml: each GPU it gives to dynamic MIG (`mig.dynamic = true`) is published as every placement, its instance made when a claim is prepared [default: /etc/gpushare/gpushare.toml when it exists]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The node''s gpushare.toml: each GPU it gives to dynamic MIG (`mig.dynamic = true`) is published as every placement, its instance made when a claim is prepared [default: /etc/gpushare/gpushare.toml when it exists]')
            [CompletionResult]::new('--sysfs-root', '--sysfs-root', [CompletionResultType]::ParameterName, 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--watch-health', '--watch-health', [CompletionResultType]::ParameterName, 'Listen for the GPUs'' Xid and ECC errors itself (where no `gpushare agent` or `gpushare metrics --listen` does: one watch per node), so unhealthy devices are tainted in the slice')
            [CompletionResult]::new('--evict-on-fatal', '--evict-on-fatal', [CompletionResultType]::ParameterName, 'Taint a device that a cause `[health]` calls fatal made unhealthy `NoExecute` rather than `NoSchedule`: the pods of its claims are evicted (unless they tolerate it)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;probe' {
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'Only these targets: GPUs as for --gpu (`all`, `0,2`, `0-3`, UUIDs, bus ids; all their MIG devices and MPS clients) or MIG devices by `MIG-…` UUID')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'What each target was promised: the gpushare.toml to check against (default: the applied state, i.e. MIG devices as they are and the settings of running MPS daemons)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'What each target was promised: the gpushare.toml to check against (default: the applied state, i.e. MIG devices as they are and the settings of running MPS daemons)')
            [CompletionResult]::new('--mps-pipe-dir', '--mps-pipe-dir', [CompletionResultType]::ParameterName, 'Reach MPS clients through this pipe directory (CUDA_MPS_PIPE_DIRECTORY), for an MPS daemon gpushare did not start; it serves the devices gpushare.toml puts under MPS, or every target without -c')
            [CompletionResult]::new('--host-root', '--host-root', [CompletionResultType]::ParameterName, 'Read whose the other processes on each target''s device are under DIR (DIR/proc/PID/cgroup, DIR/var/log/pods) [default: / on a real node; a simulated node reads them only when it is given]')
            [CompletionResult]::new('--kubelet-cgroup-root', '--kubelet-cgroup-root', [CompletionResultType]::ParameterName, 'The kubelet''s cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container, that root''s path as this host sees it): a process is a pod''s only under the pods'' cgroup there (`ROOT/kubepods`, or the systemd driver''s `…kubepods.slice`), never where anyone may make a cgroup named like a pod')
            [CompletionResult]::new('--clients', '--clients', [CompletionResultType]::ParameterName, 'Run N clients on each target at once and report their sum and each client; `promised`: as many as each target is promised to (MPS clients, time-slicing replicas of a GPU or of each MIG device), one where nothing is promised')
            [CompletionResult]::new('--buffer', '--buffer', [CompletionResultType]::ParameterName, 'Size of each host-to-device and device-to-host copy (default 256M, 32M with --quick; device-to-device copies are 4 times larger)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds a worker may take for its setup, and again for its measurements, before it is reported as hung and killed')
            [CompletionResult]::new('--sysfs-root', '--sysfs-root', [CompletionResultType]::ParameterName, 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--share', '--share', [CompletionResultType]::ParameterName, 'Probe the share of a device this container holds (a pod of gpushare''s DRA driver on a device shared by claims): its memory and compute limits from inside, against what the claim was given (GPUSHARE_SHARE_*); no NVML needed')
            [CompletionResult]::new('--compare', '--compare', [CompletionResultType]::ParameterName, 'Run each target alone, then with --clients N at once, and print the slowdown')
            [CompletionResult]::new('--quick', '--quick', [CompletionResultType]::ParameterName, 'A few seconds per target: smaller copies, fewer repeats')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;metrics' {
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Serve GET /metrics on this address until SIGTERM [default: print one scrape]')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'The layout in force, for its time-slicing replicas [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The layout in force, for its time-slicing replicas [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists]')
            [CompletionResult]::new('--host-root', '--host-root', [CompletionResultType]::ParameterName, 'Ask the kubelet under DIR which pods hold the devices (DIR/var/lib/kubelet/pod-resources/kubelet.sock), and read whose each GPU process is (DIR/proc/PID/cgroup, DIR/var/log/pods); on a real node DIR is / unless given, on a simulated one both are read only when it is given')
            [CompletionResult]::new('--kubelet-cgroup-root', '--kubelet-cgroup-root', [CompletionResultType]::ParameterName, 'The kubelet''s cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container, that root''s path as this host sees it): a process is a pod''s only under the pods'' cgroup there (`ROOT/kubepods`, or the systemd driver''s `…kubepods.slice`), never where anyone may make a cgroup named like a pod')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--openmetrics', '--openmetrics', [CompletionResultType]::ParameterName, 'Print OpenMetrics text rather than the Prometheus text format')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;recover' {
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'The health policy''s file [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists; the defaults otherwise]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The health policy''s file [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists; the defaults otherwise]')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the plan and change nothing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;unit' {
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'The layout the unit applies [default: /etc/gpushare/gpushare.toml, under --state-root]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The layout the unit applies [default: /etc/gpushare/gpushare.toml, under --state-root]')
            [CompletionResult]::new('--gpu-clients-file', '--gpu-clients-file', [CompletionResultType]::ParameterName, 'mig-parted''s GPU clients file: host services that hold the GPUs, stopped before MIG mode changes and resets and started again after them (with those of `[clients]`)')
            [CompletionResult]::new('-k', '-k', [CompletionResultType]::ParameterName, 'mig-parted''s hooks file: commands run at apply-start, pre-apply-mode, pre-apply-config and apply-exit')
            [CompletionResult]::new('--hooks-file', '--hooks-file', [CompletionResultType]::ParameterName, 'mig-parted''s hooks file: commands run at apply-start, pre-apply-mode, pre-apply-config and apply-exit')
            [CompletionResult]::new('--hooks-timeout', '--hooks-timeout', [CompletionResultType]::ParameterName, 'Seconds one hook command may run; then it is killed with what it started, and the apply stops as after a failed step (GPU clients started again, the apply-exit hook run)')
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Where the metrics unit serves GET /metrics')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--metrics', '--metrics', [CompletionResultType]::ParameterName, 'The unit that serves `gpushare metrics --listen` (gpushare-metrics.service) instead')
            [CompletionResult]::new('--install', '--install', [CompletionResultType]::ParameterName, 'Write the unit under /etc/systemd/system (atomically) and enable it')
            [CompletionResult]::new('--uninstall', '--uninstall', [CompletionResultType]::ParameterName, 'Disable the unit and remove it')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;sim' {
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('presets', 'presets', [CompletionResultType]::ParameterValue, 'List the built-in simulated nodes')
            [CompletionResult]::new('models', 'models', [CompletionResultType]::ParameterValue, 'List the GPU models a node file may name')
            [CompletionResult]::new('reboot', 'reboot', [CompletionResultType]::ParameterValue, 'Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and processes are gone')
            [CompletionResult]::new('xid', 'xid', [CompletionResultType]::ParameterValue, 'Raise an Xid error on a GPU of the node kept in --sim-state, as the driver reports one to the NVML clients that wait for events (gpushare, NVIDIA''s device plugin and DRA driver on the NVML stand-in)')
            [CompletionResult]::new('ecc', 'ecc', [CompletionResultType]::ParameterValue, 'Raise an ECC error (single-bit, or double-bit with --double-bit) the same way')
            [CompletionResult]::new('process', 'process', [CompletionResultType]::ParameterValue, 'Start or end a GPU process of the node kept in --sim-state: every NVML client lists it as the driver would (a real process of this host, e.g. a container''s, by its host PID)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpushare;sim;presets' {
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;sim;models' {
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;sim;reboot' {
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;sim;xid' {
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'The GPU''s index')
            [CompletionResult]::new('--mig-device', '--mig-device', [CompletionResultType]::ParameterName, 'On its MIG device GI:CI (GPU instance and compute instance ids, as `detect` shows them)')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;sim;ecc' {
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'The GPU''s index')
            [CompletionResult]::new('--mig-device', '--mig-device', [CompletionResultType]::ParameterName, 'On its MIG device GI:CI (GPU instance and compute instance ids, as `detect` shows them)')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--double-bit', '--double-bit', [CompletionResultType]::ParameterName, 'A double-bit (uncorrectable) error')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;sim;process' {
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('start', 'start', [CompletionResultType]::ParameterValue, 'List PID as a process on a GPU or MIG device, using memory')
            [CompletionResult]::new('end', 'end', [CompletionResultType]::ParameterValue, 'End the process PID: no GPU lists it any more')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpushare;sim;process;start' {
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'The GPU''s index')
            [CompletionResult]::new('--mig-device', '--mig-device', [CompletionResultType]::ParameterName, 'On its MIG device GI:CI (GPU instance and compute instance ids, as `detect` shows them)')
            [CompletionResult]::new('--pid', '--pid', [CompletionResultType]::ParameterName, 'Its host PID')
            [CompletionResult]::new('--memory-mib', '--memory-mib', [CompletionResultType]::ParameterName, 'The memory it uses on the device, in MiB')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Its name; the PID''s own (`/proc/PID/comm`) when it runs here')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('--mps-client', '--mps-client', [CompletionResultType]::ParameterName, 'Listed as a client of an MPS server (`nvidia-smi`''s `M+C`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;sim;process;end' {
            [CompletionResult]::new('--pid', '--pid', [CompletionResultType]::ParameterName, 'Its host PID')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;sim;process;help' {
            [CompletionResult]::new('start', 'start', [CompletionResultType]::ParameterValue, 'List PID as a process on a GPU or MIG device, using memory')
            [CompletionResult]::new('end', 'end', [CompletionResultType]::ParameterValue, 'End the process PID: no GPU lists it any more')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpushare;sim;process;help;start' {
            break
        }
        'gpushare;sim;process;help;end' {
            break
        }
        'gpushare;sim;process;help;help' {
            break
        }
        'gpushare;sim;help' {
            [CompletionResult]::new('presets', 'presets', [CompletionResultType]::ParameterValue, 'List the built-in simulated nodes')
            [CompletionResult]::new('models', 'models', [CompletionResultType]::ParameterValue, 'List the GPU models a node file may name')
            [CompletionResult]::new('reboot', 'reboot', [CompletionResultType]::ParameterValue, 'Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and processes are gone')
            [CompletionResult]::new('xid', 'xid', [CompletionResultType]::ParameterValue, 'Raise an Xid error on a GPU of the node kept in --sim-state, as the driver reports one to the NVML clients that wait for events (gpushare, NVIDIA''s device plugin and DRA driver on the NVML stand-in)')
            [CompletionResult]::new('ecc', 'ecc', [CompletionResultType]::ParameterValue, 'Raise an ECC error (single-bit, or double-bit with --double-bit) the same way')
            [CompletionResult]::new('process', 'process', [CompletionResultType]::ParameterValue, 'Start or end a GPU process of the node kept in --sim-state: every NVML client lists it as the driver would (a real process of this host, e.g. a container''s, by its host PID)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpushare;sim;help;presets' {
            break
        }
        'gpushare;sim;help;models' {
            break
        }
        'gpushare;sim;help;reboot' {
            break
        }
        'gpushare;sim;help;xid' {
            break
        }
        'gpushare;sim;help;ecc' {
            break
        }
        'gpushare;sim;help;process' {
            [CompletionResult]::new('start', 'start', [CompletionResultType]::ParameterValue, 'List PID as a process on a GPU or MIG device, using memory')
            [CompletionResult]::new('end', 'end', [CompletionResultType]::ParameterValue, 'End the process PID: no GPU lists it any more')
            break
        }
        'gpushare;sim;help;process;start' {
            break
        }
        'gpushare;sim;help;process;end' {
            break
        }
        'gpushare;sim;help;help' {
            break
        }
        'gpushare;completions' {
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;man' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Write gpushare.1 and a page per command (gpushare-init.1, gpushare-mig-apply.1, …) into DIR instead, each with the exit codes')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;help' {
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Set up a bare node in one go: choose a layout, write gpushare.toml, apply it, write the cluster manifests, and check the result with the probe')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'Show what `apply` would change to bring the node to gpushare.toml (every mode)')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Change the node to gpushare.toml: MIG, MPS, time-slicing and vGPU, in one plan')
            [CompletionResult]::new('detect', 'detect', [CompletionResultType]::ParameterValue, 'Show the GPUs of this node: models, memory, MIG, compute mode, processes and whose they are (pod and container, or host, from each process''s cgroup under --host-root)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'One screen of what the node shares now: per GPU its mode, its MIG instances drawn over its memory slices with their holders, its MPS daemon and claims'' shares, time-slicing replicas and health; then the layout in force and what `apply` would still change')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check that this node is ready to share its GPUs (driver, devices, runtime, CDI, blockers)')
            [CompletionResult]::new('mig', 'mig', [CompletionResultType]::ParameterValue, 'MIG: profiles, declarative layouts (gpushare.toml or mig-parted v1), safe incremental apply')
            [CompletionResult]::new('mps', 'mps', [CompletionResultType]::ParameterValue, 'MPS: several processes at once on a GPU or MIG device, with per-client limits')
            [CompletionResult]::new('vgpu', 'vgpu', [CompletionResultType]::ParameterValue, 'vGPU on KVM hosts: list types, show devices, apply a layout (mdev and SR-IOV, through sysfs)')
            [CompletionResult]::new('manifests', 'manifests', [CompletionResultType]::ParameterValue, 'Generate cluster wiring for this node: device plugin, gpushare extender, HAMi, DRA, CDI, node agent')
            [CompletionResult]::new('agent', 'agent', [CompletionResultType]::ParameterValue, 'Run as the node agent of a Kubernetes DaemonSet: apply the layout the node''s label names')
            [CompletionResult]::new('controller', 'controller', [CompletionResultType]::ParameterValue, 'MIG on demand for the cluster: reshape idle MIG capacity of the nodes labelled gpushare.io/mig.on-demand=true for pods that wait for `nvidia.com/mig-<profile>`, never touching an instance a pod holds, and give it back to each node''s own layout once no pod waits. One Deployment; replicas elect a leader with a Lease. It writes layouts in node annotations; each node''s agent applies them. Runs until SIGTERM')
            [CompletionResult]::new('dra-plugin', 'dra-plugin', [CompletionResultType]::ParameterValue, 'gpushare''s DRA kubelet plugin (driver gpu.gpushare.io): publishes the node''s GPUs and MIG devices as a ResourceSlice (exactly the node, each unhealthy device tainted), registers with the kubelet, and prepares each claim''s devices as a CDI spec from gpushare''s CDI generator (removed at unprepare; a restarted plugin finds what it prepared). Runs until SIGTERM')
            [CompletionResult]::new('probe', 'probe', [CompletionResultType]::ParameterValue, 'Measure memory, bandwidth and latency on every GPU, MIG device and MPS client, and check that each gives what it was promised')
            [CompletionResult]::new('metrics', 'metrics', [CompletionResultType]::ParameterValue, 'The node''s metrics for Prometheus: GPUs and MIG devices (memory, processes, utilisation, the pod that holds each, the memory each pod''s containers use, health), MIG, MPS and time-slicing, the changes made, the probe''s last verdict')
            [CompletionResult]::new('recover', 'recover', [CompletionResultType]::ParameterValue, 'Reset the GPUs that a fatal fault left unhealthy: an Xid of `[health] fatal_xids` or a double-bit ECC error, as the health watch recorded it')
            [CompletionResult]::new('unit', 'unit', [CompletionResultType]::ParameterValue, 'Print, install or remove the boot unit that applies gpushare.toml at every boot')
            [CompletionResult]::new('sim', 'sim', [CompletionResultType]::ParameterValue, 'Simulated nodes: presets, the GPU models they can hold, a reboot')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff), or write one per command')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpushare;help;init' {
            break
        }
        'gpushare;help;plan' {
            break
        }
        'gpushare;help;apply' {
            break
        }
        'gpushare;help;detect' {
            break
        }
        'gpushare;help;status' {
            break
        }
        'gpushare;help;doctor' {
            break
        }
        'gpushare;help;mig' {
            [CompletionResult]::new('profiles', 'profiles', [CompletionResultType]::ParameterValue, 'Every GPU-instance profile of the MIG-capable GPUs: id, slices, memory, counts, placements')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Change the node to the MIG layout of a file, with the fewest changes')
            [CompletionResult]::new('assert', 'assert', [CompletionResultType]::ParameterValue, 'Exit 0 when the node has the MIG layout of a file, 3 when it does not')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Print the node''s MIG layout as a mig-parted v1 config')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Destroy every GPU and compute instance of the selected GPUs (MIG stays enabled)')
            break
        }
        'gpushare;help;mig;profiles' {
            break
        }
        'gpushare;help;mig;apply' {
            break
        }
        'gpushare;help;mig;assert' {
            break
        }
        'gpushare;help;mig;export' {
            break
        }
        'gpushare;help;mig;clear' {
            break
        }
        'gpushare;help;mps' {
            [CompletionResult]::new('start', 'start', [CompletionResultType]::ParameterValue, 'Start MPS daemons: compute mode EXCLUSIVE_PROCESS, limits sent before any client connects')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the MPS daemons gpushare started: servers, clients, limits, compute modes')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop MPS daemons: refuse while clients are connected, restore compute mode DEFAULT')
            [CompletionResult]::new('unit', 'unit', [CompletionResultType]::ParameterValue, 'Print, or install, a systemd unit that starts the daemons at boot with the same settings')
            break
        }
        'gpushare;help;mps;start' {
            break
        }
        'gpushare;help;mps;status' {
            break
        }
        'gpushare;help;mps;stop' {
            break
        }
        'gpushare;help;mps;unit' {
            break
        }
        'gpushare;help;vgpu' {
            [CompletionResult]::new('types', 'types', [CompletionResultType]::ParameterValue, 'List the vGPU types each GPU supports and how many more of each it can create now')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the vGPU devices that exist, their types, and which VMs hold them')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Create and remove vGPU devices to match gpushare.toml or a vgpu-device-manager config')
            [CompletionResult]::new('assert', 'assert', [CompletionResultType]::ParameterValue, 'Exit 0 when the vGPU devices match the file, 3 when they differ')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Remove every vGPU device of the selected GPUs')
            break
        }
        'gpushare;help;vgpu;types' {
            break
        }
        'gpushare;help;vgpu;status' {
            break
        }
        'gpushare;help;vgpu;apply' {
            break
        }
        'gpushare;help;vgpu;assert' {
            break
        }
        'gpushare;help;vgpu;clear' {
            break
        }
        'gpushare;help;manifests' {
            break
        }
        'gpushare;help;agent' {
            break
        }
        'gpushare;help;controller' {
            break
        }
        'gpushare;help;dra-plugin' {
            break
        }
        'gpushare;help;probe' {
            break
        }
        'gpushare;help;metrics' {
            break
        }
        'gpushare;help;recover' {
            break
        }
        'gpushare;help;unit' {
            break
        }
        'gpushare;help;sim' {
            [CompletionResult]::new('presets', 'presets', [CompletionResultType]::ParameterValue, 'List the built-in simulated nodes')
            [CompletionResult]::new('models', 'models', [CompletionResultType]::ParameterValue, 'List the GPU models a node file may name')
            [CompletionResult]::new('reboot', 'reboot', [CompletionResultType]::ParameterValue, 'Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and processes are gone')
            [CompletionResult]::new('xid', 'xid', [CompletionResultType]::ParameterValue, 'Raise an Xid error on a GPU of the node kept in --sim-state, as the driver reports one to the NVML clients that wait for events (gpushare, NVIDIA''s device plugin and DRA driver on the NVML stand-in)')
            [CompletionResult]::new('ecc', 'ecc', [CompletionResultType]::ParameterValue, 'Raise an ECC error (single-bit, or double-bit with --double-bit) the same way')
            [CompletionResult]::new('process', 'process', [CompletionResultType]::ParameterValue, 'Start or end a GPU process of the node kept in --sim-state: every NVML client lists it as the driver would (a real process of this host, e.g. a container''s, by its host PID)')
            break
        }
        'gpushare;help;sim;presets' {
            break
        }
        'gpushare;help;sim;models' {
            break
        }
        'gpushare;help;sim;reboot' {
            break
        }
        'gpushare;help;sim;xid' {
            break
        }
        'gpushare;help;sim;ecc' {
            break
        }
        'gpushare;help;sim;process' {
            [CompletionResult]::new('start', 'start', [CompletionResultType]::ParameterValue, 'List PID as a process on a GPU or MIG device, using memory')
            [CompletionResult]::new('end', 'end', [CompletionResultType]::ParameterValue, 'End the process PID: no GPU lists it any more')
            break
        }
        'gpushare;help;sim;process;start' {
            break
        }
        'gpushare;help;sim;process;end' {
            break
        }
        'gpushare;help;completions' {
            break
        }
        'gpushare;help;man' {
            break
        }
        'gpushare;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
