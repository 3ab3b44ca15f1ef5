# bash completion for dtk                                   -*- shell-script -*-
#
# Install as $datadir/bash-completion/completions/dtk (cmake --install does),
# or source it from ~/.bashrc. Works with or without the bash-completion
# package loaded.
#
# Completes dtk's commands, each command's options and their values, node
# names (the files insights/*.yaml of the base found from the current
# directory, or from the -C directories given, upward) for show, next-id and
# list --node, entry ids for show (from 'dtk list --format ids'), source ids
# (the "- id:" lines of insights/_sources.yaml) for verify (but the entry's
# own source and verified_by, which verify refuses), add --source and
# --verified-by, categories (those of insights/_domain.yaml, each one word
# however many spaces it holds) for add-node --category, and the format and
# directory of export.

# The commands, as 'dtk --help' lists them.
_dtk_commands="reindex check show list search similar next-id crystallize log setup-git merge-driver sync export
add add-node add-source use cite close review verify relate contradict resolve stance bloom gap hotspot
edit edit-source confidence unrelate unverify supersede retract init mcp help"

# The options every command takes (merge-driver, run by git, none), and
# those that can print more than a screen; then those of every write command.
_dtk_all="-q --quiet -h --help"
_dtk_paged="$_dtk_all --no-pager"
_dtk_wopts="--dry-run --format --no-reindex $_dtk_paged"

# Prints the options of command $1, one line, space-separated.
_dtk_options()
{
    case $1 in
    reindex) echo "--stdout -f --format $_dtk_paged" ;;
    check) echo "-f --format --color --word-diff $_dtk_all" ;;
    show) echo "-f --format --color --limit --compact $_dtk_paged" ;;
    list) echo "-n --node --nodes --confidence --since --stale-at --candidates --include-retired --all -f --format $_dtk_paged" ;;
    search) echo "-n --node --confidence -l --limit --include-retired --all -f --format --color --sources $_dtk_paged" ;;
    similar) echo "-n --node -l --limit -f --format $_dtk_paged" ;;
    next-id) echo "-f --format $_dtk_all" ;;
    crystallize) echo "--plan --date --format --eval --review --author --dry-run --no-commit --gpg-sign --no-gpg-sign --no-verify --allow-future --allow-shallow --verdict --note --cross-pair --amend --continue --abort --page --limit --pairs $_dtk_paged" ;;
    log) echo "-f --format $_dtk_paged" ;;
    setup-git) echo "--dtk --no-hooks $_dtk_all" ;;
    merge-driver) echo "--help" ;;
    sync) echo "--dry-run --no-verify $_dtk_all" ;;
    export) echo "$_dtk_all" ;;
    add) echo "--title --claim --source --confidence --verified-by --relates --created --allow-future --from --distinct-from $_dtk_wopts" ;;
    add-node) echo "--category --new-category --bloom $_dtk_wopts" ;;
    add-source) echo "--title --url --read --allow-future $_dtk_wopts" ;;
    review) echo "--date --allow-future $_dtk_wopts" ;;
    verify) echo "--promote $_dtk_wopts" ;;
    contradict | resolve) echo "--note $_dtk_wopts" ;;
    use | cite | close | relate | stance | bloom | unrelate) echo "$_dtk_wopts" ;;
    gap) echo "--text --flagged-by --node --date --allow-future $_dtk_wopts" ;;
    hotspot) echo "--link --note $_dtk_wopts" ;;
    edit) echo "--title --claim --source --date --allow-future $_dtk_wopts" ;;
    edit-source) echo "--title --url --date --allow-future $_dtk_wopts" ;;
    confidence) echo "--qualified $_dtk_wopts" ;;
    unverify) echo "--confidence $_dtk_wopts" ;;
    supersede) echo "--date --allow-future $_dtk_wopts" ;;
    retract) echo "--reason --date --allow-future $_dtk_wopts" ;;
    init) echo "--lang --domain --title $_dtk_wopts" ;;
    mcp) echo "--prefix --http --token-file --timeout --read-only --tools $_dtk_all" ;;
    help) echo "" ;;
    esac
}

