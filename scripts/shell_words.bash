# shellcheck shell=bash
# shell_words.bash — sourced by scripts/demo.sh, which prints each command
# before running it, and by tests/scenarios/docs_examples.sh, which checks
# that what it prints is what runs.

# shell_words ARG...: the arguments as one command line a user can paste:
# an argument with a character the shell treats specially (a layout spec's
# ";", a space, a quote) is single-quoted.
shell_words() {
    local a out=()
    for a in "$@"; do
        if [[ $a =~ ^[A-Za-z0-9_./:=,@%+-]+$ ]]; then
            out+=("$a")
        else
            out+=("'${a//\'/\'\\\'\'}'")
        fi
    done
    printf '%s' "${out[*]}"
}
