
use builtin;
use str;

set edit:completion:arg-completer[gpushare] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'gpushare'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'gpushare'= {
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand init 'Set up a bare node in one go: choose a layout, write gpushare.toml, apply it, write the cluster manifests, and check the result with the probe'
            cand plan 'Show what `apply` would change to bring the node to gpushare.toml (every mode)'
            cand apply 'Change the node to gpushare.toml: MIG, MPS, time-slicing and vGPU, in one plan'
            cand detect 'Show the GPUs of this node: models, memory, MIG, compute mode, processes and whose they are (pod and container, or host, from each process''s cgroup under --host-root)'
            cand status 'One screen of what the node shares now: per GPU its mode, its MIG instances drawn over its memory slices with their holders, its MPS daemon and claims'' shares, time-slicing replicas and health; then the layout in force and what `apply` would still change'
            cand doctor 'Check that this node is ready to share its GPUs (driver, devices, runtime, CDI, blockers)'
            cand mig 'MIG: profiles, declarative layouts (gpushare.toml or mig-parted v1), safe incremental apply'
            cand mps 'MPS: several processes at once on a GPU or MIG device, with per-client limits'
            cand vgpu 'vGPU on KVM hosts: list types, show devices, apply a layout (mdev and SR-IOV, through sysfs)'
            cand manifests 'Generate cluster wiring for this node: device plugin, gpushare extender, HAMi, DRA, CDI, node agent'
            cand agent 'Run as the node agent of a Kubernetes DaemonSet: apply the layout the node''s label names'
            cand controller 'MIG on demand for the cluster: reshape idle MIG capacity of the nodes labelled gpushare.io/mig.on-demand=true for pods that wait for `nvidia.com/mig-<profile>`, never touching an instance a pod holds, and give it back to each node''s own layout once no pod waits. One Deployment; replicas elect a leader with a Lease. It writes layouts in node annotations; each node''s agent applies them. Runs until SIGTERM'
            cand dra-plugin 'gpushare''s DRA kubelet plugin (driver gpu.gpushare.io): publishes the node''s GPUs and MIG devices as a ResourceSlice (exactly the node, each unhealthy device tainted), registers with the kubelet, and prepares each claim''s devices as a CDI spec from gpushare''s CDI generator (removed at unprepare; a restarted plugin finds what it prepared). Runs until SIGTERM'
            cand probe 'Measure memory, bandwidth and latency on every GPU, MIG device and MPS client, and check that each gives what it was promised'
            cand metrics 'The node''s metrics for Prometheus: GPUs and MIG devices (memory, processes, utilisation, the pod that holds each, the memory each pod''s containers use, health), MIG, MPS and time-slicing, the changes made, the probe''s last verdict'
            cand recover 'Reset the GPUs that a fatal fault left unhealthy: an Xid of `[health] fatal_xids` or a double-bit ECC error, as the health watch recorded it'
            cand unit 'Print, install or remove the boot unit that applies gpushare.toml at every boot'
            cand sim 'Simulated nodes: presets, the GPU models they can hold, a reboot'
            cand completions 'Print a shell completion script'
            cand man 'Print the man page (roff), or write one per command'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpushare;init'= {
            cand -c 'Take the layout from this gpushare.toml instead of --mode'
            cand --config 'Take the layout from this gpushare.toml instead of --mode'
            cand --mode 'How to share the GPUs'
            cand --profile '--mode mig: the MIG profile, e.g. 1g.10gb (`gpushare mig profiles` lists them)'
            cand --clients '--mode mps: clients per GPU (each gets 1/N of the threads and of the memory)'
            cand --replicas '--mode time-slicing: workloads that take turns on each GPU, 2 to 1024; --mode mig: on each MIG device'
            cand --slices '--mode auto: slices per GPU'
            cand --min-memory '--mode auto: the least memory a slice may have, e.g. 10G'
            cand --config-out 'Where to write gpushare.toml [default: /etc/gpushare/gpushare.toml, under --state-root]'
            cand --manifests-out 'Where to write the manifests of the `[kubernetes] targets` [default: /etc/gpushare/manifests, under --state-root]'
            cand --sysfs-root 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --force 'Overwrite a gpushare.toml that says something else, and change the node as `apply --force` does (a MIG mode change that processes keep from its reset is left pending until the next reboot, MPS clients in the way are ended)'
            cand -y 'Do not ask for confirmation (it is never asked without a terminal)'
            cand --yes 'Do not ask for confirmation (it is never asked without a terminal)'
            cand --dry-run 'Print the layout and the plan, and stop: nothing is written or changed'
            cand --no-probe 'Do not run the probe at the end'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;plan'= {
            cand -c 'The desired layout (`-`: read it from stdin) [default: /etc/gpushare/gpushare.toml, under --state-root]'
            cand --config 'The desired layout (`-`: read it from stdin) [default: /etc/gpushare/gpushare.toml, under --state-root]'
            cand --sysfs-root 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --check 'Exit 3 when the node differs from the file (5 when only a reboot is missing)'
            cand --force 'Plan as `apply --force` would'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;apply'= {
            cand -c 'The desired layout (`-`: read it from stdin) [default: /etc/gpushare/gpushare.toml, under --state-root]'
            cand --config 'The desired layout (`-`: read it from stdin) [default: /etc/gpushare/gpushare.toml, under --state-root]'
            cand --sysfs-root 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)'
            cand --gpu-clients-file 'mig-parted''s GPU clients file: host services that hold the GPUs, stopped before MIG mode changes and resets and started again after them (with those of `[clients]`)'
            cand -k 'mig-parted''s hooks file: commands run at apply-start, pre-apply-mode, pre-apply-config and apply-exit'
            cand --hooks-file 'mig-parted''s hooks file: commands run at apply-start, pre-apply-mode, pre-apply-config and apply-exit'
            cand --hooks-timeout 'Seconds one hook command may run; then it is killed with what it started, and the apply stops as after a failed step (GPU clients started again, the apply-exit hook run)'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --dry-run 'Print the plan and change nothing'
            cand --force 'Go ahead where something is in use: MIG modes of busy GPUs change at the next reboot (exit 5), MPS daemons with clients are stopped (clients ended), vGPU devices VMs hold are removed. MIG instances in use are never destroyed'
            cand -y 'Do not ask for confirmation (it is never asked without a terminal)'
            cand --yes 'Do not ask for confirmation (it is never asked without a terminal)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;detect'= {
            cand --gpu 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids'
            cand --host-root 'Ask the kubelet under DIR which pods hold the devices (DIR/var/lib/kubelet/pod-resources/kubelet.sock), and read whose each GPU process is (DIR/proc/PID/cgroup, DIR/var/log/pods); on a real node DIR is / unless given, on a simulated one both are read only when it is given'
            cand --kubelet-cgroup-root 'The kubelet''s cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container, that root''s path as this host sees it): a process is a pod''s only under the pods'' cgroup there (`ROOT/kubepods`, or the systemd driver''s `…kubepods.slice`), never where anyone may make a cgroup named like a pod'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;status'= {
            cand -c 'The layout to compare the node with [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists]'
            cand --config 'The layout to compare the node with [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists]'
            cand --host-root 'Ask the kubelet under DIR which pods hold the devices (DIR/var/lib/kubelet/pod-resources/kubelet.sock), and read whose each GPU process is (DIR/proc/PID/cgroup, DIR/var/log/pods); on a real node DIR is / unless given, on a simulated one both are read only when it is given'
            cand --kubelet-cgroup-root 'The kubelet''s cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container, that root''s path as this host sees it): a process is a pod''s only under the pods'' cgroup there (`ROOT/kubepods`, or the systemd driver''s `…kubepods.slice`), never where anyone may make a cgroup named like a pod'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;doctor'= {
            cand --host-root 'Check the host files (/dev, /proc, /sys, /etc) under DIR instead of /'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;mig'= {
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand profiles 'Every GPU-instance profile of the MIG-capable GPUs: id, slices, memory, counts, placements'
            cand apply 'Change the node to the MIG layout of a file, with the fewest changes'
            cand assert 'Exit 0 when the node has the MIG layout of a file, 3 when it does not'
            cand export 'Print the node''s MIG layout as a mig-parted v1 config'
            cand clear 'Destroy every GPU and compute instance of the selected GPUs (MIG stays enabled)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpushare;mig;profiles'= {
            cand --gpu 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;mig;apply'= {
            cand -f 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)'
            cand --file 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)'
            cand --config-file 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)'
            cand -c 'The label of the mig-parted config to use (not needed when the file has one label)'
            cand --selected-config 'The label of the mig-parted config to use (not needed when the file has one label)'
            cand --label 'The label of the mig-parted config to use (not needed when the file has one label)'
            cand --gpu-clients-file 'mig-parted''s GPU clients file: host services that hold the GPUs, stopped before MIG mode changes and resets and started again after them (with those of `[clients]`)'
            cand -k 'mig-parted''s hooks file: commands run at apply-start, pre-apply-mode, pre-apply-config and apply-exit'
            cand --hooks-file 'mig-parted''s hooks file: commands run at apply-start, pre-apply-mode, pre-apply-config and apply-exit'
            cand --hooks-timeout 'Seconds one hook command may run; then it is killed with what it started, and the apply stops as after a failed step (GPU clients started again, the apply-exit hook run)'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --dry-run 'Print the plan and change nothing'
            cand --force 'Change the MIG mode of GPUs that processes or services keep busy, leaving the change pending until the next reboot (exit 5). Instances in use are never destroyed'
            cand -m 'Only the MIG mode of the layout: instances are neither created nor destroyed'
            cand --mode-only 'Only the MIG mode of the layout: instances are neither created nor destroyed'
            cand -s 'Set the MIG mode without resetting GPUs: a change a GPU leaves pending takes effect at its next reset or reboot (exit 5)'
            cand --skip-reset 'Set the MIG mode without resetting GPUs: a change a GPU leaves pending takes effect at its next reset or reboot (exit 5)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;mig;assert'= {
            cand -f 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)'
            cand --file 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)'
            cand --config-file 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)'
            cand -c 'The label of the mig-parted config to use (not needed when the file has one label)'
            cand --selected-config 'The label of the mig-parted config to use (not needed when the file has one label)'
            cand --label 'The label of the mig-parted config to use (not needed when the file has one label)'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;mig;export'= {
            cand -l 'The label of the exported config'
            cand --config-label 'The label of the exported config'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;mig;clear'= {
            cand --gpu 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --dry-run 'Print the plan and change nothing'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;mig;help'= {
            cand profiles 'Every GPU-instance profile of the MIG-capable GPUs: id, slices, memory, counts, placements'
            cand apply 'Change the node to the MIG layout of a file, with the fewest changes'
            cand assert 'Exit 0 when the node has the MIG layout of a file, 3 when it does not'
            cand export 'Print the node''s MIG layout as a mig-parted v1 config'
            cand clear 'Destroy every GPU and compute instance of the selected GPUs (MIG stays enabled)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpushare;mig;help;profiles'= {
        }
        &'gpushare;mig;help;apply'= {
        }
        &'gpushare;mig;help;assert'= {
        }
        &'gpushare;mig;help;export'= {
        }
        &'gpushare;mig;help;clear'= {
        }
        &'gpushare;mig;help;help'= {
        }
        &'gpushare;mps'= {
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand start 'Start MPS daemons: compute mode EXCLUSIVE_PROCESS, limits sent before any client connects'
            cand status 'Show the MPS daemons gpushare started: servers, clients, limits, compute modes'
            cand stop 'Stop MPS daemons: refuse while clients are connected, restore compute mode DEFAULT'
            cand unit 'Print, or install, a systemd unit that starts the daemons at boot with the same settings'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpushare;mps;start'= {
            cand --gpu 'GPUs to share: `all`, indexes `0,2`, ranges `0-3`, UUIDs (`MIG-…` for single MIG devices)'
            cand --clients 'An equal share for N clients: 100/N percent of the threads, 1/N of the memory each'
            cand --thread-percentage 'Active thread percentage per client, 1 to 100'
            cand --memory-limit 'Pinned device memory per client, e.g. `4G` or `512M` (overrides the share of --clients)'
            cand --pipe-dir 'Pipe directory of the daemon (default /run/gpushare/mps/NAME/pipe)'
            cand --log-dir 'Log directory of the daemon (default /run/gpushare/mps/NAME/log)'
            cand -c 'Start what the `mps` and `mig.mps` sections of gpushare.toml ask for'
            cand --config 'Start what the `mps` and `mig.mps` sections of gpushare.toml ask for'
            cand --timeout 'Seconds to wait for each answer of the daemon'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --multiuser 'Let clients of every user share one server (-multiuser-server; Volta or newer, root)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;mps;status'= {
            cand --timeout 'Seconds to wait for each answer of a daemon'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;mps;stop'= {
            cand --gpu 'Stop only the daemons that serve these GPUs'
            cand --timeout 'Seconds to wait for each answer of a daemon, and for it to exit'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --force 'Stop even while clients are connected: end them with terminate_client first'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;mps;unit'= {
            cand --gpu 'GPUs to share: `all`, indexes `0,2`, ranges `0-3`, UUIDs (`MIG-…` for single MIG devices)'
            cand --clients 'An equal share for N clients: 100/N percent of the threads, 1/N of the memory each'
            cand --thread-percentage 'Active thread percentage per client, 1 to 100'
            cand --memory-limit 'Pinned device memory per client, e.g. `4G` or `512M` (overrides the share of --clients)'
            cand --pipe-dir 'Pipe directory of the daemon (default /run/gpushare/mps/NAME/pipe)'
            cand --log-dir 'Log directory of the daemon (default /run/gpushare/mps/NAME/log)'
            cand -c 'Start what the `mps` and `mig.mps` sections of gpushare.toml ask for'
            cand --config 'Start what the `mps` and `mig.mps` sections of gpushare.toml ask for'
            cand --timeout 'Seconds to wait for each answer of the daemon'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --multiuser 'Let clients of every user share one server (-multiuser-server; Volta or newer, root)'
            cand --install 'Write the unit under /etc/systemd/system (atomically) instead of printing it'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;mps;help'= {
            cand start 'Start MPS daemons: compute mode EXCLUSIVE_PROCESS, limits sent before any client connects'
            cand status 'Show the MPS daemons gpushare started: servers, clients, limits, compute modes'
            cand stop 'Stop MPS daemons: refuse while clients are connected, restore compute mode DEFAULT'
            cand unit 'Print, or install, a systemd unit that starts the daemons at boot with the same settings'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpushare;mps;help;start'= {
        }
        &'gpushare;mps;help;status'= {
        }
        &'gpushare;mps;help;stop'= {
        }
        &'gpushare;mps;help;unit'= {
        }
        &'gpushare;mps;help;help'= {
        }
        &'gpushare;vgpu'= {
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand types 'List the vGPU types each GPU supports and how many more of each it can create now'
            cand status 'Show the vGPU devices that exist, their types, and which VMs hold them'
            cand apply 'Create and remove vGPU devices to match gpushare.toml or a vgpu-device-manager config'
            cand assert 'Exit 0 when the vGPU devices match the file, 3 when they differ'
            cand clear 'Remove every vGPU device of the selected GPUs'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpushare;vgpu;types'= {
            cand --gpu 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids'
            cand --sysfs-root 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;vgpu;status'= {
            cand --gpu 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids'
            cand --sysfs-root 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;vgpu;apply'= {
            cand -f 'gpushare.toml (its `mode = "vgpu"` entries) or a vgpu-device-manager config (YAML); `-` reads stdin [default: /etc/gpushare/gpushare.toml]'
            cand --file 'gpushare.toml (its `mode = "vgpu"` entries) or a vgpu-device-manager config (YAML); `-` reads stdin [default: /etc/gpushare/gpushare.toml]'
            cand -c 'Which config of a vgpu-device-manager file to apply (a label under `vgpu-configs`)'
            cand --config 'Which config of a vgpu-device-manager file to apply (a label under `vgpu-configs`)'
            cand --gpu 'Only these GPUs of the file''s layout: `all`, indexes, ranges, UUIDs or PCI bus ids'
            cand --sysfs-root 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --dry-run 'Show the changes without making them'
            cand --force 'Also remove vGPU devices that a VM holds open (the kernel may still refuse)'
            cand --heterogeneous 'The GPUs run in heterogeneous mode (`nvidia-smi vgpu -shm 1`): allow several time-sliced types on one GPU'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;vgpu;assert'= {
            cand -f 'gpushare.toml (its `mode = "vgpu"` entries) or a vgpu-device-manager config (YAML); `-` reads stdin [default: /etc/gpushare/gpushare.toml]'
            cand --file 'gpushare.toml (its `mode = "vgpu"` entries) or a vgpu-device-manager config (YAML); `-` reads stdin [default: /etc/gpushare/gpushare.toml]'
            cand -c 'Which config of a vgpu-device-manager file to apply (a label under `vgpu-configs`)'
            cand --config 'Which config of a vgpu-device-manager file to apply (a label under `vgpu-configs`)'
            cand --gpu 'Only these GPUs of the file''s layout'
            cand --sysfs-root 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --heterogeneous 'The GPUs run in heterogeneous mode (`nvidia-smi vgpu -shm 1`): allow several time-sliced types on one GPU, as `vgpu apply --heterogeneous` does'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;vgpu;clear'= {
            cand --gpu 'GPUs to clear: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids'
            cand --sysfs-root 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --dry-run 'Show the changes without making them'
            cand --force 'Also remove vGPU devices that a VM holds open (the kernel may still refuse)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;vgpu;help'= {
            cand types 'List the vGPU types each GPU supports and how many more of each it can create now'
            cand status 'Show the vGPU devices that exist, their types, and which VMs hold them'
            cand apply 'Create and remove vGPU devices to match gpushare.toml or a vgpu-device-manager config'
            cand assert 'Exit 0 when the vGPU devices match the file, 3 when they differ'
            cand clear 'Remove every vGPU device of the selected GPUs'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpushare;vgpu;help;types'= {
        }
        &'gpushare;vgpu;help;status'= {
        }
        &'gpushare;vgpu;help;apply'= {
        }
        &'gpushare;vgpu;help;assert'= {
        }
        &'gpushare;vgpu;help;clear'= {
        }
        &'gpushare;vgpu;help;help'= {
        }
        &'gpushare;manifests'= {
            cand --target 'What to generate (repeatable; default: `[kubernetes] targets` of -c)'
            cand -c 'The desired layout (gpushare.toml; `-`: from stdin) [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists; without one, the node as it is now]'
            cand --config 'The desired layout (gpushare.toml; `-`: from stdin) [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists; without one, the node as it is now]'
            cand --out 'Write one file per object (and NOTES.txt) into DIR instead of stdout; a run for another node class adds to the manifests already there (one device-plugin ConfigMap with a key per layout), so `kubectl apply -f DIR` applies the whole fleet'
            cand --k8s-version 'Kubernetes release of the cluster, 1.29 to 1.37 [default: 1.34]'
            cand --namespace 'Namespace of the namespaced objects (default: each target''s usual one)'
            cand --image 'Image of a component: device-plugin, gpushare-extender, gpushare-device-plugin, hami, cuda, kube-scheduler, gpushare (repeatable)'
            cand --name 'Name of this layout: the node label value that selects it, and part of object names [default: the stem of -c; for gpushare.toml or no file, gpushare-HASH, from the layout]'
            cand --node-name 'Kubernetes name of this node, for the label commands in the notes (and HAMi''s node config)'
            cand --mig-strategy 'The device plugin''s MIG strategy: `auto` is `single` where every GPU has MIG devices of one profile, `mixed` otherwise; `mixed` always names a resource per profile (what MIG on demand needs: `gpushare controller` changes the profiles)'
            cand --dev-root 'CDI: read device nodes and MIG minors under DIR (`DIR/dev`, `DIR/proc/driver`), every link resolved inside it [default: /]'
            cand --driver-root 'CDI: mount the driver''s libraries, tools and firmware from under DIR (a containerized driver''s root) [default: the --dev-root, or / on a node]'
            cand --host-root 'CDI from inside a container whose host''s / is mounted at DIR (gpushare''s DRA plugin DaemonSet mounts it at /host): device nodes and driver files are read under DIR (the default of --dev-root), and the spec names them as the host''s container runtime sees them'
            cand --nvidia-cdi-hook-path 'CDI: the nvidia-cdi-hook program (on the host) that the spec''s hooks run: SONAME links, the loader''s cache, CUDA compatibility [default: /usr/bin/nvidia-cdi-hook when it exists; no hooks otherwise]'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --helm-values 'nvidia-device-plugin: write Helm values for the chart instead of plain manifests'
            cand --examples 'Add a pod per target that requests one slice'
            cand --install 'cdi: write the spec to /etc/cdi/nvidia.yaml (atomically, 0644) instead of printing it'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;agent'= {
            cand --node 'This node''s name in Kubernetes'
            cand --configmap 'The ConfigMap of named layouts'
            cand --kubeconfig 'kubeconfig file(s) to reach the API server [default: the pod''s service account]'
            cand --health-addr 'Serve the health endpoint (GET /healthz) and the node''s metrics (GET /metrics, as `gpushare metrics`) on this address'
            cand --pause-timeout 'Seconds the paused GPU clients get to leave the node before the change is given up'
            cand --retry 'Seconds before a failed run is tried again (bad layouts wait for a change instead)'
            cand --host-root 'Ask the kubelet under DIR which pods hold which devices (DIR/var/lib/kubelet/pod-resources/kubelet.sock), and read whose each GPU process is (DIR/proc/PID/cgroup; names from the API) [default: / on a real node; a simulated node reads them only when it is given]'
            cand --kubelet-cgroup-root 'The kubelet''s cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container, that root''s path as this host sees it): a process is a pod''s only under the pods'' cgroup there (`ROOT/kubepods`, or the systemd driver''s `…kubepods.slice`), never where anyone may make a cgroup named like a pod'
            cand --publish-every 'Seconds between publications of the node''s MIG state for `gpushare controller` (on a node labelled gpushare.io/mig.on-demand=true; only a change is written)'
            cand --sysfs-root 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --reset-unhealthy-gpus 'Reset a GPU that a fatal fault left unhealthy (an Xid of `[health] fatal_xids`, a double-bit ECC error) once no pod holds it and nothing runs on it, through the pipeline of `gpushare recover`'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;controller'= {
            cand --kubeconfig 'kubeconfig file(s) to reach the API server [default: the pod''s service account]'
            cand --namespace 'Namespace of the leader-election Lease'
            cand --lease 'Name of the leader-election Lease'
            cand --id 'This replica''s identity in the Lease [default: hostname-pid]'
            cand --lease-seconds 'Seconds a leader''s Lease lasts unrenewed before another replica takes over'
            cand --interval 'Milliseconds between two looks at the cluster'
            cand --max-reshaping 'At most this many nodes reshaping at once'
            cand --cooldown 'Seconds after a layout is written before that node is changed again'
            cand --give-back-after 'Seconds a node''s reshaped capacity stays once no pod waits for it, before it goes back to the node''s own layout'
            cand --health-addr 'Serve the health endpoint (GET /healthz) on this address'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;dra-plugin'= {
            cand --node-name 'This node''s name in Kubernetes (the pool and the slice''s node)'
            cand --kubeconfig 'Talk to the API server through this kubeconfig [default: the pod''s service account]'
            cand --registry-dir 'The kubelet''s plugin registry'
            cand --plugin-dir 'The plugin''s own directory (its DRA socket)'
            cand --cdi-root 'Where the container runtime reads CDI specs (each prepared claim''s is written there)'
            cand --dev-root 'CDI: read device nodes and MIG minors under DIR (`DIR/dev`, `DIR/proc/driver`), every link resolved inside it [default: /]'
            cand --driver-root 'CDI: mount the driver''s libraries, tools and firmware from under DIR (a containerized driver''s root) [default: the --dev-root, or / on a node]'
            cand --host-root 'CDI from inside a container whose host''s / is mounted at DIR (gpushare''s DRA plugin DaemonSet mounts it at /host): device nodes and driver files are read under DIR (the default of --dev-root), and the spec names them as the host''s container runtime sees them'
            cand --nvidia-cdi-hook-path 'CDI: the nvidia-cdi-hook program (on the host) that the spec''s hooks run: SONAME links, the loader''s cache, CUDA compatibility [default: /usr/bin/nvidia-cdi-hook when it exists; no hooks otherwise]'
            cand -c 'The node''s gpushare.toml: each GPU it gives to dynamic MIG (`mig.dynamic = true`) is published as every placement, its instance made when a claim is prepared [default: /etc/gpushare/gpushare.toml when it exists]'
            cand --config 'The node''s gpushare.toml: each GPU it gives to dynamic MIG (`mig.dynamic = true`) is published as every placement, its instance made when a claim is prepared [default: /etc/gpushare/gpushare.toml when it exists]'
            cand --sysfs-root 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --watch-health 'Listen for the GPUs'' Xid and ECC errors itself (where no `gpushare agent` or `gpushare metrics --listen` does: one watch per node), so unhealthy devices are tainted in the slice'
            cand --evict-on-fatal 'Taint a device that a cause `[health]` calls fatal made unhealthy `NoExecute` rather than `NoSchedule`: the pods of its claims are evicted (unless they tolerate it)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;probe'= {
            cand --target 'Only these targets: GPUs as for --gpu (`all`, `0,2`, `0-3`, UUIDs, bus ids; all their MIG devices and MPS clients) or MIG devices by `MIG-…` UUID'
            cand -c 'What each target was promised: the gpushare.toml to check against (default: the applied state, i.e. MIG devices as they are and the settings of running MPS daemons)'
            cand --config 'What each target was promised: the gpushare.toml to check against (default: the applied state, i.e. MIG devices as they are and the settings of running MPS daemons)'
            cand --mps-pipe-dir 'Reach MPS clients through this pipe directory (CUDA_MPS_PIPE_DIRECTORY), for an MPS daemon gpushare did not start; it serves the devices gpushare.toml puts under MPS, or every target without -c'
            cand --host-root 'Read whose the other processes on each target''s device are under DIR (DIR/proc/PID/cgroup, DIR/var/log/pods) [default: / on a real node; a simulated node reads them only when it is given]'
            cand --kubelet-cgroup-root 'The kubelet''s cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container, that root''s path as this host sees it): a process is a pod''s only under the pods'' cgroup there (`ROOT/kubepods`, or the systemd driver''s `…kubepods.slice`), never where anyone may make a cgroup named like a pod'
            cand --clients 'Run N clients on each target at once and report their sum and each client; `promised`: as many as each target is promised to (MPS clients, time-slicing replicas of a GPU or of each MIG device), one where nothing is promised'
            cand --buffer 'Size of each host-to-device and device-to-host copy (default 256M, 32M with --quick; device-to-device copies are 4 times larger)'
            cand --timeout 'Seconds a worker may take for its setup, and again for its measurements, before it is reported as hung and killed'
            cand --sysfs-root 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --share 'Probe the share of a device this container holds (a pod of gpushare''s DRA driver on a device shared by claims): its memory and compute limits from inside, against what the claim was given (GPUSHARE_SHARE_*); no NVML needed'
            cand --compare 'Run each target alone, then with --clients N at once, and print the slowdown'
            cand --quick 'A few seconds per target: smaller copies, fewer repeats'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;metrics'= {
            cand --listen 'Serve GET /metrics on this address until SIGTERM [default: print one scrape]'
            cand -c 'The layout in force, for its time-slicing replicas [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists]'
            cand --config 'The layout in force, for its time-slicing replicas [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists]'
            cand --host-root 'Ask the kubelet under DIR which pods hold the devices (DIR/var/lib/kubelet/pod-resources/kubelet.sock), and read whose each GPU process is (DIR/proc/PID/cgroup, DIR/var/log/pods); on a real node DIR is / unless given, on a simulated one both are read only when it is given'
            cand --kubelet-cgroup-root 'The kubelet''s cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container, that root''s path as this host sees it): a process is a pod''s only under the pods'' cgroup there (`ROOT/kubepods`, or the systemd driver''s `…kubepods.slice`), never where anyone may make a cgroup named like a pod'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --openmetrics 'Print OpenMetrics text rather than the Prometheus text format'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;recover'= {
            cand --gpu 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids'
            cand -c 'The health policy''s file [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists; the defaults otherwise]'
            cand --config 'The health policy''s file [default: /etc/gpushare/gpushare.toml, under --state-root, when it exists; the defaults otherwise]'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --dry-run 'Print the plan and change nothing'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;unit'= {
            cand -c 'The layout the unit applies [default: /etc/gpushare/gpushare.toml, under --state-root]'
            cand --config 'The layout the unit applies [default: /etc/gpushare/gpushare.toml, under --state-root]'
            cand --gpu-clients-file 'mig-parted''s GPU clients file: host services that hold the GPUs, stopped before MIG mode changes and resets and started again after them (with those of `[clients]`)'
            cand -k 'mig-parted''s hooks file: commands run at apply-start, pre-apply-mode, pre-apply-config and apply-exit'
            cand --hooks-file 'mig-parted''s hooks file: commands run at apply-start, pre-apply-mode, pre-apply-config and apply-exit'
            cand --hooks-timeout 'Seconds one hook command may run; then it is killed with what it started, and the apply stops as after a failed step (GPU clients started again, the apply-exit hook run)'
            cand --listen 'Where the metrics unit serves GET /metrics'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --metrics 'The unit that serves `gpushare metrics --listen` (gpushare-metrics.service) instead'
            cand --install 'Write the unit under /etc/systemd/system (atomically) and enable it'
            cand --uninstall 'Disable the unit and remove it'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;sim'= {
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand presets 'List the built-in simulated nodes'
            cand models 'List the GPU models a node file may name'
            cand reboot 'Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and processes are gone'
            cand xid 'Raise an Xid error on a GPU of the node kept in --sim-state, as the driver reports one to the NVML clients that wait for events (gpushare, NVIDIA''s device plugin and DRA driver on the NVML stand-in)'
            cand ecc 'Raise an ECC error (single-bit, or double-bit with --double-bit) the same way'
            cand process 'Start or end a GPU process of the node kept in --sim-state: every NVML client lists it as the driver would (a real process of this host, e.g. a container''s, by its host PID)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpushare;sim;presets'= {
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;sim;models'= {
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;sim;reboot'= {
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;sim;xid'= {
            cand --gpu 'The GPU''s index'
            cand --mig-device 'On its MIG device GI:CI (GPU instance and compute instance ids, as `detect` shows them)'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;sim;ecc'= {
            cand --gpu 'The GPU''s index'
            cand --mig-device 'On its MIG device GI:CI (GPU instance and compute instance ids, as `detect` shows them)'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --double-bit 'A double-bit (uncorrectable) error'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;sim;process'= {
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand start 'List PID as a process on a GPU or MIG device, using memory'
            cand end 'End the process PID: no GPU lists it any more'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpushare;sim;process;start'= {
            cand --gpu 'The GPU''s index'
            cand --mig-device 'On its MIG device GI:CI (GPU instance and compute instance ids, as `detect` shows them)'
            cand --pid 'Its host PID'
            cand --memory-mib 'The memory it uses on the device, in MiB'
            cand --name 'Its name; the PID''s own (`/proc/PID/comm`) when it runs here'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand --mps-client 'Listed as a client of an MPS server (`nvidia-smi`''s `M+C`)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;sim;process;end'= {
            cand --pid 'Its host PID'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;sim;process;help'= {
            cand start 'List PID as a process on a GPU or MIG device, using memory'
            cand end 'End the process PID: no GPU lists it any more'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpushare;sim;process;help;start'= {
        }
        &'gpushare;sim;process;help;end'= {
        }
        &'gpushare;sim;process;help;help'= {
        }
        &'gpushare;sim;help'= {
            cand presets 'List the built-in simulated nodes'
            cand models 'List the GPU models a node file may name'
            cand reboot 'Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and processes are gone'
            cand xid 'Raise an Xid error on a GPU of the node kept in --sim-state, as the driver reports one to the NVML clients that wait for events (gpushare, NVIDIA''s device plugin and DRA driver on the NVML stand-in)'
            cand ecc 'Raise an ECC error (single-bit, or double-bit with --double-bit) the same way'
            cand process 'Start or end a GPU process of the node kept in --sim-state: every NVML client lists it as the driver would (a real process of this host, e.g. a container''s, by its host PID)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpushare;sim;help;presets'= {
        }
        &'gpushare;sim;help;models'= {
        }
        &'gpushare;sim;help;reboot'= {
        }
        &'gpushare;sim;help;xid'= {
        }
        &'gpushare;sim;help;ecc'= {
        }
        &'gpushare;sim;help;process'= {
            cand start 'List PID as a process on a GPU or MIG device, using memory'
            cand end 'End the process PID: no GPU lists it any more'
        }
        &'gpushare;sim;help;process;start'= {
        }
        &'gpushare;sim;help;process;end'= {
        }
        &'gpushare;sim;help;help'= {
        }
        &'gpushare;completions'= {
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;man'= {
            cand --dir 'Write gpushare.1 and a page per command (gpushare-init.1, gpushare-mig-apply.1, …) into DIR instead, each with the exit codes'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, each change kept as it is made)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --lock-timeout 'Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once'
            cand --jobs 'How many GPUs a changing command changes at once (default: every GPU it changes; 1: one change after another, in plan order)'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;help'= {
            cand init 'Set up a bare node in one go: choose a layout, write gpushare.toml, apply it, write the cluster manifests, and check the result with the probe'
            cand plan 'Show what `apply` would change to bring the node to gpushare.toml (every mode)'
            cand apply 'Change the node to gpushare.toml: MIG, MPS, time-slicing and vGPU, in one plan'
            cand detect 'Show the GPUs of this node: models, memory, MIG, compute mode, processes and whose they are (pod and container, or host, from each process''s cgroup under --host-root)'
            cand status 'One screen of what the node shares now: per GPU its mode, its MIG instances drawn over its memory slices with their holders, its MPS daemon and claims'' shares, time-slicing replicas and health; then the layout in force and what `apply` would still change'
            cand doctor 'Check that this node is ready to share its GPUs (driver, devices, runtime, CDI, blockers)'
            cand mig 'MIG: profiles, declarative layouts (gpushare.toml or mig-parted v1), safe incremental apply'
            cand mps 'MPS: several processes at once on a GPU or MIG device, with per-client limits'
            cand vgpu 'vGPU on KVM hosts: list types, show devices, apply a layout (mdev and SR-IOV, through sysfs)'
            cand manifests 'Generate cluster wiring for this node: device plugin, gpushare extender, HAMi, DRA, CDI, node agent'
            cand agent 'Run as the node agent of a Kubernetes DaemonSet: apply the layout the node''s label names'
            cand controller 'MIG on demand for the cluster: reshape idle MIG capacity of the nodes labelled gpushare.io/mig.on-demand=true for pods that wait for `nvidia.com/mig-<profile>`, never touching an instance a pod holds, and give it back to each node''s own layout once no pod waits. One Deployment; replicas elect a leader with a Lease. It writes layouts in node annotations; each node''s agent applies them. Runs until SIGTERM'
            cand dra-plugin 'gpushare''s DRA kubelet plugin (driver gpu.gpushare.io): publishes the node''s GPUs and MIG devices as a ResourceSlice (exactly the node, each unhealthy device tainted), registers with the kubelet, and prepares each claim''s devices as a CDI spec from gpushare''s CDI generator (removed at unprepare; a restarted plugin finds what it prepared). Runs until SIGTERM'
            cand probe 'Measure memory, bandwidth and latency on every GPU, MIG device and MPS client, and check that each gives what it was promised'
            cand metrics 'The node''s metrics for Prometheus: GPUs and MIG devices (memory, processes, utilisation, the pod that holds each, the memory each pod''s containers use, health), MIG, MPS and time-slicing, the changes made, the probe''s last verdict'
            cand recover 'Reset the GPUs that a fatal fault left unhealthy: an Xid of `[health] fatal_xids` or a double-bit ECC error, as the health watch recorded it'
            cand unit 'Print, install or remove the boot unit that applies gpushare.toml at every boot'
            cand sim 'Simulated nodes: presets, the GPU models they can hold, a reboot'
            cand completions 'Print a shell completion script'
            cand man 'Print the man page (roff), or write one per command'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpushare;help;init'= {
        }
        &'gpushare;help;plan'= {
        }
        &'gpushare;help;apply'= {
        }
        &'gpushare;help;detect'= {
        }
        &'gpushare;help;status'= {
        }
        &'gpushare;help;doctor'= {
        }
        &'gpushare;help;mig'= {
            cand profiles 'Every GPU-instance profile of the MIG-capable GPUs: id, slices, memory, counts, placements'
            cand apply 'Change the node to the MIG layout of a file, with the fewest changes'
            cand assert 'Exit 0 when the node has the MIG layout of a file, 3 when it does not'
            cand export 'Print the node''s MIG layout as a mig-parted v1 config'
            cand clear 'Destroy every GPU and compute instance of the selected GPUs (MIG stays enabled)'
        }
        &'gpushare;help;mig;profiles'= {
        }
        &'gpushare;help;mig;apply'= {
        }
        &'gpushare;help;mig;assert'= {
        }
        &'gpushare;help;mig;export'= {
        }
        &'gpushare;help;mig;clear'= {
        }
        &'gpushare;help;mps'= {
            cand start 'Start MPS daemons: compute mode EXCLUSIVE_PROCESS, limits sent before any client connects'
            cand status 'Show the MPS daemons gpushare started: servers, clients, limits, compute modes'
            cand stop 'Stop MPS daemons: refuse while clients are connected, restore compute mode DEFAULT'
            cand unit 'Print, or install, a systemd unit that starts the daemons at boot with the same settings'
        }
        &'gpushare;help;mps;start'= {
        }
        &'gpushare;help;mps;status'= {
        }
        &'gpushare;help;mps;stop'= {
        }
        &'gpushare;help;mps;unit'= {
        }
        &'gpushare;help;vgpu'= {
            cand types 'List the vGPU types each GPU supports and how many more of each it can create now'
            cand status 'Show the vGPU devices that exist, their types, and which VMs hold them'
            cand apply 'Create and remove vGPU devices to match gpushare.toml or a vgpu-device-manager config'
            cand assert 'Exit 0 when the vGPU devices match the file, 3 when they differ'
            cand clear 'Remove every vGPU device of the selected GPUs'
        }
        &'gpushare;help;vgpu;types'= {
        }
        &'gpushare;help;vgpu;status'= {
        }
        &'gpushare;help;vgpu;apply'= {
        }
        &'gpushare;help;vgpu;assert'= {
        }
        &'gpushare;help;vgpu;clear'= {
        }
        &'gpushare;help;manifests'= {
        }
        &'gpushare;help;agent'= {
        }
        &'gpushare;help;controller'= {
        }
        &'gpushare;help;dra-plugin'= {
        }
        &'gpushare;help;probe'= {
        }
        &'gpushare;help;metrics'= {
        }
        &'gpushare;help;recover'= {
        }
        &'gpushare;help;unit'= {
        }
        &'gpushare;help;sim'= {
            cand presets 'List the built-in simulated nodes'
            cand models 'List the GPU models a node file may name'
            cand reboot 'Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and processes are gone'
            cand xid 'Raise an Xid error on a GPU of the node kept in --sim-state, as the driver reports one to the NVML clients that wait for events (gpushare, NVIDIA''s device plugin and DRA driver on the NVML stand-in)'
            cand ecc 'Raise an ECC error (single-bit, or double-bit with --double-bit) the same way'
            cand process 'Start or end a GPU process of the node kept in --sim-state: every NVML client lists it as the driver would (a real process of this host, e.g. a container''s, by its host PID)'
        }
        &'gpushare;help;sim;presets'= {
        }
        &'gpushare;help;sim;models'= {
        }
        &'gpushare;help;sim;reboot'= {
        }
        &'gpushare;help;sim;xid'= {
        }
        &'gpushare;help;sim;ecc'= {
        }
        &'gpushare;help;sim;process'= {
            cand start 'List PID as a process on a GPU or MIG device, using memory'
            cand end 'End the process PID: no GPU lists it any more'
        }
        &'gpushare;help;sim;process;start'= {
        }
        &'gpushare;help;sim;process;end'= {
        }
        &'gpushare;help;completions'= {
        }
        &'gpushare;help;man'= {
        }
        &'gpushare;help;help'= {
        }
    ]
    $completions[$command]
}
