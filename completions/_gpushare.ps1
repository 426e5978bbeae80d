
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
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('detect', 'detect', [CompletionResultType]::ParameterValue, 'Show the GPUs of this node: models, memory, MIG, compute mode, processes')
            [CompletionResult]::new('mig', 'mig', [CompletionResultType]::ParameterValue, 'MIG: profiles, declarative layouts (gpushare.toml or mig-parted v1), safe incremental apply')
            [CompletionResult]::new('sim', 'sim', [CompletionResultType]::ParameterValue, 'Simulated nodes: list presets and the GPU models they can hold')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpushare;detect' {
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
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
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
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
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
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
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the plan and change nothing')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Change the MIG mode of GPUs that processes or services keep busy, leaving the change pending until the next reboot (exit 5). Instances in use are never destroyed')
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
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
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
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
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
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
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
        'gpushare;sim' {
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('presets', 'presets', [CompletionResultType]::ParameterValue, 'List the built-in simulated nodes')
            [CompletionResult]::new('models', 'models', [CompletionResultType]::ParameterValue, 'List the GPU models a node file may name')
            [CompletionResult]::new('reboot', 'reboot', [CompletionResultType]::ParameterValue, 'Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and processes are gone')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpushare;sim;presets' {
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
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
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
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
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;sim;help' {
            [CompletionResult]::new('presets', 'presets', [CompletionResultType]::ParameterValue, 'List the built-in simulated nodes')
            [CompletionResult]::new('models', 'models', [CompletionResultType]::ParameterValue, 'List the GPU models a node file may name')
            [CompletionResult]::new('reboot', 'reboot', [CompletionResultType]::ParameterValue, 'Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and processes are gone')
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
        'gpushare;sim;help;help' {
            break
        }
        'gpushare;completions' {
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;man' {
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only data and errors (no progress or notes on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpushare;help' {
            [CompletionResult]::new('detect', 'detect', [CompletionResultType]::ParameterValue, 'Show the GPUs of this node: models, memory, MIG, compute mode, processes')
            [CompletionResult]::new('mig', 'mig', [CompletionResultType]::ParameterValue, 'MIG: profiles, declarative layouts (gpushare.toml or mig-parted v1), safe incremental apply')
            [CompletionResult]::new('sim', 'sim', [CompletionResultType]::ParameterValue, 'Simulated nodes: list presets and the GPU models they can hold')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpushare;help;detect' {
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
        'gpushare;help;sim' {
            [CompletionResult]::new('presets', 'presets', [CompletionResultType]::ParameterValue, 'List the built-in simulated nodes')
            [CompletionResult]::new('models', 'models', [CompletionResultType]::ParameterValue, 'List the GPU models a node file may name')
            [CompletionResult]::new('reboot', 'reboot', [CompletionResultType]::ParameterValue, 'Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and processes are gone')
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
