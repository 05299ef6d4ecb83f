# bash completion for rdnactl                                  -*- shell-script -*-
# The option lists below are compared with every subcommand's --help by
# tests/completion/check.sh, so a new option without a completion fails the tests.
# Validate case names and explain ids come from rdnactl itself (--list).
_rdnactl_config_keys="noretry= vm_fragment_size= mtype_sysmem= mtype_vram= targets= exclude= dry_run= strict=
amdgpu.noretry= amdgpu.vm_fragment_size= amdgpu.lockup_timeout= amdgpu.gttsize= ttm-limit= validate.user="
_rdnactl_verbs="status env validate history config fix explain coverage kernel-check report help"
_rdnactl_machine="--root --env --user"

# The options of a (sub)command: "status", "config set", "" for rdnactl itself.
_rdnactl_options()
{
    case $1 in
        "")           echo "--help --version" ;;
        status)       echo "$_rdnactl_machine --format --json --output --no-coverage --color --pid --verbose --quiet --only --skip --list-checks --help" ;;
        env)          echo "$_rdnactl_machine --shell --json --pid --help" ;;
        report)       echo "$_rdnactl_machine --pid --output --force --no-anonymize --help" ;;
        coverage)     echo "$_rdnactl_machine --python --gfx --no-system --json --stats --verbose --color --help" ;;
        explain)      echo "--pid $_rdnactl_machine --json --list --no-coverage --check-knowledge --no-overlays --verbose --color --help" ;;
        fix)          echo "$_rdnactl_machine --dry-run --json --no-initramfs --color --help" ;;
        validate)     echo "--quick --full --case --list --json --if-stack-changed --brief --timeout --kill-grace
                            --inject-error --torch --capacity-fraction --history-db --no-history --device --api --verbose --color --help" ;;
        history)      echo "--json --history-db --threshold --plot --help" ;;
        kernel-check) echo "--root --json --help" ;;
        config)       echo "--help" ;;
        "config show")  echo "--root --json --help" ;;
        "config set"|"config unset") echo "--root --json --dry-run --no-initramfs --cmdline --color --help" ;;
        "config undo")  echo "--root --json --dry-run --no-initramfs --color --help" ;;
        help)         echo "" ;;
    esac
}

