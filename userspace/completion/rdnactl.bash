# bash completion for rdnactl                                  -*- shell-script -*-
_rdnactl()
{
    local cur prev words cword
    _init_completion 2>/dev/null || {
        COMPREPLY=()
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD-1]}
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    }

    local sub="" i
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            status|env|validate|history) sub=${words[i]}; break ;;
        esac
    done

    case $prev in
        --root)  COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --env)   COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --user)  COMPREPLY=($(compgen -u -- "$cur")); return ;;
        --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --shell) COMPREPLY=($(compgen -W "sh fish" -- "$cur")); return ;;
    esac

    case $sub in
        "")       COMPREPLY=($(compgen -W "status env validate history --help --version" -- "$cur")) ;;
        status)   COMPREPLY=($(compgen -W "--root --env --user --json --color --help" -- "$cur")) ;;
        env)      COMPREPLY=($(compgen -W "--root --env --user --shell --help" -- "$cur")) ;;
        *)        COMPREPLY=($(compgen -W "--help" -- "$cur")) ;;
    esac
}
complete -F _rdnactl rdnactl