# Returns 0 when option $2 of command $1 takes a value.
_dtk_takes_value()
{
    case $1:$2 in
    check:-f | check:--format | check:--color | show:-f | show:--format | show:--color) return 0 ;;
    show:--limit) return 0 ;;
    list:-n | list:--node | list:--confidence | list:--since | list:--stale-at) return 0 ;;
    list:-f | list:--format | log:-f | log:--format | reindex:-f | reindex:--format) return 0 ;;
    next-id:-f | next-id:--format) return 0 ;;
    search:-n | search:--node | search:--confidence | search:-l | search:--limit) return 0 ;;
    search:-f | search:--format | search:--color) return 0 ;;
    similar:-n | similar:--node | similar:-l | similar:--limit | similar:-f | similar:--format) return 0 ;;
    crystallize:--date | crystallize:--format | crystallize:--eval) return 0 ;;
    crystallize:--review | crystallize:--author | setup-git:--dtk) return 0 ;;
    crystallize:--verdict | crystallize:--note | crystallize:--cross-pair) return 0 ;;
    add:--title | add:--claim | add:--source | add:--confidence | add:--verified-by) return 0 ;;
    add:--relates | add:--created | add:--from | add-node:--category | add-node:--bloom) return 0 ;;
    add:--distinct-from) return 0 ;;
    add-source:--title | add-source:--url | add-source:--read | review:--date) return 0 ;;
    contradict:--note | resolve:--note) return 0 ;;
    add:--format | add-node:--format | add-source:--format | use:--format | cite:--format) return 0 ;;
    close:--format | review:--format | verify:--format | relate:--format) return 0 ;;
    contradict:--format | resolve:--format | stance:--format | bloom:--format) return 0 ;;
    gap:--text | gap:--flagged-by | gap:--node | gap:--date | gap:--format) return 0 ;;
    hotspot:--link | hotspot:--note | hotspot:--format) return 0 ;;
    edit:--title | edit:--claim | edit:--source | edit:--date | edit:--format) return 0 ;;
    edit-source:--title | edit-source:--url | edit-source:--date | edit-source:--format) return 0 ;;
    confidence:--format | unrelate:--format | unverify:--format | unverify:--confidence) return 0 ;;
    supersede:--date | supersede:--format | retract:--reason | retract:--date) return 0 ;;
    retract:--format | init:--lang | init:--domain | init:--title | init:--format) return 0 ;;
    esac
    return 1
}

# Prints the root of the base seen from directory $1 (the nearest directory
# upward holding insights/_domain.yaml), or nothing.
_dtk_root()
{
    local d
    d=$(cd -- "$1" 2>/dev/null && pwd) || return 0
    while :; do
        if [[ -f $d/insights/_domain.yaml ]]; then
            printf '%s\n' "${d:-/}"
            return 0
        fi
        [[ -z $d || $d == / ]] && return 0
        d=${d%/*}
    done
}

# Prints the node names of the base root $1, one per line.
_dtk_nodes()
{
    local f n
    [[ -n $1 ]] || return 0
    for f in "$1"/insights/*.yaml; do
        [[ -f $f ]] || continue
        n=${f##*/}
        n=${n%.yaml}
        [[ $n == [a-z0-9]* ]] && printf '%s\n' "$n"
    done
}

# Prints the source ids of the base root $1: the "- id:" lines of its
# _sources.yaml (quotes dropped), one per line.
_dtk_sources()
{
    [[ -n $1 && -f $1/insights/_sources.yaml ]] || return 0
    sed -n -E "s/^-[[:space:]]+id:[[:space:]]*['\"]?([^'\" #]+).*/\1/p" "$1/insights/_sources.yaml"
}

