
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
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand detect 'Show the GPUs of this node: models, memory, MIG, compute mode, processes'
            cand sim 'Simulated nodes: list presets and the GPU models they can hold'
            cand vgpu 'vGPU on KVM hosts: list types, show devices, apply a layout (mdev and SR-IOV, through sysfs)'
            cand completions 'Print a shell completion script'
            cand man 'Print the man page (roff)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpushare;detect'= {
            cand --gpu 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;sim'= {
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand presets 'List the built-in simulated nodes'
            cand models 'List the GPU models a node file may name'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpushare;sim;presets'= {
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;sim;models'= {
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;sim;help'= {
            cand presets 'List the built-in simulated nodes'
            cand models 'List the GPU models a node file may name'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpushare;sim;help;presets'= {
        }
        &'gpushare;sim;help;models'= {
        }
        &'gpushare;sim;help;help'= {
        }
        &'gpushare;vgpu'= {
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
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
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
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
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
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
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
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
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
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
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
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
        &'gpushare;completions'= {
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;man'= {
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;help'= {
            cand detect 'Show the GPUs of this node: models, memory, MIG, compute mode, processes'
            cand sim 'Simulated nodes: list presets and the GPU models they can hold'
            cand vgpu 'vGPU on KVM hosts: list types, show devices, apply a layout (mdev and SR-IOV, through sysfs)'
            cand completions 'Print a shell completion script'
            cand man 'Print the man page (roff)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpushare;help;detect'= {
        }
        &'gpushare;help;sim'= {
            cand presets 'List the built-in simulated nodes'
            cand models 'List the GPU models a node file may name'
        }
        &'gpushare;help;sim;presets'= {
        }
        &'gpushare;help;sim;models'= {
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
        &'gpushare;help;completions'= {
        }
        &'gpushare;help;man'= {
        }
        &'gpushare;help;help'= {
        }
    ]
    $completions[$command]
}
