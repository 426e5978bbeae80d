# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_gpushare_global_optspecs
    string join \n sim= sim-state= format= q/quiet color= nvml-lib= state-root= h/help V/version
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
complete -c gpushare -n "__fish_gpushare_needs_command" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, saved after each change)' -r -F
complete -c gpushare -n "__fish_gpushare_needs_command" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_needs_command" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_needs_command" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_needs_command" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_needs_command" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_needs_command" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "detect" -d 'Show the GPUs of this node: models, memory, MIG, compute mode, processes'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "sim" -d 'Simulated nodes: list presets and the GPU models they can hold'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "man" -d 'Print the man page (roff)'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "probe" -d 'Measure memory, bandwidth and latency on every GPU, MIG device and MPS client, and check that each gives what it was promised'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "probe-worker" -d 'Run one probe client (used by `gpushare probe`)'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "probe-ptx" -d 'Print the probe\'s embedded PTX (for checking it with ptxas)'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -l gpu -d 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, saved after each change)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand detect" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models help" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models help" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, saved after each change)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models help" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models help" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models help" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models help" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models help" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models help" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models help" -f -a "presets" -d 'List the built-in simulated nodes'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models help" -f -a "models" -d 'List the GPU models a node file may name'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, saved after each change)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from presets" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, saved after each change)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from models" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from help" -f -a "presets" -d 'List the built-in simulated nodes'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from help" -f -a "models" -d 'List the GPU models a node file may name'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, saved after each change)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand completions" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, saved after each change)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand man" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l target -d 'Only these targets: GPUs as for --gpu (`all`, `0,2`, `0-3`, UUIDs, bus ids; all their MIG devices and MPS clients) or MIG devices by `MIG-…` UUID' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -s c -l config -d 'What each target was promised: the gpushare.toml to check against (default: the applied state, i.e. MIG devices as they are and the settings of running MPS daemons)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l mps-pipe-dir -d 'Reach MPS clients through this pipe directory (CUDA_MPS_PIPE_DIRECTORY), for an MPS daemon gpushare did not start; it serves the devices gpushare.toml puts under MPS, or every target without -c' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l clients -d 'Run N clients on each target at once and report their sum and each client' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l buffer -d 'Size of each host-to-device and device-to-host copy (default 256M, 32M with --quick; device-to-device copies are 4 times larger)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l timeout -d 'Seconds a worker may take for its setup, and again for its measurements, before it is reported as hung and killed' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, saved after each change)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l compare -d 'Run each target alone, then with --clients N at once, and print the slowdown'
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -l quick -d 'A few seconds per target: smaller copies, fewer repeats'
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand probe" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand probe-worker" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand probe-worker" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, saved after each change)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand probe-worker" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand probe-worker" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand probe-worker" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand probe-worker" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand probe-worker" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand probe-worker" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand probe-worker" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand probe-ptx" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand probe-ptx" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, saved after each change)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand probe-ptx" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand probe-ptx" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand probe-ptx" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand probe-ptx" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand probe-ptx" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand probe-ptx" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand probe-ptx" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from detect sim completions man probe probe-worker probe-ptx help" -f -a "detect" -d 'Show the GPUs of this node: models, memory, MIG, compute mode, processes'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from detect sim completions man probe probe-worker probe-ptx help" -f -a "sim" -d 'Simulated nodes: list presets and the GPU models they can hold'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from detect sim completions man probe probe-worker probe-ptx help" -f -a "completions" -d 'Print a shell completion script'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from detect sim completions man probe probe-worker probe-ptx help" -f -a "man" -d 'Print the man page (roff)'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from detect sim completions man probe probe-worker probe-ptx help" -f -a "probe" -d 'Measure memory, bandwidth and latency on every GPU, MIG device and MPS client, and check that each gives what it was promised'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from detect sim completions man probe probe-worker probe-ptx help" -f -a "probe-worker" -d 'Run one probe client (used by `gpushare probe`)'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from detect sim completions man probe probe-worker probe-ptx help" -f -a "probe-ptx" -d 'Print the probe\'s embedded PTX (for checking it with ptxas)'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from detect sim completions man probe probe-worker probe-ptx help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from sim" -f -a "presets" -d 'List the built-in simulated nodes'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from sim" -f -a "models" -d 'List the GPU models a node file may name'
