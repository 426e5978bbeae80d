
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
            [CompletionResult]::new('vgpu', 'vgpu', [CompletionResultType]::ParameterValue, 'vGPU on KVM hosts: list types, show devices, apply a layout (mdev and SR-IOV, through sysfs)')
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
        'gpushare;vgpu' {
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
        'gpushare;vgpu;status' {
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids')
            [CompletionResult]::new('--sysfs-root', '--sysfs-root', [CompletionResultType]::ParameterName, 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)')
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
        'gpushare;vgpu;apply' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'gpushare.toml (its `mode = "vgpu"` entries) or a vgpu-device-manager config (YAML); `-` reads stdin [default: /etc/gpushare/gpushare.toml]')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'gpushare.toml (its `mode = "vgpu"` entries) or a vgpu-device-manager config (YAML); `-` reads stdin [default: /etc/gpushare/gpushare.toml]')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Which config of a vgpu-device-manager file to apply (a label under `vgpu-configs`)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Which config of a vgpu-device-manager file to apply (a label under `vgpu-configs`)')
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'Only these GPUs of the file''s layout: `all`, indexes, ranges, UUIDs or PCI bus ids')
            [CompletionResult]::new('--sysfs-root', '--sysfs-root', [CompletionResultType]::ParameterName, 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
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
        'gpushare;vgpu;clear' {
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'GPUs to clear: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids')
            [CompletionResult]::new('--sysfs-root', '--sysfs-root', [CompletionResultType]::ParameterName, 'Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)')
            [CompletionResult]::new('--sim', '--sim', [CompletionResultType]::ParameterName, 'Use a simulated node: a preset name or a node file (TOML)')
            [CompletionResult]::new('--sim-state', '--sim-state', [CompletionResultType]::ParameterName, 'Keep the simulated node''s changes in FILE (loaded when it exists, saved after each change)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format of the data on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour (NO_COLOR is honoured with `auto`)')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual')
            [CompletionResult]::new('--state-root', '--state-root', [CompletionResultType]::ParameterName, 'Keep every state path (lock, journal, run dirs, written files) under DIR')
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
            [CompletionResult]::new('sim', 'sim', [CompletionResultType]::ParameterValue, 'Simulated nodes: list presets and the GPU models they can hold')
            [CompletionResult]::new('vgpu', 'vgpu', [CompletionResultType]::ParameterValue, 'vGPU on KVM hosts: list types, show devices, apply a layout (mdev and SR-IOV, through sysfs)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff)')
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
