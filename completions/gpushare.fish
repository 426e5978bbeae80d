# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_gpushare_global_optspecs
    string join \n sim= sim-state= format= q/quiet color= nvml-lib= state-root= lock-timeout= jobs= h/help V/version
end

function __fish_gpushare_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_gpushare_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_gpushare_using_subcommand
    set -l cmd (__fish_gpushare_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c gpushare -n "__fish_gpushare_needs_command" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_needs_command" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_needs_command" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_needs_command" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_needs_command" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_needs_command" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_needs_command" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_needs_command" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_needs_command" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_needs_command" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "init" -d 'Set up a bare node in one go: choose a layout, write gpushare.toml, apply it, write the cluster manifests, and check the result with the probe'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "plan" -d 'Show what `apply` would change to bring the node to gpushare.toml (every mode)'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "apply" -d 'Change the node to gpushare.toml: MIG, MPS, time-slicing and vGPU, in one plan'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "detect" -d 'Show the GPUs of this node: models, memory, MIG, compute mode, processes and whose they are (pod and container, or host, from each process\'s cgroup under --host-root)'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "status" -d 'One screen of what the node shares now: per GPU its mode, its MIG instances drawn over its memory slices with their holders, its MPS daemon and claims\' shares, time-slicing replicas and health; then the layout in force and what `apply` would still change'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "doctor" -d 'Check that this node is ready to share its GPUs (driver, devices, runtime, CDI, blockers)'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "mig" -d 'MIG: profiles, declarative layouts (gpushare.toml or mig-parted v1), safe incremental apply'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "mps" -d 'MPS: several processes at once on a GPU or MIG device, with per-client limits'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "vgpu" -d 'vGPU on KVM hosts: list types, show devices, apply a layout (mdev and SR-IOV, through sysfs)'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "manifests" -d 'Generate cluster wiring for this node: device plugin, gpushare extender, HAMi, DRA, CDI, node agent'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "agent" -d 'Run as the node agent of a Kubernetes DaemonSet: apply the layout the node\'s label names'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "controller" -d 'MIG on demand for the cluster: reshape idle MIG capacity of the nodes labelled gpushare.io/mig.on-demand=true for pods that wait for `nvidia.com/mig-<profile>`, never touching an instance a pod holds, and give it back to each node\'s own layout once no pod waits. One Deployment; replicas elect a leader with a Lease. It writes layouts in node annotations; each node\'s agent applies them. Runs until SIGTERM'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "dra-plugin" -d 'gpushare\'s DRA kubelet plugin (driver gpu.gpushare.io): publishes the node\'s GPUs and MIG devices as a ResourceSlice (exactly the node, each unhealthy device tainted), registers with the kubelet, and prepares each claim\'s devices as a CDI spec from gpushare\'s CDI generator (removed at unprepare; a restarted plugin finds what it prepared). Runs until SIGTERM'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "probe" -d 'Measure memory, bandwidth and latency on every GPU, MIG device and MPS client, and check that each gives what it was promised'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "metrics" -d 'The node\'s metrics for Prometheus: GPUs and MIG devices (memory, processes, utilisation, the pod that holds each, the memory each pod\'s containers use, health), MIG, MPS and time-slicing, the changes made, the probe\'s last verdict'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "recover" -d 'Reset the GPUs that a fatal fault left unhealthy: an Xid of `[health] fatal_xids` or a double-bit ECC error, as the health watch recorded it'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "unit" -d 'Print, install or remove the boot unit that applies gpushare.toml at every boot'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "sim" -d 'Simulated nodes: presets, the GPU models they can hold, a reboot'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "man" -d 'Print the man page (roff), or write one per command'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -s c -l config -d 'Take the layout from this gpushare.toml instead of --mode' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l mode -d 'How to share the GPUs' -r -f -a "mig\t'MIG instances of one profile (--profile), optionally time-sliced (--replicas)'
mps\t'MPS with N clients per GPU (--clients)'
time-slicing\t'Time-slicing with N replicas per GPU (--replicas)'
auto\t'N slices per GPU (--slices): MIG where a profile gives them, MPS elsewhere'"
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l profile -d '--mode mig: the MIG profile, e.g. 1g.10gb (`gpushare mig profiles` lists them)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l clients -d '--mode mps: clients per GPU (each gets 1/N of the threads and of the memory)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l replicas -d '--mode time-slicing: workloads that take turns on each GPU, 2 to 1024; --mode mig: on each MIG device' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l slices -d '--mode auto: slices per GPU' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l min-memory -d '--mode auto: the least memory a slice may have, e.g. 10G' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l config-out -d 'Where to write gpushare.toml [default: /etc/gpushare/gpushare.toml, under --state-root]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l manifests-out -d 'Where to write the manifests of the `[kubernetes] targets` [default: /etc/gpushare/manifests, under --state-root]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l sysfs-root -d 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l force -d 'Overwrite a gpushare.toml that says something else, and change the node as `apply --force` does (a MIG mode change that processes keep from its reset is left pending until the next reboot, MPS clients in the way are ended)'
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -s y -l yes -d 'Do not ask for confirmation (it is never asked without a terminal)'
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l dry-run -d 'Print the layout and the plan, and stop: nothing is written or changed'
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -l no-probe -d 'Do not run the probe at the end'
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand init" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand plan" -s c -l config -d 'The desired layout (`-`: read it from stdin) [default: /etc/gpushare/gpushare.toml, under --state-root]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand plan" -l sysfs-root -d 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand plan" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand plan" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand plan" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand plan" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand plan" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand plan" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand plan" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand plan" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand plan" -l check -d 'Exit 3 when the node differs from the file (5 when only a reboot is missing)'
complete -c gpushare -n "__fish_gpushare_using_subcommand plan" -l force -d 'Plan as `apply --force` would'
complete -c gpushare -n "__fish_gpushare_using_subcommand plan" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand plan" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand plan" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -s c -l config -d 'The desired layout (`-`: read it from stdin) [default: /etc/gpushare/gpushare.toml, under --state-root]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -l sysfs-root -d 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -l gpu-clients-file -d 'mig-parted\'s GPU clients file: host services that hold the GPUs, stopped before MIG mode changes and resets and started again after them (with those of `[clients]`)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -s k -l hooks-file -d 'mig-parted\'s hooks file: commands run at apply-start, pre-apply-mode, pre-apply-config and apply-exit' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -l hooks-timeout -d 'Seconds one hook command may run; then it is killed with what it started, and the apply stops as after a failed step (GPU clients started again, the apply-exit hook run)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -l dry-run -d 'Print the plan and change nothing'
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -l force -d 'Go ahead where something is in use: MIG modes of busy GPUs change at the next reboot (exit 5), MPS daemons with clients are stopped (clients ended), vGPU devices VMs hold are removed. MIG instances in use are never destroyed'
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -s y -l yes -d 'Do not ask for confirmation (it is never asked without a terminal)'
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand apply" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -l gpu -d 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -l host-root -d 'Ask the kubelet under DIR which pods hold the devices (DIR/var/lib/kubelet/pod-resources/kubelet.sock), and read whose each GPU process is (DIR/proc/PID/cgroup, DIR/var/log/pods); on a real node DIR is / unless given, on a simulated one both are read only when it is given' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -l kubelet-cgroup-root -d 'The kubelet\'s cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container, that root\'s path as this host sees it): a process is a pod\'s only under the pods\' cgroup there (`ROOT/kubepods`, or the systemd driver\'s `…kubepods.slice`), never where anyone may make a cgroup named like a pod' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand status" -s c -l config -d 'The layout to compare the node with [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand status" -l host-root -d 'Ask the kubelet under DIR which pods hold the devices (DIR/var/lib/kubelet/pod-resources/kubelet.sock), and read whose each GPU process is (DIR/proc/PID/cgroup, DIR/var/log/pods); on a real node DIR is / unless given, on a simulated one both are read only when it is given' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand status" -l kubelet-cgroup-root -d 'The kubelet\'s cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container, that root\'s path as this host sees it): a process is a pod\'s only under the pods\' cgroup there (`ROOT/kubepods`, or the systemd driver\'s `…kubepods.slice`), never where anyone may make a cgroup named like a pod' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand status" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand status" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand status" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand status" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand status" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand status" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand status" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand status" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand status" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand status" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand doctor" -l host-root -d 'Check the host files (/dev, /proc, /sys, /etc) under DIR instead of /' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand doctor" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand doctor" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand doctor" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand doctor" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand doctor" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand doctor" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand doctor" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand doctor" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand doctor" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand doctor" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -f -a "profiles" -d 'Every GPU-instance profile of the MIG-capable GPUs: id, slices, memory, counts, placements'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -f -a "apply" -d 'Change the node to the MIG layout of a file, with the fewest changes'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -f -a "assert" -d 'Exit 0 when the node has the MIG layout of a file, 3 when it does not'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -f -a "export" -d 'Print the node\'s MIG layout as a mig-parted v1 config'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -f -a "clear" -d 'Destroy every GPU and compute instance of the selected GPUs (MIG stays enabled)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -l gpu -d 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -s f -l file -l config-file -d 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -s c -l selected-config -l label -d 'The label of the mig-parted config to use (not needed when the file has one label)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l gpu-clients-file -d 'mig-parted\'s GPU clients file: host services that hold the GPUs, stopped before MIG mode changes and resets and started again after them (with those of `[clients]`)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -s k -l hooks-file -d 'mig-parted\'s hooks file: commands run at apply-start, pre-apply-mode, pre-apply-config and apply-exit' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l hooks-timeout -d 'Seconds one hook command may run; then it is killed with what it started, and the apply stops as after a failed step (GPU clients started again, the apply-exit hook run)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l dry-run -d 'Print the plan and change nothing'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l force -d 'Change the MIG mode of GPUs that processes or services keep busy, leaving the change pending until the next reboot (exit 5). Instances in use are never destroyed'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -s m -l mode-only -d 'Only the MIG mode of the layout: instances are neither created nor destroyed'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -s s -l skip-reset -d 'Set the MIG mode without resetting GPUs: a change a GPU leaves pending takes effect at its next reset or reboot (exit 5)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -s f -l file -l config-file -d 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -s c -l selected-config -l label -d 'The label of the mig-parted config to use (not needed when the file has one label)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -s l -l config-label -d 'The label of the exported config' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -l gpu -d 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -l dry-run -d 'Print the plan and change nothing'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from help" -f -a "profiles" -d 'Every GPU-instance profile of the MIG-capable GPUs: id, slices, memory, counts, placements'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from help" -f -a "apply" -d 'Change the node to the MIG layout of a file, with the fewest changes'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from help" -f -a "assert" -d 'Exit 0 when the node has the MIG layout of a file, 3 when it does not'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from help" -f -a "export" -d 'Print the node\'s MIG layout as a mig-parted v1 config'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from help" -f -a "clear" -d 'Destroy every GPU and compute instance of the selected GPUs (MIG stays enabled)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and not __fish_seen_subcommand_from start status stop unit help" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and not __fish_seen_subcommand_from start status stop unit help" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and not __fish_seen_subcommand_from start status stop unit help" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and not __fish_seen_subcommand_from start status stop unit help" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and not __fish_seen_subcommand_from start status stop unit help" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and not __fish_seen_subcommand_from start status stop unit help" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and not __fish_seen_subcommand_from start status stop unit help" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and not __fish_seen_subcommand_from start status stop unit help" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and not __fish_seen_subcommand_from start status stop unit help" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and not __fish_seen_subcommand_from start status stop unit help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and not __fish_seen_subcommand_from start status stop unit help" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and not __fish_seen_subcommand_from start status stop unit help" -f -a "start" -d 'Start MPS daemons: compute mode EXCLUSIVE_PROCESS, limits sent before any client connects'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and not __fish_seen_subcommand_from start status stop unit help" -f -a "status" -d 'Show the MPS daemons gpushare started: servers, clients, limits, compute modes'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and not __fish_seen_subcommand_from start status stop unit help" -f -a "stop" -d 'Stop MPS daemons: refuse while clients are connected, restore compute mode DEFAULT'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and not __fish_seen_subcommand_from start status stop unit help" -f -a "unit" -d 'Print, or install, a systemd unit that starts the daemons at boot with the same settings'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and not __fish_seen_subcommand_from start status stop unit help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -l gpu -d 'GPUs to share: `all`, indexes `0,2`, ranges `0-3`, UUIDs (`MIG-…` for single MIG devices)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -l clients -d 'An equal share for N clients: 100/N percent of the threads, 1/N of the memory each' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -l thread-percentage -d 'Active thread percentage per client, 1 to 100' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -l memory-limit -d 'Pinned device memory per client, e.g. `4G` or `512M` (overrides the share of --clients)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -l pipe-dir -d 'Pipe directory of the daemon (default /run/gpushare/mps/NAME/pipe)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -l log-dir -d 'Log directory of the daemon (default /run/gpushare/mps/NAME/log)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -s c -l config -d 'Start what the `mps` and `mig.mps` sections of gpushare.toml ask for' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -l timeout -d 'Seconds to wait for each answer of the daemon' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -l multiuser -d 'Let clients of every user share one server (-multiuser-server; Volta or newer, root)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from start" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from status" -l timeout -d 'Seconds to wait for each answer of a daemon' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from status" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from status" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from status" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from status" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from status" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from status" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from status" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from status" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from status" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from stop" -l gpu -d 'Stop only the daemons that serve these GPUs' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from stop" -l timeout -d 'Seconds to wait for each answer of a daemon, and for it to exit' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from stop" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from stop" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from stop" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from stop" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from stop" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from stop" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from stop" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from stop" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from stop" -l force -d 'Stop even while clients are connected: end them with terminate_client first'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from stop" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from stop" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from stop" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -l gpu -d 'GPUs to share: `all`, indexes `0,2`, ranges `0-3`, UUIDs (`MIG-…` for single MIG devices)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -l clients -d 'An equal share for N clients: 100/N percent of the threads, 1/N of the memory each' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -l thread-percentage -d 'Active thread percentage per client, 1 to 100' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -l memory-limit -d 'Pinned device memory per client, e.g. `4G` or `512M` (overrides the share of --clients)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -l pipe-dir -d 'Pipe directory of the daemon (default /run/gpushare/mps/NAME/pipe)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -l log-dir -d 'Log directory of the daemon (default /run/gpushare/mps/NAME/log)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -s c -l config -d 'Start what the `mps` and `mig.mps` sections of gpushare.toml ask for' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -l timeout -d 'Seconds to wait for each answer of the daemon' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -l multiuser -d 'Let clients of every user share one server (-multiuser-server; Volta or newer, root)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -l install -d 'Write the unit under /etc/systemd/system (atomically) instead of printing it'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from unit" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from help" -f -a "start" -d 'Start MPS daemons: compute mode EXCLUSIVE_PROCESS, limits sent before any client connects'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show the MPS daemons gpushare started: servers, clients, limits, compute modes'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from help" -f -a "stop" -d 'Stop MPS daemons: refuse while clients are connected, restore compute mode DEFAULT'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from help" -f -a "unit" -d 'Print, or install, a systemd unit that starts the daemons at boot with the same settings'
complete -c gpushare -n "__fish_gpushare_using_subcommand mps; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and not __fish_seen_subcommand_from types status apply assert clear help" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and not __fish_seen_subcommand_from types status apply assert clear help" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and not __fish_seen_subcommand_from types status apply assert clear help" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and not __fish_seen_subcommand_from types status apply assert clear help" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and not __fish_seen_subcommand_from types status apply assert clear help" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and not __fish_seen_subcommand_from types status apply assert clear help" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and not __fish_seen_subcommand_from types status apply assert clear help" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and not __fish_seen_subcommand_from types status apply assert clear help" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and not __fish_seen_subcommand_from types status apply assert clear help" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and not __fish_seen_subcommand_from types status apply assert clear help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and not __fish_seen_subcommand_from types status apply assert clear help" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and not __fish_seen_subcommand_from types status apply assert clear help" -f -a "types" -d 'List the vGPU types each GPU supports and how many more of each it can create now'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and not __fish_seen_subcommand_from types status apply assert clear help" -f -a "status" -d 'Show the vGPU devices that exist, their types, and which VMs hold them'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and not __fish_seen_subcommand_from types status apply assert clear help" -f -a "apply" -d 'Create and remove vGPU devices to match gpushare.toml or a vgpu-device-manager config'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and not __fish_seen_subcommand_from types status apply assert clear help" -f -a "assert" -d 'Exit 0 when the vGPU devices match the file, 3 when they differ'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and not __fish_seen_subcommand_from types status apply assert clear help" -f -a "clear" -d 'Remove every vGPU device of the selected GPUs'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and not __fish_seen_subcommand_from types status apply assert clear help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from types" -l gpu -d 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from types" -l sysfs-root -d 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from types" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from types" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from types" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from types" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from types" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from types" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from types" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from types" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from types" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from types" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from types" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from status" -l gpu -d 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from status" -l sysfs-root -d 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from status" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from status" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from status" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from status" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from status" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from status" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from status" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from status" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from status" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from apply" -s f -l file -d 'gpushare.toml (its `mode = "vgpu"` entries) or a vgpu-device-manager config (YAML); `-` reads stdin [default: /etc/gpushare/gpushare.toml]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from apply" -s c -l config -d 'Which config of a vgpu-device-manager file to apply (a label under `vgpu-configs`)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from apply" -l gpu -d 'Only these GPUs of the file\'s layout: `all`, indexes, ranges, UUIDs or PCI bus ids' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from apply" -l sysfs-root -d 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from apply" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from apply" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from apply" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from apply" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from apply" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from apply" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from apply" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from apply" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from apply" -l dry-run -d 'Show the changes without making them'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from apply" -l force -d 'Also remove vGPU devices that a VM holds open (the kernel may still refuse)'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from apply" -l heterogeneous -d 'The GPUs run in heterogeneous mode (`nvidia-smi vgpu -shm 1`): allow several time-sliced types on one GPU'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from apply" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from apply" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from apply" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from assert" -s f -l file -d 'gpushare.toml (its `mode = "vgpu"` entries) or a vgpu-device-manager config (YAML); `-` reads stdin [default: /etc/gpushare/gpushare.toml]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from assert" -s c -l config -d 'Which config of a vgpu-device-manager file to apply (a label under `vgpu-configs`)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from assert" -l gpu -d 'Only these GPUs of the file\'s layout' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from assert" -l sysfs-root -d 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from assert" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from assert" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from assert" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from assert" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from assert" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from assert" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from assert" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from assert" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from assert" -l heterogeneous -d 'The GPUs run in heterogeneous mode (`nvidia-smi vgpu -shm 1`): allow several time-sliced types on one GPU, as `vgpu apply --heterogeneous` does'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from assert" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from assert" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from assert" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from clear" -l gpu -d 'GPUs to clear: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from clear" -l sysfs-root -d 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from clear" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from clear" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from clear" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from clear" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from clear" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from clear" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from clear" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from clear" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from clear" -l dry-run -d 'Show the changes without making them'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from clear" -l force -d 'Also remove vGPU devices that a VM holds open (the kernel may still refuse)'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from clear" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from clear" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from clear" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from help" -f -a "types" -d 'List the vGPU types each GPU supports and how many more of each it can create now'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show the vGPU devices that exist, their types, and which VMs hold them'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from help" -f -a "apply" -d 'Create and remove vGPU devices to match gpushare.toml or a vgpu-device-manager config'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from help" -f -a "assert" -d 'Exit 0 when the vGPU devices match the file, 3 when they differ'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from help" -f -a "clear" -d 'Remove every vGPU device of the selected GPUs'
complete -c gpushare -n "__fish_gpushare_using_subcommand vgpu; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l target -d 'What to generate (repeatable; default: `[kubernetes] targets` of -c)' -r -f -a "nvidia-device-plugin\t'NVIDIA k8s-device-plugin: config (MIG strategy, time-slicing, MPS), DaemonSets, node label'
gpushare-extender\t'Aliyun gpushare scheduler extender and device plugin (GPU memory as a resource)'
hami\t'Helm values for HAMi'
dra\t'DRA DeviceClasses and ResourceClaimTemplates for the NVIDIA DRA driver'
dra-plugin\t'gpushare\'s own DRA driver: its kubelet plugin\'s DaemonSet and RBAC, and DeviceClasses and ResourceClaimTemplates on it (the same names as `dra`\'s: use one or the other)'
cdi\t'A CDI spec for every GPU and MIG device (nvidia.com/gpu)'
agent\t'A ConfigMap with gpushare.toml and a DaemonSet that applies it on labelled nodes'
controller\t'The MIG-on-demand controller: a Deployment with leader election and its RBAC'
prometheus-rules\t'Alerting rules on gpushare\'s metrics (a Prometheus rules file)'
grafana-dashboard\t'A Grafana dashboard for gpushare\'s metrics (a ConfigMap the Grafana sidecar loads)'"
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -s c -l config -d 'The desired layout (gpushare.toml; `-`: from stdin) [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists; without one, the node as it is now]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l out -d 'Write one file per object (and NOTES.txt) into DIR instead of stdout; a run for another node class adds to the manifests already there (one device-plugin ConfigMap with a key per layout), so `kubectl apply -f DIR` applies the whole fleet' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l k8s-version -d 'Kubernetes release of the cluster, 1.29 to 1.37 [default: 1.34]' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l namespace -d 'Namespace of the namespaced objects (default: each target\'s usual one)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l image -d 'Image of a component: device-plugin, gpushare-extender, gpushare-device-plugin, hami, cuda, kube-scheduler, gpushare (repeatable)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l name -d 'Name of this layout: the node label value that selects it, and part of object names [default: the stem of -c; for gpushare.toml or no file, gpushare-HASH, from the layout]' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l node-name -d 'Kubernetes name of this node, for the label commands in the notes (and HAMi\'s node config)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l mig-strategy -d 'The device plugin\'s MIG strategy: `auto` is `single` where every GPU has MIG devices of one profile, `mixed` otherwise; `mixed` always names a resource per profile (what MIG on demand needs: `gpushare controller` changes the profiles)' -r -f -a "auto\t''
mixed\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l dev-root -d 'CDI: read device nodes and MIG minors under DIR (`DIR/dev`, `DIR/proc/driver`), every link resolved inside it [default: /]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l driver-root -d 'CDI: mount the driver\'s libraries, tools and firmware from under DIR (a containerized driver\'s root) [default: the --dev-root, or / on a node]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l host-root -d 'CDI from inside a container whose host\'s / is mounted at DIR (gpushare\'s DRA plugin DaemonSet mounts it at /host): device nodes and driver files are read under DIR (the default of --dev-root), and the spec names them as the host\'s container runtime sees them' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l nvidia-cdi-hook-path -d 'CDI: the nvidia-cdi-hook program (on the host) that the spec\'s hooks run: SONAME links, the loader\'s cache, CUDA compatibility [default: /usr/bin/nvidia-cdi-hook when it exists; no hooks otherwise]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l helm-values -d 'nvidia-device-plugin: write Helm values for the chart instead of plain manifests'
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l examples -d 'Add a pod per target that requests one slice'
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -l install -d 'cdi: write the spec to /etc/cdi/nvidia.yaml (atomically, 0644) instead of printing it'
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand manifests" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l node -d 'This node\'s name in Kubernetes' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l configmap -d 'The ConfigMap of named layouts' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l kubeconfig -d 'kubeconfig file(s) to reach the API server [default: the pod\'s service account]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l health-addr -d 'Serve the health endpoint (GET /healthz) and the node\'s metrics (GET /metrics, as `gpushare metrics`) on this address' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l pause-timeout -d 'Seconds the paused GPU clients get to leave the node before the change is given up' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l retry -d 'Seconds before a failed run is tried again (bad layouts wait for a change instead)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l host-root -d 'Ask the kubelet under DIR which pods hold which devices (DIR/var/lib/kubelet/pod-resources/kubelet.sock), and read whose each GPU process is (DIR/proc/PID/cgroup; names from the API) [default: / on a real node; a simulated node reads them only when it is given]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l kubelet-cgroup-root -d 'The kubelet\'s cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container, that root\'s path as this host sees it): a process is a pod\'s only under the pods\' cgroup there (`ROOT/kubepods`, or the systemd driver\'s `…kubepods.slice`), never where anyone may make a cgroup named like a pod' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l publish-every -d 'Seconds between publications of the node\'s MIG state for `gpushare controller` (on a node labelled gpushare.io/mig.on-demand=true; only a change is written)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l sysfs-root -d 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -l reset-unhealthy-gpus -d 'Reset a GPU that a fatal fault left unhealthy (an Xid of `[health] fatal_xids`, a double-bit ECC error) once no pod holds it and nothing runs on it, through the pipeline of `gpushare recover`'
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand agent" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -l kubeconfig -d 'kubeconfig file(s) to reach the API server [default: the pod\'s service account]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -l namespace -d 'Namespace of the leader-election Lease' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -l lease -d 'Name of the leader-election Lease' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -l id -d 'This replica\'s identity in the Lease [default: hostname-pid]' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -l lease-seconds -d 'Seconds a leader\'s Lease lasts unrenewed before another replica takes over' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -l interval -d 'Milliseconds between two looks at the cluster' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -l max-reshaping -d 'At most this many nodes reshaping at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -l cooldown -d 'Seconds after a layout is written before that node is changed again' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -l give-back-after -d 'Seconds a node\'s reshaped capacity stays once no pod waits for it, before it goes back to the node\'s own layout' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -l health-addr -d 'Serve the health endpoint (GET /healthz) on this address' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand controller" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l node-name -d 'This node\'s name in Kubernetes (the pool and the slice\'s node)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l kubeconfig -d 'Talk to the API server through this kubeconfig [default: the pod\'s service account]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l registry-dir -d 'The kubelet\'s plugin registry' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l plugin-dir -d 'The plugin\'s own directory (its DRA socket)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l cdi-root -d 'Where the container runtime reads CDI specs (each prepared claim\'s is written there)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l dev-root -d 'CDI: read device nodes and MIG minors under DIR (`DIR/dev`, `DIR/proc/driver`), every link resolved inside it [default: /]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l driver-root -d 'CDI: mount the driver\'s libraries, tools and firmware from under DIR (a containerized driver\'s root) [default: the --dev-root, or / on a node]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l host-root -d 'CDI from inside a container whose host\'s / is mounted at DIR (gpushare\'s DRA plugin DaemonSet mounts it at /host): device nodes and driver files are read under DIR (the default of --dev-root), and the spec names them as the host\'s container runtime sees them' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l nvidia-cdi-hook-path -d 'CDI: the nvidia-cdi-hook program (on the host) that the spec\'s hooks run: SONAME links, the loader\'s cache, CUDA compatibility [default: /usr/bin/nvidia-cdi-hook when it exists; no hooks otherwise]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -s c -l config -d 'The node\'s gpushare.toml: each GPU it gives to dynamic MIG (`mig.dynamic = true`) is published as every placement, its instance made when a claim is prepared [default: /etc/gpushare/gpushare.toml when it exists]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l sysfs-root -d 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l watch-health -d 'Listen for the GPUs\' Xid and ECC errors itself (where no `gpushare agent` or `gpushare metrics --listen` does: one watch per node), so unhealthy devices are tainted in the slice'
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -l evict-on-fatal -d 'Taint a device that a cause `[health]` calls fatal made unhealthy `NoExecute` rather than `NoSchedule`: the pods of its claims are evicted (unless they tolerate it)'
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand dra-plugin" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l target -d 'Only these targets: GPUs as for --gpu (`all`, `0,2`, `0-3`, UUIDs, bus ids; all their MIG devices and MPS clients) or MIG devices by `MIG-…` UUID' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -s c -l config -d 'What each target was promised: the gpushare.toml to check against (default: the applied state, i.e. MIG devices as they are and the settings of running MPS daemons)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l mps-pipe-dir -d 'Reach MPS clients through this pipe directory (CUDA_MPS_PIPE_DIRECTORY), for an MPS daemon gpushare did not start; it serves the devices gpushare.toml puts under MPS, or every target without -c' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l host-root -d 'Read whose the other processes on each target\'s device are under DIR (DIR/proc/PID/cgroup, DIR/var/log/pods) [default: / on a real node; a simulated node reads them only when it is given]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l kubelet-cgroup-root -d 'The kubelet\'s cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container, that root\'s path as this host sees it): a process is a pod\'s only under the pods\' cgroup there (`ROOT/kubepods`, or the systemd driver\'s `…kubepods.slice`), never where anyone may make a cgroup named like a pod' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l clients -d 'Run N clients on each target at once and report their sum and each client; `promised`: as many as each target is promised to (MPS clients, time-slicing replicas of a GPU or of each MIG device), one where nothing is promised' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l buffer -d 'Size of each host-to-device and device-to-host copy (default 256M, 32M with --quick; device-to-device copies are 4 times larger)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l timeout -d 'Seconds a worker may take for its setup, and again for its measurements, before it is reported as hung and killed' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l sysfs-root -d 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l share -d 'Probe the share of a device this container holds (a pod of gpushare\'s DRA driver on a device shared by claims): its memory and compute limits from inside, against what the claim was given (GPUSHARE_SHARE_*); no NVML needed'
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l compare -d 'Run each target alone, then with --clients N at once, and print the slowdown'
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l quick -d 'A few seconds per target: smaller copies, fewer repeats'
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand metrics" -l listen -d 'Serve GET /metrics on this address until SIGTERM [default: print one scrape]' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand metrics" -s c -l config -d 'The layout in force, for its time-slicing replicas [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand metrics" -l host-root -d 'Ask the kubelet under DIR which pods hold the devices (DIR/var/lib/kubelet/pod-resources/kubelet.sock), and read whose each GPU process is (DIR/proc/PID/cgroup, DIR/var/log/pods); on a real node DIR is / unless given, on a simulated one both are read only when it is given' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand metrics" -l kubelet-cgroup-root -d 'The kubelet\'s cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container, that root\'s path as this host sees it): a process is a pod\'s only under the pods\' cgroup there (`ROOT/kubepods`, or the systemd driver\'s `…kubepods.slice`), never where anyone may make a cgroup named like a pod' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand metrics" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand metrics" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand metrics" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand metrics" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand metrics" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand metrics" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand metrics" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand metrics" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand metrics" -l openmetrics -d 'Print OpenMetrics text rather than the Prometheus text format'
complete -c gpushare -n "__fish_gpushare_using_subcommand metrics" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand metrics" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand metrics" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand recover" -l gpu -d 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand recover" -s c -l config -d 'The health policy\'s file [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists; the defaults otherwise]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand recover" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand recover" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand recover" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand recover" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand recover" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand recover" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand recover" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand recover" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand recover" -l dry-run -d 'Print the plan and change nothing'
complete -c gpushare -n "__fish_gpushare_using_subcommand recover" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand recover" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand recover" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -s c -l config -d 'The layout the unit applies [default: /etc/gpushare/gpushare.toml, under --state-root]' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -l gpu-clients-file -d 'mig-parted\'s GPU clients file: host services that hold the GPUs, stopped before MIG mode changes and resets and started again after them (with those of `[clients]`)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -s k -l hooks-file -d 'mig-parted\'s hooks file: commands run at apply-start, pre-apply-mode, pre-apply-config and apply-exit' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -l hooks-timeout -d 'Seconds one hook command may run; then it is killed with what it started, and the apply stops as after a failed step (GPU clients started again, the apply-exit hook run)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -l listen -d 'Where the metrics unit serves GET /metrics' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -l metrics -d 'The unit that serves `gpushare metrics --listen` (gpushare-metrics.service) instead'
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -l install -d 'Write the unit under /etc/systemd/system (atomically) and enable it'
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -l uninstall -d 'Disable the unit and remove it'
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand unit" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot xid ecc process help" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot xid ecc process help" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot xid ecc process help" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot xid ecc process help" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot xid ecc process help" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot xid ecc process help" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot xid ecc process help" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot xid ecc process help" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot xid ecc process help" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot xid ecc process help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot xid ecc process help" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot xid ecc process help" -f -a "presets" -d 'List the built-in simulated nodes'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot xid ecc process help" -f -a "models" -d 'List the GPU models a node file may name'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot xid ecc process help" -f -a "reboot" -d 'Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and processes are gone'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot xid ecc process help" -f -a "xid" -d 'Raise an Xid error on a GPU of the node kept in --sim-state, as the driver reports one to the NVML clients that wait for events (gpushare, NVIDIA\'s device plugin and DRA driver on the NVML stand-in)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot xid ecc process help" -f -a "ecc" -d 'Raise an ECC error (single-bit, or double-bit with --double-bit) the same way'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot xid ecc process help" -f -a "process" -d 'Start or end a GPU process of the node kept in --sim-state: every NVML client lists it as the driver would (a real process of this host, e.g. a container\'s, by its host PID)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot xid ecc process help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from xid" -l gpu -d 'The GPU\'s index' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from xid" -l mig-device -d 'On its MIG device GI:CI (GPU instance and compute instance ids, as `detect` shows them)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from xid" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from xid" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from xid" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from xid" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from xid" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from xid" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from xid" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from xid" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from xid" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from xid" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from xid" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from ecc" -l gpu -d 'The GPU\'s index' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from ecc" -l mig-device -d 'On its MIG device GI:CI (GPU instance and compute instance ids, as `detect` shows them)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from ecc" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from ecc" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from ecc" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from ecc" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from ecc" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from ecc" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from ecc" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from ecc" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from ecc" -l double-bit -d 'A double-bit (uncorrectable) error'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from ecc" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from ecc" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from ecc" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from process" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from process" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from process" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from process" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from process" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from process" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from process" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from process" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from process" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from process" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from process" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from process" -f -a "start" -d 'List PID as a process on a GPU or MIG device, using memory'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from process" -f -a "end" -d 'End the process PID: no GPU lists it any more'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from process" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from help" -f -a "presets" -d 'List the built-in simulated nodes'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from help" -f -a "models" -d 'List the GPU models a node file may name'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from help" -f -a "reboot" -d 'Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and processes are gone'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from help" -f -a "xid" -d 'Raise an Xid error on a GPU of the node kept in --sim-state, as the driver reports one to the NVML clients that wait for events (gpushare, NVIDIA\'s device plugin and DRA driver on the NVML stand-in)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from help" -f -a "ecc" -d 'Raise an ECC error (single-bit, or double-bit with --double-bit) the same way'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from help" -f -a "process" -d 'Start or end a GPU process of the node kept in --sim-state: every NVML client lists it as the driver would (a real process of this host, e.g. a container\'s, by its host PID)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -l dir -d 'Write gpushare.1 and a page per command (gpushare-init.1, gpushare-mig-apply.1, …) into DIR instead, each with the exit codes' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, each change kept as it is made)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -l lock-timeout -d 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -l jobs -d 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "init" -d 'Set up a bare node in one go: choose a layout, write gpushare.toml, apply it, write the cluster manifests, and check the result with the probe'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "plan" -d 'Show what `apply` would change to bring the node to gpushare.toml (every mode)'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "apply" -d 'Change the node to gpushare.toml: MIG, MPS, time-slicing and vGPU, in one plan'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "detect" -d 'Show the GPUs of this node: models, memory, MIG, compute mode, processes and whose they are (pod and container, or host, from each process\'s cgroup under --host-root)'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "status" -d 'One screen of what the node shares now: per GPU its mode, its MIG instances drawn over its memory slices with their holders, its MPS daemon and claims\' shares, time-slicing replicas and health; then the layout in force and what `apply` would still change'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "doctor" -d 'Check that this node is ready to share its GPUs (driver, devices, runtime, CDI, blockers)'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "mig" -d 'MIG: profiles, declarative layouts (gpushare.toml or mig-parted v1), safe incremental apply'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "mps" -d 'MPS: several processes at once on a GPU or MIG device, with per-client limits'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "vgpu" -d 'vGPU on KVM hosts: list types, show devices, apply a layout (mdev and SR-IOV, through sysfs)'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "manifests" -d 'Generate cluster wiring for this node: device plugin, gpushare extender, HAMi, DRA, CDI, node agent'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "agent" -d 'Run as the node agent of a Kubernetes DaemonSet: apply the layout the node\'s label names'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "controller" -d 'MIG on demand for the cluster: reshape idle MIG capacity of the nodes labelled gpushare.io/mig.on-demand=true for pods that wait for `nvidia.com/mig-<profile>`, never touching an instance a pod holds, and give it back to each node\'s own layout once no pod waits. One Deployment; replicas elect a leader with a Lease. It writes layouts in node annotations; each node\'s agent applies them. Runs until SIGTERM'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "dra-plugin" -d 'gpushare\'s DRA kubelet plugin (driver gpu.gpushare.io): publishes the node\'s GPUs and MIG devices as a ResourceSlice (exactly the node, each unhealthy device tainted), registers with the kubelet, and prepares each claim\'s devices as a CDI spec from gpushare\'s CDI generator (removed at unprepare; a restarted plugin finds what it prepared). Runs until SIGTERM'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "probe" -d 'Measure memory, bandwidth and latency on every GPU, MIG device and MPS client, and check that each gives what it was promised'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "metrics" -d 'The node\'s metrics for Prometheus: GPUs and MIG devices (memory, processes, utilisation, the pod that holds each, the memory each pod\'s containers use, health), MIG, MPS and time-slicing, the changes made, the probe\'s last verdict'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "recover" -d 'Reset the GPUs that a fatal fault left unhealthy: an Xid of `[health] fatal_xids` or a double-bit ECC error, as the health watch recorded it'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "unit" -d 'Print, install or remove the boot unit that applies gpushare.toml at every boot'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "sim" -d 'Simulated nodes: presets, the GPU models they can hold, a reboot'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "completions" -d 'Print a shell completion script'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "man" -d 'Print the man page (roff), or write one per command'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from mig" -f -a "profiles" -d 'Every GPU-instance profile of the MIG-capable GPUs: id, slices, memory, counts, placements'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from mig" -f -a "apply" -d 'Change the node to the MIG layout of a file, with the fewest changes'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from mig" -f -a "assert" -d 'Exit 0 when the node has the MIG layout of a file, 3 when it does not'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from mig" -f -a "export" -d 'Print the node\'s MIG layout as a mig-parted v1 config'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from mig" -f -a "clear" -d 'Destroy every GPU and compute instance of the selected GPUs (MIG stays enabled)'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from mps" -f -a "start" -d 'Start MPS daemons: compute mode EXCLUSIVE_PROCESS, limits sent before any client connects'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from mps" -f -a "status" -d 'Show the MPS daemons gpushare started: servers, clients, limits, compute modes'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from mps" -f -a "stop" -d 'Stop MPS daemons: refuse while clients are connected, restore compute mode DEFAULT'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from mps" -f -a "unit" -d 'Print, or install, a systemd unit that starts the daemons at boot with the same settings'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from vgpu" -f -a "types" -d 'List the vGPU types each GPU supports and how many more of each it can create now'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from vgpu" -f -a "status" -d 'Show the vGPU devices that exist, their types, and which VMs hold them'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from vgpu" -f -a "apply" -d 'Create and remove vGPU devices to match gpushare.toml or a vgpu-device-manager config'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from vgpu" -f -a "assert" -d 'Exit 0 when the vGPU devices match the file, 3 when they differ'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from vgpu" -f -a "clear" -d 'Remove every vGPU device of the selected GPUs'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from sim" -f -a "presets" -d 'List the built-in simulated nodes'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from sim" -f -a "models" -d 'List the GPU models a node file may name'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from sim" -f -a "reboot" -d 'Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and processes are gone'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from sim" -f -a "xid" -d 'Raise an Xid error on a GPU of the node kept in --sim-state, as the driver reports one to the NVML clients that wait for events (gpushare, NVIDIA\'s device plugin and DRA driver on the NVML stand-in)'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from sim" -f -a "ecc" -d 'Raise an ECC error (single-bit, or double-bit with --double-bit) the same way'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from sim" -f -a "process" -d 'Start or end a GPU process of the node kept in --sim-state: every NVML client lists it as the driver would (a real process of this host, e.g. a container\'s, by its host PID)'