# Prints the category names of the base root $1 (the "- name:" lines under
# categories: in its _domain.yaml), one per line.
_dtk_categories()
{
    [[ -n $1 && -f $1/insights/_domain.yaml ]] || return 0
    awk '/^categories:/ { on = 1; next } /^[^ #-]/ { on = 0 }
        on && /^ *- *name:/ { sub(/^ *- *name: */, ""); sub(/ +#.*$/, "")
            gsub(/^["\047]|["\047]$/, ""); print }' "$1/insights/_domain.yaml"
}

# Prints the sources entry $1 names already (its source, its verified_by),
# one per line, from 'dtk show --format json': verify refuses them.
_dtk_entry_sources()
{
    "$dtk" -C "$(_dtk_root "$dir")" show "$1" --format json 2>/dev/null |
        awk '/^  "(source|verified_by)": / { on = 1; next } /^  "/ { on = 0 }
            on && /^ *"id": "/ { sub(/^ *"id": "/, ""); sub(/".*/, ""); print }'
}

# Completes with the lines of $1 that start with what is typed, each quoted
# for the shell: a category name with spaces is one word.
_dtk_reply_lines()
{
    local w typed=${cur//\\/}
    typed=${typed#[\"\']}
    COMPREPLY=()
    while IFS= read -r w; do
        [[ -n $w && $w == "$typed"* ]] && COMPREPLY+=("$pfx$(printf '%q' "$w")")
    done <<<"$1"
}

# Completes with the words of $1 that start with $cur (and $pfx before each).
_dtk_reply()
{
    local w
    COMPREPLY=()
    while IFS= read -r w; do
        [[ -n $w ]] && COMPREPLY+=("$pfx$w")
    done < <(compgen -W "$1" -- "$cur")
}

_dtk_files()
{
    local w
    COMPREPLY=()
    if [[ -z $pfx ]] && declare -F _filedir >/dev/null; then
        _filedir "$@"
        return
    fi
    compopt -o filenames 2>/dev/null
    while IFS= read -r w; do
        COMPREPLY+=("$pfx$w")
    done < <(compgen "${1:--f}" -- "$cur")
}

# Completes with node names and the entry ids of the nodes the word being
# completed names ("node", "node-0...") and of the one node it can still
# become, if only one: one 'dtk list' per such node, never one for the whole
# base. Uses $dir, $dtk and $cur of _dtk.
_dtk_ids()
{
    local root nodes n ids=""
    root=$(_dtk_root "$dir")
    nodes=$(_dtk_nodes "$root")
    local -a of=() could=()
    for n in $nodes; do
        if [[ $cur == "$n" || $cur == "$n"-* ]]; then
            of+=("$n")
        elif [[ $n == "$cur"* ]]; then
            could+=("$n")
        fi
    done
    ((${#could[@]} == 1)) && of+=("${could[0]}")
    for n in "${of[@]}"; do
        ids+=" $("$dtk" -C "$root" list --node "$n" --format ids 2>/dev/null)"
    done
    _dtk_reply "$nodes $ids"
}

_dtk()
{
    local cword=$COMP_CWORD cur=${COMP_WORDS[COMP_CWORD]} prev="" pfx=""
    local -a words=("${COMP_WORDS[@]}")
    local i w cmd="" cmd_at=0 dir="." npos=0 endopts=0 dtk first=""

    # Rejoin "--opt = value", which COMP_WORDBREAKS splits at '=', into one
    # word, so that "--format=j" reads the same whatever COMP_WORDBREAKS is.
    local -a joined=()
    local k=0
    for ((i = 0; i < ${#words[@]}; i++)); do
        w=${words[i]}
        if ((i > 0)) && [[ $w == =* && ${joined[k - 1]} == --* && ${joined[k - 1]} != *=* ]]; then
            joined[k - 1]+=$w
            ((i == COMP_CWORD)) && cword=$((k - 1))
            if ((i + 1 < ${#words[@]})) && [[ $w == = ]] && ((i + 1 <= COMP_CWORD)); then
                ((i++))
                joined[k - 1]+=${words[i]}
                ((i == COMP_CWORD)) && cword=$((k - 1))
            fi
            continue
        fi
        joined[k]=$w
        ((i == COMP_CWORD)) && cword=$k
        ((k++))
    done
    words=("${joined[@]}")
    cur=${words[cword]}
    ((cword > 0)) && prev=${words[cword - 1]}

    # Global options and the command; -C dirs are applied in order.
    for ((i = 1; i < cword; i++)); do
        w=${words[i]}
        if [[ $w == -C ]]; then
            ((i + 1 < cword)) || break
            ((i++))
            w=${words[i]}
            [[ $w == "~"* ]] && w=$HOME${w#"~"}
            if [[ $w == /* ]]; then dir=$w; else dir=$dir/$w; fi
        elif [[ $w == -* ]]; then
            continue
        else
            cmd=$w
            cmd_at=$i
            break
        fi
    done

    if [[ -z $cmd ]]; then
        if [[ $prev == -C ]]; then
            _dtk_files -d
        elif [[ $cur == -* ]]; then
            _dtk_reply "-C -P --no-pager -h --help --version"
        else
            _dtk_reply "$_dtk_commands"
        fi
        return 0
    fi

    # The value of an option given as --opt=value. When '=' breaks words
    # (bash's default), readline replaces only what follows it.
    local opt=""
    if [[ $cur == --*=* ]]; then
        opt=${cur%%=*}
        [[ $COMP_WORDBREAKS == *=* ]] || pfx=$opt=
        cur=${cur#*=}
    fi
    # Count the positional arguments before the word being completed, and
    # see whether that word is the value of the option before it.
    for ((i = cmd_at + 1; i < cword; i++)); do
        w=${words[i]}
        if ((endopts)); then
            [[ -n $first ]] || first=$w
            ((npos++))
        elif [[ $w == -- ]]; then
            endopts=1
        elif [[ $w == -?* ]]; then
            if [[ $w != *=* ]] && _dtk_takes_value "$cmd" "$w"; then
                if ((i + 1 == cword)); then opt=$w; else ((i++)); fi
            fi
        else
            [[ -n $first ]] || first=$w
            ((npos++))
        fi
    done
    prev=$opt

    dtk=${words[0]}
    [[ $dtk == "~"* ]] && dtk=$HOME${dtk#"~"}
    type -P -- "$dtk" >/dev/null 2>&1 || dtk=dtk

    case $cmd:$prev in
    check:-f | check:--format) _dtk_reply "text github"; return 0 ;;
    show:-f | show:--format | log:-f | log:--format | crystallize:--format | reindex:-f | reindex:--format | \
        next-id:-f | next-id:--format)
        _dtk_reply "text json"; return 0 ;;
    add:--format | add-node:--format | add-source:--format | use:--format | cite:--format | \
        close:--format | review:--format | verify:--format | relate:--format | \
        contradict:--format | resolve:--format | stance:--format | bloom:--format | \
        edit:--format | edit-source:--format | confidence:--format | unrelate:--format | \
        unverify:--format | supersede:--format | retract:--format | init:--format | \
        gap:--format | hotspot:--format)
        _dtk_reply "text json"; return 0 ;;
    gap:--node) _dtk_reply "$(_dtk_nodes "$(_dtk_root "$dir")")"; return 0 ;;
    unverify:--confidence) _dtk_reply "high medium low"; return 0 ;;
    init:--lang) _dtk_reply "zh en"; return 0 ;;
    edit:--source) _dtk_reply "$(_dtk_sources "$(_dtk_root "$dir")")"; return 0 ;;
    add:--confidence) _dtk_reply "high medium low"; return 0 ;;
    add:--source | add:--verified-by)
        _dtk_reply "$(_dtk_sources "$(_dtk_root "$dir")")"; return 0 ;;
    add:--relates) _dtk_ids; return 0 ;;
    add-node:--category) _dtk_reply_lines "$(_dtk_categories "$(_dtk_root "$dir")")"; return 0 ;;
    add-node:--bloom) _dtk_reply "remember understand apply analyze evaluate create"; return 0 ;;
    add:--from) _dtk_files -f; return 0 ;;
    list:-f | list:--format | search:-f | search:--format)
        _dtk_reply "text json jsonl ids"; return 0 ;;
    similar:-f | similar:--format) _dtk_reply "text json ids"; return 0 ;;
    show:--color | check:--color | search:--color) _dtk_reply "auto always never"; return 0 ;;
    list:--confidence | search:--confidence) _dtk_reply "high medium low"; return 0 ;;
    list:-n | list:--node | search:-n | search:--node | similar:-n | similar:--node)
        _dtk_reply "$(_dtk_nodes "$(_dtk_root "$dir")")"; return 0 ;;
    crystallize:--review | setup-git:--dtk) _dtk_files -f; return 0 ;;
    *:?*) COMPREPLY=(); return 0 ;; # a date, a scenario, an author: free text
    esac

    if [[ $cur == -* ]] && ((!endopts)); then
        _dtk_reply "$(_dtk_options "$cmd")"
        return 0
    fi

    local root nodes n ids=""
    case $cmd in
    help)
        ((npos == 0)) && _dtk_reply "$_dtk_commands"
        ;;
    next-id)
        ((npos == 0)) && _dtk_reply "$(_dtk_nodes "$(_dtk_root "$dir")")"
        ;;
    show)
        ((npos == 0)) && _dtk_ids
        ;;
    add | add-node | stance)
        ((npos == 0)) && _dtk_reply "$(_dtk_nodes "$(_dtk_root "$dir")")"
        ;;
    bloom)
        if ((npos == 0)); then
            _dtk_reply "$(_dtk_nodes "$(_dtk_root "$dir")")"
        elif ((npos == 1)); then
            _dtk_reply "remember understand apply analyze evaluate create"
        fi
        ;;
    use | cite | close | review)
        _dtk_ids
        ;;
    verify)
        if ((npos == 0)); then
            _dtk_ids
        elif ((npos == 1)); then
            _dtk_reply "$(_dtk_sources "$(_dtk_root "$dir")" |
                grep -vxF -f <(_dtk_entry_sources "$first"; echo))"
        fi
        ;;
    relate | contradict | resolve | unrelate | supersede)
        ((npos < 2)) && _dtk_ids
        ;;
    edit | unverify)
        ((npos == 0)) && _dtk_ids
        ;;
    retract)
        _dtk_ids
        ;;
    confidence)
        if ((npos == 0)); then
            _dtk_reply "high medium low"
        else
            _dtk_ids
        fi
        ;;
    edit-source)
        ((npos == 0)) && _dtk_reply "$(_dtk_sources "$(_dtk_root "$dir")")"
        ;;
    merge-driver)
        ((npos < 4)) && _dtk_files -f
        ;;
    export)
        if ((npos == 0)); then
            _dtk_reply "html"
        elif ((npos == 1)); then
            _dtk_files -d
        fi
        ;;
    esac
    return 0
}

complete -F _dtk dtk
