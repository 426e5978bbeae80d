_gpushare() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="gpushare"
                ;;
            gpushare,completions)
                cmd="gpushare__subcmd__completions"
                ;;
            gpushare,detect)
                cmd="gpushare__subcmd__detect"
                ;;
            gpushare,help)
                cmd="gpushare__subcmd__help"
                ;;
            gpushare,man)
                cmd="gpushare__subcmd__man"
                ;;
            gpushare,probe)
                cmd="gpushare__subcmd__probe"
                ;;
            gpushare,probe-ptx)
                cmd="gpushare__subcmd__probe__subcmd__ptx"
                ;;
            gpushare,probe-worker)
                cmd="gpushare__subcmd__probe__subcmd__worker"
                ;;
            gpushare,sim)
                cmd="gpushare__subcmd__sim"
                ;;
            gpushare__subcmd__help,completions)
                cmd="gpushare__subcmd__help__subcmd__completions"
                ;;
            gpushare__subcmd__help,detect)
                cmd="gpushare__subcmd__help__subcmd__detect"
                ;;
            gpushare__subcmd__help,help)
                cmd="gpushare__subcmd__help__subcmd__help"
                ;;
            gpushare__subcmd__help,man)
                cmd="gpushare__subcmd__help__subcmd__man"
                ;;
            gpushare__subcmd__help,probe)
                cmd="gpushare__subcmd__help__subcmd__probe"
                ;;
            gpushare__subcmd__help,probe-ptx)
                cmd="gpushare__subcmd__help__subcmd__probe__subcmd__ptx"
                ;;
            gpushare__subcmd__help,probe-worker)
                cmd="gpushare__subcmd__help__subcmd__probe__subcmd__worker"
                ;;
            gpushare__subcmd__help,sim)
                cmd="gpushare__subcmd__help__subcmd__sim"
                ;;
            gpushare__subcmd__help__subcmd__sim,models)
                cmd="gpushare__subcmd__help__subcmd__sim__subcmd__models"
                ;;
            gpushare__subcmd__help__subcmd__sim,presets)
                cmd="gpushare__subcmd__help__subcmd__sim__subcmd__presets"
                ;;
            gpushare__subcmd__sim,help)
                cmd="gpushare__subcmd__sim__subcmd__help"
                ;;
            gpushare__subcmd__sim,models)
                cmd="gpushare__subcmd__sim__subcmd__models"
                ;;
            gpushare__subcmd__sim,presets)
                cmd="gpushare__subcmd__sim__subcmd__presets"
                ;;
            gpushare__subcmd__sim__subcmd__help,help)
                cmd="gpushare__subcmd__sim__subcmd__help__subcmd__help"
                ;;
            gpushare__subcmd__sim__subcmd__help,models)
                cmd="gpushare__subcmd__sim__subcmd__help__subcmd__models"
                ;;
            gpushare__subcmd__sim__subcmd__help,presets)
                cmd="gpushare__subcmd__sim__subcmd__help__subcmd__presets"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        gpushare)
            opts="-q -h -V --sim --sim-state --format --quiet --color --nvml-lib --state-root --help --version detect sim completions man probe probe-worker probe-ptx help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --sim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sim-state)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json yaml" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --nvml-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --state-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__completions)
            opts="-q -h -V --sim --sim-state --format --quiet --color --nvml-lib --state-root --help --version bash elvish fish powershell zsh"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --sim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sim-state)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json yaml" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --nvml-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --state-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__detect)
            opts="-q -h -V --gpu --sim --sim-state --format --quiet --color --nvml-lib --state-root --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --gpu)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sim-state)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json yaml" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --nvml-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --state-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__help)
            opts="detect sim completions man probe probe-worker probe-ptx help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__help__subcmd__detect)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__help__subcmd__man)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__help__subcmd__probe)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__help__subcmd__probe__subcmd__ptx)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__help__subcmd__probe__subcmd__worker)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__help__subcmd__sim)
            opts="presets models"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__help__subcmd__sim__subcmd__models)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__help__subcmd__sim__subcmd__presets)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__man)
            opts="-q -h -V --sim --sim-state --format --quiet --color --nvml-lib --state-root --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --sim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sim-state)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json yaml" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --nvml-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --state-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__probe)
            opts="-c -q -h -V --target --config --mps-pipe-dir --clients --compare --quick --buffer --timeout --sim --sim-state --format --quiet --color --nvml-lib --state-root --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --target)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mps-pipe-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --clients)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --buffer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sim-state)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json yaml" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --nvml-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --state-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__probe__subcmd__ptx)
            opts="-q -h -V --sim --sim-state --format --quiet --color --nvml-lib --state-root --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --sim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sim-state)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json yaml" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --nvml-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --state-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__probe__subcmd__worker)
            opts="-q -h -V --sim --sim-state --format --quiet --color --nvml-lib --state-root --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --sim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sim-state)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json yaml" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --nvml-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --state-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__sim)
            opts="-q -h -V --sim --sim-state --format --quiet --color --nvml-lib --state-root --help --version presets models help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --sim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sim-state)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json yaml" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --nvml-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --state-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__sim__subcmd__help)
            opts="presets models help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__sim__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__sim__subcmd__help__subcmd__models)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__sim__subcmd__help__subcmd__presets)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__sim__subcmd__models)
            opts="-q -h -V --sim --sim-state --format --quiet --color --nvml-lib --state-root --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --sim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sim-state)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json yaml" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --nvml-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --state-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpushare__subcmd__sim__subcmd__presets)
            opts="-q -h -V --sim --sim-state --format --quiet --color --nvml-lib --state-root --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --sim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sim-state)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json yaml" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --nvml-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --state-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _gpushare -o nosort -o bashdefault -o default gpushare
else
    complete -F _gpushare -o bashdefault -o default gpushare
fi