# The signature ids rdnactl explain knows (its --list: the built-in catalogue and the overlays).
_rdnactl_explain_ids()
{
    "$1" explain --list 2>/dev/null | awk '/^RDNA-[A-Z]+-[0-9]+ / { print $1 }'
}

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
    local self=${words[0]:-rdnactl}

    local sub="" action="" i
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            status|env|validate|history|fix|coverage|explain|kernel-check|report) [[ -z $sub ]] && { sub=${words[i]}; break; } ;;
            help) [[ -z $sub ]] && { sub=help; break; } ;;
            config) [[ -z $sub ]] && sub=config ;;
            show|set|unset|undo) [[ $sub == config && -z $action ]] && action=${words[i]} ;;
        esac
    done

    case $prev in
        --root)  COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --env|--python|--history-db|--plot|--output|--check-knowledge) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --user)  COMPREPLY=($(compgen -u -- "$cur")); return ;;
        --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --format) COMPREPLY=($(compgen -W "text json prometheus" -- "$cur")); return ;;
        --shell) COMPREPLY=($(compgen -W "sh bash zsh fish" -- "$cur")); return ;;
        --api)   COMPREPLY=($(compgen -W "hip cuda" -- "$cur")); return ;;
        --pid)   COMPREPLY=($(compgen -W "$(ps -eo pid= 2>/dev/null)" -- "$cur")); return ;;
        --case)  COMPREPLY=($(compgen -W "$("$self" validate --list 2>/dev/null | awk '/^[^ ]/ { print $1 }')" -- "$cur")); return ;;
        --gfx)   COMPREPLY=($(compgen -W "gfx1010 gfx1011 gfx1012 gfx1030 gfx1031 gfx1032 gfx1033 gfx1034 gfx1035 gfx1036 gfx1100 gfx1101 gfx1102 gfx1103 gfx1150 gfx1151 gfx1152 gfx1153 gfx1200 gfx1201 gfx900 gfx906 gfx908 gfx90a gfx942 gfx950" -- "$cur")); return ;;
        --only|--skip) # comma-separated check ids or areas: complete the part after the last comma
                 local pre="" last=$cur
                 [[ $cur == *,* ]] && { pre=${cur%,*},; last=${cur##*,}; }
                 COMPREPLY=($(compgen -P "$pre" -W "$("$self" status --list-checks 2>/dev/null | awk 'NR > 1 { print $1; a[$2] = 1 } END { for (x in a) print x }')" -- "$last")); return ;;
        --timeout|--kill-grace|--capacity-fraction|--device|--threshold) COMPREPLY=(); return ;;
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
            validate.user) vals=$(compgen -u) ;;
        esac
        if [[ $COMP_WORDBREAKS == *=* ]]; then
            COMPREPLY=($(compgen -W "$vals" -- "${cur#*=}")) # readline replaces the part after '='
        else
            COMPREPLY=($(compgen -P "$key=" -W "$vals" -- "${cur#*=}"))
        fi
        return
    fi

    local opts
    opts=$(_rdnactl_options "$sub${action:+ $action}")
    case $sub in
        "")       COMPREPLY=($(compgen -W "$_rdnactl_verbs $opts" -- "$cur")) ;;
        help)     # rdnactl help VERB [ACTION]
                  if [[ ${words[cword-1]} == config ]]; then
                      COMPREPLY=($(compgen -W "show set unset undo" -- "$cur"))
                  elif [[ ${words[cword-1]} == help ]]; then
                      COMPREPLY=($(compgen -W "$_rdnactl_verbs" -- "$cur"))
                  fi ;;
        coverage) if [[ $cur == -* ]]; then
                      COMPREPLY=($(compgen -W "$opts" -- "$cur"))
                  else
                      COMPREPLY=($(compgen -f -- "$cur"))
                  fi ;;
        explain)  # a log FILE or a signature id (rdnactl explain --list, built-in and overlay entries)
                  if [[ $cur == -* ]]; then
                      COMPREPLY=($(compgen -W "$opts" -- "$cur"))
                  elif [[ $cur == R* ]]; then
                      COMPREPLY=($(compgen -W "$(_rdnactl_explain_ids "$self")" -- "$cur"))
                  else
                      COMPREPLY=($(compgen -W "$(_rdnactl_explain_ids "$self")" -- "$cur") $(compgen -f -- "$cur"))
                  fi ;;
        kernel-check) # RELEASE: the kernels of /lib/modules (DIR/lib/modules with --root DIR)
                  if [[ $cur == -* ]]; then
                      COMPREPLY=($(compgen -W "$opts" -- "$cur"))
                  else
                      local root=""
                      for ((i = 1; i < cword; i++)); do
                          [[ ${words[i]} == --root ]] && root=${words[i+1]}
                          [[ ${words[i]} == --root=* ]] && root=${words[i]#--root=}
                      done
                      root=${root/#\~/$HOME}
                      COMPREPLY=($(compgen -W "$(command ls "${root%/}/lib/modules" 2>/dev/null)" -- "$cur"))
                  fi ;;
        config)
            case $action in
                "")    COMPREPLY=($(compgen -W "show set unset undo $opts" -- "$cur")) ;;
                set)   compopt -o nospace 2>/dev/null
                       COMPREPLY=($(compgen -W "$_rdnactl_config_keys $opts" -- "$cur")) ;;
                unset) COMPREPLY=($(compgen -W "${_rdnactl_config_keys//=/} $opts" -- "$cur")) ;;
                *)     COMPREPLY=($(compgen -W "$opts" -- "$cur")) ;;
            esac ;;
        *)        COMPREPLY=($(compgen -W "$opts" -- "$cur")) ;;
    esac
}
complete -F _rdnactl rdnactl
