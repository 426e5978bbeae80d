
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
            cand completions 'Print a shell completion script'
            cand man 'Print the man page (roff)'
            cand probe 'Measure memory, bandwidth and latency on every GPU, MIG device and MPS client, and check that each gives what it was promised'
            cand probe-worker 'Run one probe client (used by `gpushare probe`)'
            cand probe-ptx 'Print the probe''s embedded PTX (for checking it with ptxas)'
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
        &'gpushare;probe'= {
            cand --target 'Only these targets: GPUs as for --gpu (`all`, `0,2`, `0-3`, UUIDs, bus ids; all their MIG devices and MPS clients) or MIG devices by `MIG-…` UUID'
            cand -c 'What each target was promised: the gpushare.toml to check against (default: the applied state, i.e. MIG devices as they are and the settings of running MPS daemons)'
            cand --config 'What each target was promised: the gpushare.toml to check against (default: the applied state, i.e. MIG devices as they are and the settings of running MPS daemons)'
            cand --mps-pipe-dir 'Reach MPS clients through this pipe directory (CUDA_MPS_PIPE_DIRECTORY), for an MPS daemon gpushare did not start; it serves the devices gpushare.toml puts under MPS, or every target without -c'
            cand --clients 'Run N clients on each target at once and report their sum and each client'
            cand --buffer 'Size of each host-to-device and device-to-host copy (default 256M, 32M with --quick; device-to-device copies are 4 times larger)'
            cand --timeout 'Seconds a worker may take for its setup, and again for its measurements, before it is reported as hung and killed'
            cand --sim 'Use a simulated node: a preset name or a node file (TOML)'
            cand --sim-state 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)'
            cand --format 'Output format of the data on stdout'
            cand --color 'When to use colour (NO_COLOR is honoured with `auto`)'
            cand --nvml-lib 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual'
            cand --state-root 'Keep every state path (lock, journal, run dirs, written files) under DIR'
            cand --compare 'Run each target alone, then with --clients N at once, and print the slowdown'
            cand --quick 'A few seconds per target: smaller copies, fewer repeats'
            cand -q 'Print only data and errors (no progress or notes on stderr)'
            cand --quiet 'Print only data and errors (no progress or notes on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpushare;probe-worker'= {
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
        &'gpushare;probe-ptx'= {
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
            cand completions 'Print a shell completion script'
            cand man 'Print the man page (roff)'
            cand probe 'Measure memory, bandwidth and latency on every GPU, MIG device and MPS client, and check that each gives what it was promised'
            cand probe-worker 'Run one probe client (used by `gpushare probe`)'
            cand probe-ptx 'Print the probe''s embedded PTX (for checking it with ptxas)'
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
        &'gpushare;help;completions'= {
        }
        &'gpushare;help;man'= {
        }
        &'gpushare;help;probe'= {
        }
        &'gpushare;help;probe-worker'= {
        }
        &'gpushare;help;probe-ptx'= {
        }
        &'gpushare;help;help'= {
        }
    ]
    $completions[$command]
}
