#!/usr/bin/env bash
# manpage_test.sh DTK SOURCE_DIR: docs/dtk.1 documents every command that
# 'dtk --help' lists and every option that 'dtk help <command>' gives, and
# (when groff and man are installed) renders without a warning. Prints one
# line per check and "N passed, M failed" last; exits non-zero on a failure.
set -u

. "$(dirname "$0")/lib.sh"
t_args "$@"
PAGE=$SRC/docs/dtk.1

# The page's source with roff's escapes for '-' and fonts undone.
text=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$PAGE")

# section NAME: the text from '.SS "dtk NAME' (then a space or the closing
# quote: "dtk add" is not "dtk add-node") to the next .SS or .SH.
section()
{
    printf '%s\n' "$text" | awk -v h=".SS \"dtk $1" '
        index($0, h " ") == 1 || index($0, h "\"") == 1 { on = 1; print; next }
        on && /^\.S[SH]/ { exit }
        on { print }'
}

commands=$("$DTK" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
[ -n "$commands" ] || ko "dtk --help lists commands"
for cmd in $commands help; do
    sec=$(section "$cmd")
    if [ -z "$sec" ]; then
        ko "dtk.1 has a section for dtk $cmd"
        continue
    fi
    ok "dtk.1 has a section for dtk $cmd"
    if ! printf '%s\n' "$text" | sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' |
        grep -q "^\.SY \"dtk $cmd\"" && [ "$cmd" != help ]; then
        ko "dtk.1's synopsis shows dtk $cmd"
    elif [ "$cmd" != help ]; then
        ok "dtk.1's synopsis shows dtk $cmd"
    fi
    [ "$cmd" = help ] && continue
    missing=""
    for o in $("$DTK" help "$cmd" | sed -n '1,/^$/p; /^options:/,/^$/p' |
        grep -oE '(^|[ [|,])--?[a-zA-Z][a-z-]*' | sed 's/^[ [|,]//' | LC_ALL=C sort -u); do
        printf '%s\n' "$sec" | grep -q -- "$o\\b" || missing="$missing $o"
    done
    if [ -z "$missing" ]; then
        ok "dtk.1 documents every option of dtk $cmd"
    else
        ko "dtk.1 documents every option of dtk $cmd" "missing:$missing"
    fi
done

# docs/commands.md and the page stay in step with every command's --help:
# each option of the help's usage and options is in the command's section of
# docs/commands.md; each long option either document names is one the help
# gives (or a global one); the page's synopsis shows the options of the
# help's usage, no more, no fewer.
MD=$SRC/docs/commands.md
opts() { grep -oE '(^|[ [|,(`])--?[a-zA-Z][a-z-]*' | sed 's/^[ [|,(`]//' | LC_ALL=C sort -u; }
longs() { opts | grep -- '^--'; }
global=$(printf '%s\n' -C --help --version -h -P --no-pager -q --quiet | LC_ALL=C sort -u)
md_section() {
    # from the heading naming dtk $1 to the next heading, with the heading
    awk -v c="$1" 'index($0, "## ") == 1 {
            on = index($0 " ", " dtk " c " ") > 0 }
        on' "$MD"
}
for cmd in $commands; do
    h=$("$DTK" help "$cmd" | sed -n '1,/^$/p; /^options:/,/^$/p' | opts)
    usage=$("$DTK" help "$cmd" | sed -n '1,/^$/p' | opts)
    md=$(md_section "$cmd" | grep -v '^ *\$\|git \|jq ')
    man=$(section "$cmd")
    syn=$(printf '%s\n' "$text" | awk -v h=".SY \"dtk $cmd\"" '
        index($0, h) == 1 { on = 1; next } on && /^\.YS/ { on = 0 } on' | opts)
    if [ -z "$md" ]; then
        ko "docs/commands.md has a section for dtk $cmd"
        continue
    fi
    missing=$(comm -23 <(printf '%s\n' "$h" | grep .) <(printf '%s\n' "$md" | opts) |
        tr '\n' ' ')
    [ -z "$missing" ] && ok "docs/commands.md documents every option of dtk $cmd" ||
        ko "docs/commands.md documents every option of dtk $cmd" "missing: $missing"
    for doc in md man; do
        extra=$(comm -13 <(printf '%s\n' "$h" "$global" | LC_ALL=C sort -u) \
            <(printf '%s\n' "${!doc}" | longs) | grep . | tr '\n' ' ')
        [ -z "$extra" ] && ok "$doc: no option dtk $cmd --help lacks" ||
            ko "$doc: no option dtk $cmd --help lacks" "not in the help: $extra"
    done
    [ "$usage" = "$syn" ] && ok "dtk.1's synopsis of dtk $cmd shows the usage's options" ||
        ko "dtk.1's synopsis of dtk $cmd shows the usage's options" \
            "usage: $(printf '%s ' $usage)" "synopsis: $(printf '%s ' $syn)"
done

for w in '^\.TH DTK 1' '^\.SH NAME' '^\.SH SYNOPSIS' '^\.SH DESCRIPTION' '^\.SH COMMANDS' \
    '^\.SH OPTIONS' '^\.SH EXIT STATUS' '^\.SH ENVIRONMENT' '^\.SH FILES' '^\.SH EXAMPLES' \
    '^\.SH SEE ALSO' '^\.B NO_COLOR' '^\.B DTK_THREADS' '^\.B TMPDIR' \
    '^\.I \.git/dtk-crystallize' '^\.I INDEX\.md$' '^\.BI -C " dir"' '^\.B --version'; do
    if printf '%s\n' "$text" | grep -q -- "$w"; then ok "dtk.1 has $w"
    else ko "dtk.1 has $w"; fi
done

if command -v groff >/dev/null 2>&1; then
    out=$(groff -man -Tutf8 -ww "$PAGE" 2>&1 >/dev/null)
    if [ -z "$out" ]; then ok "groff -man -Tutf8 -ww: no warning"
    else ko "groff -man -Tutf8 -ww: no warning" "$out"; fi
else
    skip "groff -man -Tutf8 -ww: no warning" "groff is not installed"
fi
if command -v man >/dev/null 2>&1 && command -v groff >/dev/null 2>&1; then
    out=$(MANWIDTH=80 man --warnings -l "$PAGE" 2>&1 >/dev/null)
    rendered=$(MANWIDTH=80 man -l "$PAGE" 2>/dev/null | grep -c .)
    if [ -z "$out" ] && [ "$rendered" -gt 100 ]; then ok "man -l renders it ($rendered lines)"
    else ko "man -l renders it" "$out" "lines: $rendered"; fi
else
    skip "man -l renders it" "man or groff is not installed"
fi

t_done
