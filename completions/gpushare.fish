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
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "mig" -d 'MIG: profiles, declarative layouts (gpushare.toml or mig-parted v1), safe incremental apply'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "sim" -d 'Simulated nodes: list presets and the GPU models they can hold'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c gpushare -n "__fish_gpushare_needs_command" -f -a "man" -d 'Print the man page (roff)'
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
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, saved after each change)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and not __fish_seen_subcommand_from profiles apply assert export clear help" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
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
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, saved after each change)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from profiles" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -s f -l file -l config-file -d 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -s c -l selected-config -l label -d 'The label of the mig-parted config to use (not needed when the file has one label)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, saved after each change)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l dry-run -d 'Print the plan and change nothing'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -l force -d 'Change the MIG mode of GPUs that processes or services keep busy, leaving the change pending until the next reboot (exit 5). Instances in use are never destroyed'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from apply" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -s f -l file -l config-file -d 'The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -s c -l selected-config -l label -d 'The label of the mig-parted config to use (not needed when the file has one label)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, saved after each change)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from assert" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -s l -l config-label -d 'The label of the exported config' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, saved after each change)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from export" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -l gpu -d 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, saved after each change)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand mig; and __fish_seen_subcommand_from clear" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
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
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot help" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot help" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, saved after each change)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot help" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot help" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot help" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot help" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot help" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot help" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot help" -f -a "presets" -d 'List the built-in simulated nodes'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot help" -f -a "models" -d 'List the GPU models a node file may name'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot help" -f -a "reboot" -d 'Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and processes are gone'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and not __fish_seen_subcommand_from presets models reboot help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
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
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -l sim -d 'Use a simulated node: a preset name or a node file (TOML)' -r
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -l sim-state -d 'Keep the simulated node\'s changes in FILE (loaded when it exists, saved after each change)' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -l format -d 'Output format of the data on stdout' -r -f -a "table\t'Tables for people'
json\t'JSON for scripts (the field names are a stable contract)'
yaml\t'The same data as YAML'"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -l color -d 'When to use colour (NO_COLOR is honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal and NO_COLOR is not set'
always\t''
never\t''"
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -l nvml-lib -d 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -l state-root -d 'Keep every state path (lock, journal, run dirs, written files) under DIR' -r -F
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -s q -l quiet -d 'Print only data and errors (no progress or notes on stderr)'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from reboot" -s V -l version -d 'Print version'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from help" -f -a "presets" -d 'List the built-in simulated nodes'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from help" -f -a "models" -d 'List the GPU models a node file may name'
complete -c gpushare -n "__fish_gpushare_using_subcommand sim; and __fish_seen_subcommand_from help" -f -a "reboot" -d 'Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and processes are gone'
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
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from detect mig sim completions man help" -f -a "detect" -d 'Show the GPUs of this node: models, memory, MIG, compute mode, processes'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from detect mig sim completions man help" -f -a "mig" -d 'MIG: profiles, declarative layouts (gpushare.toml or mig-parted v1), safe incremental apply'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from detect mig sim completions man help" -f -a "sim" -d 'Simulated nodes: list presets and the GPU models they can hold'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from detect mig sim completions man help" -f -a "completions" -d 'Print a shell completion script'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from detect mig sim completions man help" -f -a "man" -d 'Print the man page (roff)'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and not __fish_seen_subcommand_from detect mig sim completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from mig" -f -a "profiles" -d 'Every GPU-instance profile of the MIG-capable GPUs: id, slices, memory, counts, placements'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from mig" -f -a "apply" -d 'Change the node to the MIG layout of a file, with the fewest changes'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from mig" -f -a "assert" -d 'Exit 0 when the node has the MIG layout of a file, 3 when it does not'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from mig" -f -a "export" -d 'Print the node\'s MIG layout as a mig-parted v1 config'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from mig" -f -a "clear" -d 'Destroy every GPU and compute instance of the selected GPUs (MIG stays enabled)'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from sim" -f -a "presets" -d 'List the built-in simulated nodes'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from sim" -f -a "models" -d 'List the GPU models a node file may name'
complete -c gpushare -n "__fish_gpushare_using_subcommand help; and __fish_seen_subcommand_from sim" -f -a "reboot" -d 'Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and processes are gone'
