
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
            cand mig 'MIG: profiles, declarative layouts (gpushare.toml or mig-parted v1), safe incremental apply'
            cand sim 'Simulated nodes: list presets and the GPU models they can hold'
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
        &'gpushare;mig'= {
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
        &'gpushare;mig;apply'= {
            cand -f 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)'
            cand --file 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)'
            cand --config-file 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)'
            cand -c 'The label of the mig-parted config to use (not needed when the file has one label)'
            cand --selected-config 'The label of the mig-parted config to use (not needed when the file has one label)'
            cand --label 'The label of the mig-parted config to use (not needed when the file has one label)'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --dry-run 'Print the plan and change nothing'
            cand --force 'Change the MIG mode of GPUs that processes or services keep busy, leaving the change pending until the next reboot (exit 5). Instances in use are never destroyed'
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
        &'gpushare;mig;export'= {
            cand -l 'The label of the exported config'
            cand --config-label 'The label of the exported config'
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
        &'gpushare;mig;clear'= {
            cand --gpu 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
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
            cand reboot 'Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and processes are gone'
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
        &'gpushare;sim;reboot'= {
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
            cand reboot 'Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and processes are gone'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpushare;sim;help;presets'= {
        }
        &'gpushare;sim;help;models'= {
        }
        &'gpushare;sim;help;reboot'= {
        }
        &'gpushare;sim;help;help'= {
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
            cand mig 'MIG: profiles, declarative layouts (gpushare.toml or mig-parted v1), safe incremental apply'
            cand sim 'Simulated nodes: list presets and the GPU models they can hold'
            cand completions 'Print a shell completion script'
            cand man 'Print the man page (roff)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpushare;help;detect'= {
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
        &'gpushare;help;sim'= {
            cand presets 'List the built-in simulated nodes'
            cand models 'List the GPU models a node file may name'
            cand reboot 'Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and processes are gone'
        }
        &'gpushare;help;sim;presets'= {
        }
        &'gpushare;help;sim;models'= {
        }
        &'gpushare;help;sim;reboot'= {
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
