# completions/cudojo.bash: bash completion for cudojo — commands, exercise ids
# (from the course cudojo finds), options, files. Installed by `make install`
# as PREFIX/share/bash-completion/completions/cudojo.
_cudojo() {
    local cur=${COMP_WORDS[COMP_CWORD]} cmd="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            -C|--workspace|--lessons) ((i++)) ;;
            -*) ;;
            *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--json --backend=cuda --backend=emu --backend=auto --emu-threads= --workspace --lessons --no-color --help" -- "$cur"))
        return
    fi
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$(cudojo __complete commands 2>/dev/null)" -- "$cur"))
        return
    fi
    case $cmd in
        run|watch|hint|reset)
            COMPREPLY=($(compgen -W "$(cudojo __complete exercises 2>/dev/null)" -- "$cur")) ;;
        init|verify|exec|grade|submit|progress|class)
            COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
}
complete -o default -F _cudojo cudojo
