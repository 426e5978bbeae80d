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
            gpushare,agent)
                cmd="gpushare__subcmd__agent"
                ;;
            gpushare,apply)
                cmd="gpushare__subcmd__apply"
                ;;
            gpushare,completions)
                cmd="gpushare__subcmd__completions"
                ;;
            gpushare,controller)
                cmd="gpushare__subcmd__controller"
                ;;
            gpushare,detect)
                cmd="gpushare__subcmd__detect"
                ;;
            gpushare,doctor)
                cmd="gpushare__subcmd__doctor"
                ;;
            gpushare,dra-plugin)
                cmd="gpushare__subcmd__dra__subcmd__plugin"
                ;;
            gpushare,help)
                cmd="gpushare__subcmd__help"
                ;;
            gpushare,init)
                cmd="gpushare__subcmd__init"
                ;;
            gpushare,man)
                cmd="gpushare__subcmd__man"
                ;;
            gpushare,manifests)
                cmd="gpushare__subcmd__manifests"
                ;;
            gpushare,metrics)
                cmd="gpushare__subcmd__metrics"
                ;;
            gpushare,mig)
                cmd="gpushare__subcmd__mig"
                ;;
            gpushare,mps)
                cmd="gpushare__subcmd__mps"
                ;;
            gpushare,plan)
                cmd="gpushare__subcmd__plan"
                ;;
            gpushare,probe)
                cmd="gpushare__subcmd__probe"
                ;;
            gpushare,recover)
                cmd="gpushare__subcmd__recover"
                ;;
            gpushare,sim)
                cmd="gpushare__subcmd__sim"
                ;;
            gpushare,status)
                cmd="gpushare__subcmd__status"
                ;;
            gpushare,unit)
                cmd="gpushare__subcmd__unit"
                ;;
            gpushare,vgpu)
                cmd="gpushare__subcmd__vgpu"
                ;;
            gpushare__subcmd__help,agent)
                cmd="gpushare__subcmd__help__subcmd__agent"
                ;;
            gpushare__subcmd__help,apply)
                cmd="gpushare__subcmd__help__subcmd__apply"
                ;;
            gpushare__subcmd__help,completions)
                cmd="gpushare__subcmd__help__subcmd__completions"
                ;;
            gpushare__subcmd__help,controller)
                cmd="gpushare__subcmd__help__subcmd__controller"
                ;;
            gpushare__subcmd__help,detect)
                cmd="gpushare__subcmd__help__subcmd__detect"
                ;;
            gpushare__subcmd__help,doctor)
                cmd="gpushare__subcmd__help__subcmd__doctor"
                ;;
            gpushare__subcmd__help,dra-plugin)
                cmd="gpushare__subcmd__help__subcmd__dra__subcmd__plugin"
                ;;
            gpushare__subcmd__help,help)
                cmd="gpushare__subcmd__help__subcmd__help"
                ;;
            gpushare__subcmd__help,init)
                cmd="gpushare__subcmd__help__subcmd__init"
                ;;
            gpushare__subcmd__help,man)
                cmd="gpushare__subcmd__help__subcmd__man"
                ;;
            gpushare__subcmd__help,manifests)
                cmd="gpushare__subcmd__help__subcmd__manifests"
                ;;
            gpushare__subcmd__help,metrics)
                cmd="gpushare__subcmd__help__subcmd__metrics"
                ;;
            gpushare__subcmd__help,mig)
                cmd="gpushare__subcmd__help__subcmd__mig"
                ;;
            gpushare__subcmd__help,mps)
                cmd="gpushare__subcmd__help__subcmd__mps"
                ;;
            gpushare__subcmd__help,plan)
                cmd="gpushare__subcmd__help__subcmd__plan"
                ;;
            gpushare__subcmd__help,probe)
                cmd="gpushare__subcmd__help__subcmd__probe"
                ;;
            gpushare__subcmd__help,recover)
                cmd="gpushare__subcmd__help__subcmd__recover"
                ;;
            gpushare__subcmd__help,sim)
                cmd="gpushare__subcmd__help__subcmd__sim"
                ;;
            gpushare__subcmd__help,status)
                cmd="gpushare__subcmd__help__subcmd__status"
                ;;
            gpushare__subcmd__help,unit)
                cmd="gpushare__subcmd__help__subcmd__unit"
                ;;
            gpushare__subcmd__help,vgpu)
                cmd="gpushare__subcmd__help__subcmd__vgpu"
                ;;
            gpushare__subcmd__help__subcmd__mig,apply)
                cmd="gpushare__subcmd__help__subcmd__mig__subcmd__apply"
                ;;
            gpushare__subcmd__help__subcmd__mig,assert)
                cmd="gpushare__subcmd__help__subcmd__mig__subcmd__assert"
                ;;
            gpushare__subcmd__help__subcmd__mig,clear)
                cmd="gpushare__subcmd__help__subcmd__mig__subcmd__clear"
                ;;
            gpushare__subcmd__help__subcmd__mig,export)
                cmd="gpushare__subcmd__help__subcmd__mig__subcmd__export"
                ;;
            gpushare__subcmd__help__subcmd__mig,profiles)
                cmd="gpushare__subcmd__help__subcmd__mig__subcmd__profiles"
                ;;
            gpushare__subcmd__help__subcmd__mps,start)
                cmd="gpushare__subcmd__help__subcmd__mps__subcmd__start"
                ;;
            gpushare__subcmd__help__subcmd__mps,status)
                cmd="gpushare__subcmd__help__subcmd__mps__subcmd__status"
                ;;
            gpushare__subcmd__help__subcmd__mps,stop)
                cmd="gpushare__subcmd__help__subcmd__mps__subcmd__stop"
                ;;
            gpushare__subcmd__help__subcmd__mps,unit)
                cmd="gpushare__subcmd__help__subcmd__mps__subcmd__unit"
                ;;
            gpushare__subcmd__help__subcmd__sim,ecc)
                cmd="gpushare__subcmd__help__subcmd__sim__subcmd__ecc"
                ;;
            gpushare__subcmd__help__subcmd__sim,models)
                cmd="gpushare__subcmd__help__subcmd__sim__subcmd__models"
                ;;
            gpushare__subcmd__help__subcmd__sim,presets)
                cmd="gpushare__subcmd__help__subcmd__sim__subcmd__presets"
                ;;
            gpushare__subcmd__help__subcmd__sim,process)
                cmd="gpushare__subcmd__help__subcmd__sim__subcmd__process"
                ;;
            gpushare__subcmd__help__subcmd__sim,reboot)
                cmd="gpushare__subcmd__help__subcmd__sim__subcmd__reboot"
                ;;
            gpushare__subcmd__help__subcmd__sim,xid)
                cmd="gpushare__subcmd__help__subcmd__sim__subcmd__xid"
                ;;
            gpushare__subcmd__help__subcmd__sim__subcmd__process,end)
                cmd="gpushare__subcmd__help__subcmd__sim__subcmd__process__subcmd__end"
                ;;
            gpushare__subcmd__help__subcmd__sim__subcmd__process,start)
                cmd="gpushare__subcmd__help__subcmd__sim__subcmd__process__subcmd__start"
                ;;
            gpushare__subcmd__help__subcmd__vgpu,apply)
                cmd="gpushare__subcmd__help__subcmd__vgpu__subcmd__apply"
                ;;
            gpushare__subcmd__help__subcmd__vgpu,assert)
                cmd="gpushare__subcmd__help__subcmd__vgpu__subcmd__assert"
                ;;
            gpushare__subcmd__help__subcmd__vgpu,clear)
                cmd="gpushare__subcmd__help__subcmd__vgpu__subcmd__clear"
                ;;
            gpushare__subcmd__help__subcmd__vgpu,status)
                cmd="gpushare__subcmd__help__subcmd__vgpu__subcmd__status"
                ;;
            gpushare__subcmd__help__subcmd__vgpu,types)
                cmd="gpushare__subcmd__help__subcmd__vgpu__subcmd__types"
                ;;
            gpushare__subcmd__mig,apply)
                cmd="gpushare__subcmd__mig__subcmd__apply"
                ;;
            gpushare__subcmd__mig,assert)
                cmd="gpushare__subcmd__mig__subcmd__assert"
                ;;
            gpushare__subcmd__mig,clear)
                cmd="gpushare__subcmd__mig__subcmd__clear"
                ;;
            gpushare__subcmd__mig,export)
                cmd="gpushare__subcmd__mig__subcmd__export"
                ;;
            gpushare__subcmd__mig,help)
                cmd="gpushare__subcmd__mig__subcmd__help"
                ;;
            gpushare__subcmd__mig,profiles)
                cmd="gpushare__subcmd__mig__subcmd__profiles"
                ;;
            gpushare__subcmd__mig__subcmd__help,apply)
                cmd="gpushare__subcmd__mig__subcmd__help__subcmd__apply"
                ;;
            gpushare__subcmd__mig__subcmd__help,assert)
                cmd="gpushare__subcmd__mig__subcmd__help__subcmd__assert"
                ;;
            gpushare__subcmd__mig__subcmd__help,clear)
                cmd="gpushare__subcmd__mig__subcmd__help__subcmd__clear"
                ;;
            gpushare__subcmd__mig__subcmd__help,export)
                cmd="gpushare__subcmd__mig__subcmd__help__subcmd__export"
                ;;
            gpushare__subcmd__mig__subcmd__help,help)
                cmd="gpushare__subcmd__mig__subcmd__help__subcmd__help"
                ;;
            gpushare__subcmd__mig__subcmd__help,profiles)
                cmd="gpushare__subcmd__mig__subcmd__help__subcmd__profiles"
                ;;
            gpushare__subcmd__mps,help)
                cmd="gpushare__subcmd__mps__subcmd__help"
                ;;
            gpushare__subcmd__mps,start)
                cmd="gpushare__subcmd__mps__subcmd__start"
                ;;
            gpushare__subcmd__mps,status)
                cmd="gpushare__subcmd__mps__subcmd__status"
                ;;
            gpushare__subcmd__mps,stop)
                cmd="gpushare__subcmd__mps__subcmd__stop"
                ;;
            gpushare__subcmd__mps,unit)
                cmd="gpushare__subcmd__mps__subcmd__unit"
                ;;
            gpushare__subcmd__mps__subcmd__help,help)
                cmd="gpushare__subcmd__mps__subcmd__help__subcmd__help"
                ;;
            gpushare__subcmd__mps__subcmd__help,start)
                cmd="gpushare__subcmd__mps__subcmd__help__subcmd__start"
                ;;
            gpushare__subcmd__mps__subcmd__help,status)
                cmd="gpushare__subcmd__mps__subcmd__help__subcmd__status"
                ;;
            gpushare__subcmd__mps__subcmd__help,stop)
                cmd="gpushare__subcmd__mps__subcmd__help__subcmd__stop"
                ;;
            gpushare__subcmd__mps__subcmd__help,unit)
                cmd="gpushare__subcmd__mps__subcmd__help__subcmd__unit"
                ;;
            gpushare__subcmd__sim,ecc)
                cmd="gpushare__subcmd__sim__subcmd__ecc"
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
            gpushare__subcmd__sim,process)
                cmd="gpushare__subcmd__sim__subcmd__process"
                ;;
            gpushare__subcmd__sim,reboot)
                cmd="gpushare__subcmd__sim__subcmd__reboot"
                ;;
            gpushare__subcmd__sim,xid)
                cmd="gpushare__subcmd__sim__subcmd__xid"
                ;;
            gpushare__subcmd__sim__subcmd__help,ecc)
                cmd="gpushare__subcmd__sim__subcmd__help__subcmd__ecc"
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
            gpushare__subcmd__sim__subcmd__help,process)
                cmd="gpushare__subcmd__sim__subcmd__help__subcmd__process"
                ;;
            gpushare__subcmd__sim__subcmd__help,reboot)
                cmd="gpushare__subcmd__sim__subcmd__help__subcmd__reboot"
                ;;
            gpushare__subcmd__sim__subcmd__help,xid)
                cmd="gpushare__subcmd__sim__subcmd__help__subcmd__xid"
                ;;
            gpushare__subcmd__sim__subcmd__help__subcmd__process,end)
                cmd="gpushare__subcmd__sim__subcmd__help__subcmd__process__subcmd__end"
                ;;
            gpushare__subcmd__sim__subcmd__help__subcmd__process,start)
                cmd="gpushare__subcmd__sim__subcmd__help__subcmd__process__subcmd__start"
                ;;
            gpushare__subcmd__sim__subcmd__process,end)
                cmd="gpushare__subcmd__sim__subcmd__process__subcmd__end"
                ;;
            gpushare__subcmd__sim__subcmd__process,help)
                cmd="gpushare__subcmd__sim__subcmd__process__subcmd__help"
                ;;
            gpushare__subcmd__sim__subcmd__process,start)
                cmd="gpushare__subcmd__sim__subcmd__process__subcmd__start"
                ;;
            gpushare__subcmd__sim__subcmd__process__subcmd__help,end)
                cmd="gpushare__subcmd__sim__subcmd__process__subcmd__help__subcmd__end"
                ;;
            gpushare__subcmd__sim__subcmd__process__subcmd__help,help)
                cmd="gpushare__subcmd__sim__subcmd__process__subcmd__help__subcmd__help"
                ;;
            gpushare__subcmd__sim__subcmd__process__subcmd__help,start)
                cmd="gpushare__subcmd__sim__subcmd__process__subcmd__help__subcmd__start"
                ;;
            gpushare__subcmd__vgpu,apply)
                cmd="gpushare__subcmd__vgpu__subcmd__apply"
                ;;
            gpushare__subcmd__vgpu,assert)
                cmd="gpushare__subcmd__vgpu__subcmd__assert"
                ;;
            gpushare__subcmd__vgpu,clear)
                cmd="gpushare__subcmd__vgpu__subcmd__clear"
                ;;
            gpushare__subcmd__vgpu,help)
                cmd="gpushare__subcmd__vgpu__subcmd__help"
                ;;
            gpushare__subcmd__vgpu,status)
                cmd="gpushare__subcmd__vgpu__subcmd__status"
                ;;
            gpushare__subcmd__vgpu,types)
                cmd="gpushare__subcmd__vgpu__subcmd__types"
                ;;
            gpushare__subcmd__vgpu__subcmd__help,apply)
                cmd="gpushare__subcmd__vgpu__subcmd__help__subcmd__apply"
                ;;
            gpushare__subcmd__vgpu__subcmd__help,assert)
                cmd="gpushare__subcmd__vgpu__subcmd__help__subcmd__assert"
                ;;
            gpushare__subcmd__vgpu__subcmd__help,clear)
                cmd="gpushare__subcmd__vgpu__subcmd__help__subcmd__clear"
                ;;
            gpushare__subcmd__vgpu__subcmd__help,help)
                cmd="gpushare__subcmd__vgpu__subcmd__help__subcmd__help"
                ;;
            gpushare__subcmd__vgpu__subcmd__help,status)
                cmd="gpushare__subcmd__vgpu__subcmd__help__subcmd__status"
                ;;
            gpushare__subcmd__vgpu__subcmd__help,types)
                cmd="gpushare__subcmd__vgpu__subcmd__help__subcmd__types"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        gpushare)
            opts="-q -h -V --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help"
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__agent)
            opts="-q -h -V --node --configmap --kubeconfig --health-addr --pause-timeout --retry --host-root --kubelet-cgroup-root --publish-every --reset-unhealthy-gpus --sysfs-root --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --configmap)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --health-addr)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pause-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retry)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --host-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubelet-cgroup-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --publish-every)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sysfs-root)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__apply)
            opts="-c -y -k -q -h -V --config --sysfs-root --dry-run --force --yes --gpu-clients-file --hooks-file --hooks-timeout --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sysfs-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpu-clients-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hooks-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -k)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hooks-timeout)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
            opts="-q -h -V --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version bash elvish fish powershell zsh"
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__controller)
            opts="-q -h -V --kubeconfig --namespace --lease --id --lease-seconds --interval --max-reshaping --cooldown --give-back-after --health-addr --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lease)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lease-seconds)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-reshaping)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cooldown)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --give-back-after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --health-addr)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
            opts="-q -h -V --gpu --host-root --kubelet-cgroup-root --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --gpu)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --host-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubelet-cgroup-root)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__doctor)
            opts="-q -h -V --host-root --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --host-root)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__dra__subcmd__plugin)
            opts="-c -q -h -V --node-name --kubeconfig --registry-dir --plugin-dir --cdi-root --dev-root --driver-root --host-root --nvidia-cdi-hook-path --watch-health --evict-on-fatal --config --sysfs-root --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --node-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --registry-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --plugin-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cdi-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dev-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --driver-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --host-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvidia-cdi-hook-path)
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
                --sysfs-root)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
            opts="init plan apply detect status doctor mig mps vgpu manifests agent controller dra-plugin probe metrics recover unit sim completions man help"
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
        gpushare__subcmd__help__subcmd__agent)
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
        gpushare__subcmd__help__subcmd__apply)
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
        gpushare__subcmd__help__subcmd__controller)
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
        gpushare__subcmd__help__subcmd__doctor)
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
        gpushare__subcmd__help__subcmd__dra__subcmd__plugin)
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
        gpushare__subcmd__help__subcmd__init)
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
        gpushare__subcmd__help__subcmd__manifests)
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
        gpushare__subcmd__help__subcmd__metrics)
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
        gpushare__subcmd__help__subcmd__mig)
            opts="profiles apply assert export clear"
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
        gpushare__subcmd__help__subcmd__mig__subcmd__apply)
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
        gpushare__subcmd__help__subcmd__mig__subcmd__assert)
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
        gpushare__subcmd__help__subcmd__mig__subcmd__clear)
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
        gpushare__subcmd__help__subcmd__mig__subcmd__export)
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
        gpushare__subcmd__help__subcmd__mig__subcmd__profiles)
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
        gpushare__subcmd__help__subcmd__mps)
            opts="start status stop unit"
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
        gpushare__subcmd__help__subcmd__mps__subcmd__start)
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
        gpushare__subcmd__help__subcmd__mps__subcmd__status)
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
        gpushare__subcmd__help__subcmd__mps__subcmd__stop)
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
        gpushare__subcmd__help__subcmd__mps__subcmd__unit)
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
        gpushare__subcmd__help__subcmd__plan)
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
        gpushare__subcmd__help__subcmd__recover)
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
            opts="presets models reboot xid ecc process"
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
        gpushare__subcmd__help__subcmd__sim__subcmd__ecc)
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
        gpushare__subcmd__help__subcmd__sim__subcmd__process)
            opts="start end"
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
        gpushare__subcmd__help__subcmd__sim__subcmd__process__subcmd__end)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
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
        gpushare__subcmd__help__subcmd__sim__subcmd__process__subcmd__start)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
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
        gpushare__subcmd__help__subcmd__sim__subcmd__reboot)
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
        gpushare__subcmd__help__subcmd__sim__subcmd__xid)
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
        gpushare__subcmd__help__subcmd__status)
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
        gpushare__subcmd__help__subcmd__unit)
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
        gpushare__subcmd__help__subcmd__vgpu)
            opts="types status apply assert clear"
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
        gpushare__subcmd__help__subcmd__vgpu__subcmd__apply)
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
        gpushare__subcmd__help__subcmd__vgpu__subcmd__assert)
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
        gpushare__subcmd__help__subcmd__vgpu__subcmd__clear)
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
        gpushare__subcmd__help__subcmd__vgpu__subcmd__status)
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
        gpushare__subcmd__help__subcmd__vgpu__subcmd__types)
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
        gpushare__subcmd__init)
            opts="-c -y -q -h -V --config --mode --profile --clients --replicas --slices --min-memory --config-out --manifests-out --force --yes --dry-run --no-probe --sysfs-root --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mode)
                    COMPREPLY=($(compgen -W "mig mps time-slicing auto" -- "${cur}"))
                    return 0
                    ;;
                --profile)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --clients)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --replicas)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --slices)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-memory)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config-out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --manifests-out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sysfs-root)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__man)
            opts="-q -h -V --dir --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dir)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__manifests)
            opts="-c -q -h -V --target --config --out --k8s-version --namespace --image --name --node-name --helm-values --mig-strategy --examples --install --dev-root --driver-root --host-root --nvidia-cdi-hook-path --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --target)
                    COMPREPLY=($(compgen -W "nvidia-device-plugin gpushare-extender hami dra dra-plugin cdi agent controller prometheus-rules grafana-dashboard" -- "${cur}"))
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
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --k8s-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --image)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --node-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mig-strategy)
                    COMPREPLY=($(compgen -W "auto mixed" -- "${cur}"))
                    return 0
                    ;;
                --dev-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --driver-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --host-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvidia-cdi-hook-path)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__metrics)
            opts="-c -q -h -V --listen --config --host-root --kubelet-cgroup-root --openmetrics --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --listen)
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
                --host-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubelet-cgroup-root)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__mig)
            opts="-q -h -V --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version profiles apply assert export clear help"
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__mig__subcmd__apply)
            opts="-f -c -m -s -k -q -h -V --config-file --file --label --selected-config --dry-run --force --mode-only --skip-reset --gpu-clients-file --hooks-file --hooks-timeout --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --selected-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpu-clients-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hooks-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -k)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hooks-timeout)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__mig__subcmd__assert)
            opts="-f -c -q -h -V --config-file --file --label --selected-config --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --config-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --selected-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__mig__subcmd__clear)
            opts="-q -h -V --gpu --dry-run --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__mig__subcmd__export)
            opts="-l -q -h -V --config-label --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config-label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -l)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__mig__subcmd__help)
            opts="profiles apply assert export clear help"
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
        gpushare__subcmd__mig__subcmd__help__subcmd__apply)
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
        gpushare__subcmd__mig__subcmd__help__subcmd__assert)
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
        gpushare__subcmd__mig__subcmd__help__subcmd__clear)
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
        gpushare__subcmd__mig__subcmd__help__subcmd__export)
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
        gpushare__subcmd__mig__subcmd__help__subcmd__help)
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
        gpushare__subcmd__mig__subcmd__help__subcmd__profiles)
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
        gpushare__subcmd__mig__subcmd__profiles)
            opts="-q -h -V --gpu --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__mps)
            opts="-q -h -V --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version start status stop unit help"
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__mps__subcmd__help)
            opts="start status stop unit help"
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
        gpushare__subcmd__mps__subcmd__help__subcmd__help)
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
        gpushare__subcmd__mps__subcmd__help__subcmd__start)
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
        gpushare__subcmd__mps__subcmd__help__subcmd__status)
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
        gpushare__subcmd__mps__subcmd__help__subcmd__stop)
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
        gpushare__subcmd__mps__subcmd__help__subcmd__unit)
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
        gpushare__subcmd__mps__subcmd__start)
            opts="-c -q -h -V --gpu --clients --thread-percentage --memory-limit --pipe-dir --log-dir --multiuser --config --timeout --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --gpu)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --clients)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --thread-percentage)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --memory-limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pipe-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-dir)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__mps__subcmd__status)
            opts="-q -h -V --timeout --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__mps__subcmd__stop)
            opts="-q -h -V --gpu --force --timeout --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --gpu)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__mps__subcmd__unit)
            opts="-c -q -h -V --gpu --clients --thread-percentage --memory-limit --pipe-dir --log-dir --multiuser --config --timeout --install --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --gpu)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --clients)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --thread-percentage)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --memory-limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pipe-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-dir)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__plan)
            opts="-c -q -h -V --config --sysfs-root --check --force --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sysfs-root)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
            opts="-c -q -h -V --target --config --mps-pipe-dir --host-root --share --kubelet-cgroup-root --clients --compare --quick --buffer --timeout --sysfs-root --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
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
                --host-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubelet-cgroup-root)
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
                --sysfs-root)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__recover)
            opts="-c -q -h -V --gpu --config --dry-run --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --gpu)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
            opts="-q -h -V --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version presets models reboot xid ecc process help"
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__sim__subcmd__ecc)
            opts="-q -h -V --gpu --mig-device --double-bit --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --gpu)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mig-device)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
            opts="presets models reboot xid ecc process help"
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
        gpushare__subcmd__sim__subcmd__help__subcmd__ecc)
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
        gpushare__subcmd__sim__subcmd__help__subcmd__process)
            opts="start end"
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
        gpushare__subcmd__sim__subcmd__help__subcmd__process__subcmd__end)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
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
        gpushare__subcmd__sim__subcmd__help__subcmd__process__subcmd__start)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
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
        gpushare__subcmd__sim__subcmd__help__subcmd__reboot)
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
        gpushare__subcmd__sim__subcmd__help__subcmd__xid)
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
            opts="-q -h -V --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
            opts="-q -h -V --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__sim__subcmd__process)
            opts="-q -h -V --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version start end help"
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__sim__subcmd__process__subcmd__end)
            opts="-q -h -V --pid --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --pid)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__sim__subcmd__process__subcmd__help)
            opts="start end help"
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
        gpushare__subcmd__sim__subcmd__process__subcmd__help__subcmd__end)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
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
        gpushare__subcmd__sim__subcmd__process__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
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
        gpushare__subcmd__sim__subcmd__process__subcmd__help__subcmd__start)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
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
        gpushare__subcmd__sim__subcmd__process__subcmd__start)
            opts="-q -h -V --gpu --mig-device --pid --memory-mib --name --mps-client --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --gpu)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mig-device)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pid)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --memory-mib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --name)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__sim__subcmd__reboot)
            opts="-q -h -V --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__sim__subcmd__xid)
            opts="-q -h -V --gpu --mig-device --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --gpu)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mig-device)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__status)
            opts="-c -q -h -V --config --host-root --kubelet-cgroup-root --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --host-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubelet-cgroup-root)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__unit)
            opts="-c -k -q -h -V --config --gpu-clients-file --hooks-file --hooks-timeout --metrics --listen --install --uninstall --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpu-clients-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hooks-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -k)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hooks-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --listen)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__vgpu)
            opts="-q -h -V --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version types status apply assert clear help"
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__vgpu__subcmd__apply)
            opts="-f -c -q -h -V --file --config --gpu --dry-run --force --heterogeneous --sysfs-root --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
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
                --gpu)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sysfs-root)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__vgpu__subcmd__assert)
            opts="-f -c -q -h -V --file --config --gpu --heterogeneous --sysfs-root --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
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
                --gpu)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sysfs-root)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__vgpu__subcmd__clear)
            opts="-q -h -V --gpu --dry-run --force --sysfs-root --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --gpu)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sysfs-root)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__vgpu__subcmd__help)
            opts="types status apply assert clear help"
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
        gpushare__subcmd__vgpu__subcmd__help__subcmd__apply)
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
        gpushare__subcmd__vgpu__subcmd__help__subcmd__assert)
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
        gpushare__subcmd__vgpu__subcmd__help__subcmd__clear)
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
        gpushare__subcmd__vgpu__subcmd__help__subcmd__help)
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
        gpushare__subcmd__vgpu__subcmd__help__subcmd__status)
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
        gpushare__subcmd__vgpu__subcmd__help__subcmd__types)
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
        gpushare__subcmd__vgpu__subcmd__status)
            opts="-q -h -V --gpu --sysfs-root --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --gpu)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sysfs-root)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
        gpushare__subcmd__vgpu__subcmd__types)
            opts="-q -h -V --gpu --sysfs-root --sim --sim-state --format --quiet --color --nvml-lib --state-root --lock-timeout --jobs --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --gpu)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sysfs-root)
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
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
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
