
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
            [CompletionResult]::new('sim', 'sim', [CompletionResultType]::ParameterValue, 'Simulated nodes: list presets and the GPU models they can hold')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff)')
            [CompletionResult]::new('probe', 'probe', [CompletionResultType]::ParameterValue, 'Measure memory, bandwidth and latency on every GPU, MIG device and MPS client, and check that each gives what it was promised')
            [CompletionResult]::new('probe-worker', 'probe-worker', [CompletionResultType]::ParameterValue, 'Run one probe client (used by `gpushare probe`)')
            [CompletionResult]::new('probe-ptx', 'probe-ptx', [CompletionResultType]::ParameterValue, 'Print the probe''s embedded PTX (for checking it with ptxas)')
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
        'gpushare;sim;help' {
            [CompletionResult]::new('presets', 'presets', [CompletionResultType]::ParameterValue, 'List the built-in simulated nodes')
            [CompletionResult]::new('models', 'models', [CompletionResultType]::ParameterValue, 'List the GPU models a node file may name')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpushare;sim;help;presets' {
            break
        }
        'gpushare;sim;help;models' {
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
        'gpushare;probe' {
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'Only these targets: GPUs as for --gpu (`all`, `0,2`, `0-3`, UUIDs, bus ids; all their MIG devices and MPS clients) or MIG devices by `MIG-…` UUID')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'What each target was promised: the gpushare.toml to check against (default: the applied state, i.e. MIG devices as they are and the settings of running MPS daemons)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'What each target was promised: the gpushare.toml to check against (default: the applied state, i.e. MIG devices as they are and the settings of running MPS daemons)')
            [CompletionResult]::new('--mps-pipe-dir', '--mps-pipe-dir', [CompletionResultType]::ParameterName, 'Reach MPS clients through this pipe directory (CUDA_MPS_PIPE_DIRECTORY), for an MPS daemon gpushare did not start; it serves the devices gpushare.toml puts under MPS, or every target without -c')
            [CompletionResult]::new('--clients', '--clients', [CompletionResultType]::ParameterName, 'Run N clients on each target at once and report their sum and each client')
            [CompletionResult]::new('--buffer', '--buffer', [CompletionResultType]::ParameterName, 'Size of each host-to-device and device-to-host copy (default 256M, 32M with --quick; device-to-device copies are 4 times larger)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds a worker may take for its setup, and again for its measurements, before it is reported as hung and killed')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
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
        'gpushare;probe-worker' {
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
        'gpushare;probe-ptx' {
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
            [CompletionResult]::new('sim', 'sim', [CompletionResultType]::ParameterValue, 'Simulated nodes: list presets and the GPU models they can hold')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff)')
            [CompletionResult]::new('probe', 'probe', [CompletionResultType]::ParameterValue, 'Measure memory, bandwidth and latency on every GPU, MIG device and MPS client, and check that each gives what it was promised')
            [CompletionResult]::new('probe-worker', 'probe-worker', [CompletionResultType]::ParameterValue, 'Run one probe client (used by `gpushare probe`)')
            [CompletionResult]::new('probe-ptx', 'probe-ptx', [CompletionResultType]::ParameterValue, 'Print the probe''s embedded PTX (for checking it with ptxas)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpushare;help;detect' {
            break
        }
        'gpushare;help;sim' {
            [CompletionResult]::new('presets', 'presets', [CompletionResultType]::ParameterValue, 'List the built-in simulated nodes')
            [CompletionResult]::new('models', 'models', [CompletionResultType]::ParameterValue, 'List the GPU models a node file may name')
            break
        }
        'gpushare;help;sim;presets' {
            break
        }
        'gpushare;help;sim;models' {
            break
        }
        'gpushare;help;completions' {
            break
        }
        'gpushare;help;man' {
            break
        }
        'gpushare;help;probe' {
            break
        }
        'gpushare;help;probe-worker' {
            break
        }
        'gpushare;help;probe-ptx' {
            break
        }
        'gpushare;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
