# bash completion for rdnactl                                  -*- shell-script -*-
_rdnactl_config_keys="noretry= vm_fragment_size= mtype_sysmem= mtype_vram= targets= exclude= dry_run= strict=
amdgpu.noretry= amdgpu.vm_fragment_size= amdgpu.lockup_timeout= amdgpu.gttsize= ttm-limit="

_rdnactl()
{
    local cur prev words cword
    # Words split on blanks only, so KEY=VALUE stays one word (readline also
    # breaks at '=', handled where values are completed).
    _init_completion -n = 2>/dev/null || {
        COMPREPLY=()
        local line=${COMP_LINE:0:${COMP_POINT:-${#COMP_LINE}}}
        read -r -a words <<<"$line"
        [[ $line == *[[:space:]] || -z $line ]] && words+=("")
        cword=$((${#words[@]} - 1))
        cur=${words[cword]}
        prev=${words[cword-1]}
    }

    local sub="" action="" i
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            status|env|validate|history|fix|coverage|explain) sub=${words[i]}; break ;;
            config) sub=config ;;
            show|set|unset|undo) [[ $sub == config && -z $action ]] && action=${words[i]} ;;
        esac
    done

    case $prev in
        --root)  COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --env)   COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --user)  COMPREPLY=($(compgen -u -- "$cur")); return ;;
        --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --shell) COMPREPLY=($(compgen -W "sh fish" -- "$cur")); return ;;
        --pid)   COMPREPLY=($(compgen -W "$(ps -eo pid= 2>/dev/null)" -- "$cur")); return ;;
        --python) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --gfx)   COMPREPLY=($(compgen -W "gfx1010 gfx1011 gfx1012 gfx1030 gfx1031 gfx1032 gfx1033 gfx1034 gfx1035 gfx1036 gfx1100 gfx1101 gfx1102 gfx1103 gfx1150 gfx1151 gfx1152 gfx1153 gfx1200 gfx1201 gfx900 gfx906 gfx908 gfx90a gfx942 gfx950" -- "$cur")); return ;;
    esac

    # values of config keys: KEY=<TAB>
    if [[ $sub == config && $action == set && $cur == *=* ]]; then
        local key=${cur%%=*} vals=""
        case $key in
            noretry|amdgpu.noretry) vals="-1 0 1" ;;
            mtype_sysmem|mtype_vram) vals="keep nc wc cc uc" ;;
            dry_run|strict) vals="0 1" ;;
            targets|exclude) vals="rdna1 rdna2 rdna1,rdna2 dgpu apu" ;;
            vm_fragment_size|amdgpu.vm_fragment_size) vals="-1 4 5 6 7 8 9" ;;
        esac
        if [[ $COMP_WORDBREAKS == *=* ]]; then
            COMPREPLY=($(compgen -W "$vals" -- "${cur#*=}")) # readline replaces the part after '='
        else
            COMPREPLY=($(compgen -P "$key=" -W "$vals" -- "${cur#*=}"))
        fi
        return
    fi

    local common="--root --json --dry-run --no-initramfs --help"
    case $sub in
        "")       COMPREPLY=($(compgen -W "status env config fix validate history coverage explain --help --version" -- "$cur")) ;;
        status)   COMPREPLY=($(compgen -W "--root --env --user --json --no-coverage --color --help" -- "$cur")) ;;
        coverage) if [[ $cur == -* ]]; then
                      COMPREPLY=($(compgen -W "--root --env --user --python --gfx --no-system --json --stats --help" -- "$cur"))
                  else
                      COMPREPLY=($(compgen -f -- "$cur"))
                  fi ;;
        env)      COMPREPLY=($(compgen -W "--root --env --user --shell --help" -- "$cur")) ;;
        fix)      COMPREPLY=($(compgen -W "$common" -- "$cur")) ;;
        explain)  if [[ $cur == -* ]]; then
                      COMPREPLY=($(compgen -W "--pid --json --list --no-coverage --root --env --user --help" -- "$cur"))
                  elif [[ $cur == R* ]]; then
                      COMPREPLY=($(compgen -W "$(printf 'RDNA-LOG-%03d ' {1..15})" -- "$cur"))
                  else
                      COMPREPLY=($(compgen -f -- "$cur"))
                  fi ;;
        config)
            case $action in
                "")    COMPREPLY=($(compgen -W "show set unset undo --help" -- "$cur")) ;;
                show)  COMPREPLY=($(compgen -W "--root --json --help" -- "$cur")) ;;
                set)   compopt -o nospace 2>/dev/null
                       COMPREPLY=($(compgen -W "$_rdnactl_config_keys --cmdline $common" -- "$cur")) ;;
                unset) COMPREPLY=($(compgen -W "${_rdnactl_config_keys//=/} --cmdline $common" -- "$cur")) ;;
                undo)  COMPREPLY=($(compgen -W "$common" -- "$cur")) ;;
            esac ;;
        *)        COMPREPLY=($(compgen -W "--help" -- "$cur")) ;;
    esac
}
complete -F _rdnactl rdnactl
