#!/usr/bin/env bash
# contact_test.sh DTK SOURCE_DIR: what a new user meets first holds:
#   - contrib/github-workflow.yml installs every package the build needs
#     (each library CMakeLists.txt requires, as dpkg names its owner) and
#     only packages scripts/deps knows;
#   - README.md's command table lists every command of 'dtk --help';
#   - scripts/setup installs no Node.js and runs no npm (scripts/test's
#     dependency step does, for the MCP client tests).
set -u

. "$(dirname "$0")/lib.sh"
t_args "$@"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/dtk-contact.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT

# ---- the workflow's packages against the build's requirements
wf=$SRC/contrib/github-workflow.yml
# the words of the "apt-get install" command (its continuation lines too)
awk '/apt-get install/ { on = 1 } on { print; if ($0 !~ /\\$/) on = 0 }' "$wf" |
    tr ' \\' '\n\n' | grep -E '^[a-z0-9][a-z0-9.+-]+$' |
    grep -vxE 'apt-get|install|DEBIAN_FRONTEND=noninteractive' | sort -u >"$scratch/wf"
# pkg_check_modules(... REQUIRED IMPORTED_TARGET module...) and find_library(NAMES lib)
sed -n 's/^pkg_check_modules([A-Z0-9_]* REQUIRED IMPORTED_TARGET \([^ )]*\).*/\1/p' \
    "$SRC/CMakeLists.txt" | sed 's/[<>=].*//' >"$scratch/modules"
sed -n 's/^find_library([A-Z0-9_]* NAMES \([^ )]*\).*/\1/p' "$SRC/CMakeLists.txt" >"$scratch/libs"
if [ "$(wc -l <"$scratch/modules")" -lt 5 ] || ! [ -s "$scratch/libs" ]; then
    ko "the build's requirements are read from CMakeLists.txt" "$(cat "$scratch/modules" "$scratch/libs")"
elif ! command -v dpkg >/dev/null; then
    echo "skip - no dpkg: the package of each requirement cannot be found"
else
    : >"$scratch/need"
    while read -r m; do
        pc=$(pkg-config --variable=pcfiledir "$m")/$m.pc
        dpkg -S "$pc" 2>/dev/null | sed 's/:.*//' >>"$scratch/need" ||
            echo "?$m" >>"$scratch/need"
    done <"$scratch/modules"
    while read -r l; do
        so=$(find /usr/lib /usr/local/lib -name "lib$l.so" 2>/dev/null | head -n 1)
        { [ -n "$so" ] && dpkg -S "$so" 2>/dev/null | sed 's/:.*//'; } >>"$scratch/need" ||
            echo "?$l" >>"$scratch/need"
    done <"$scratch/libs"
    printf '%s\n' cmake pkg-config build-essential git >>"$scratch/need"
    missing=$(sort -u "$scratch/need" | comm -23 - "$scratch/wf")
    if [ -z "$missing" ]; then ok "the workflow installs every package the build requires"
    else ko "the workflow installs every package the build requires" "missing: $missing"; fi
fi
sed -n '/^packages=(/,/^)/p' "$SRC/scripts/deps" | tr ' ()' '\n\n\n' |
    grep -E '^[a-z0-9][a-z0-9.+-]+$' | sort -u >"$scratch/deps"
extra=$(comm -23 "$scratch/wf" "$scratch/deps")
if [ -z "$extra" ] && [ -s "$scratch/deps" ]; then ok "the workflow's packages are among scripts/deps'"
else ko "the workflow's packages are among scripts/deps'" "not in scripts/deps: $extra"; fi

# ---- README.md's command table: every command, in a group
"$DTK" --help | awk '/^commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }' >"$scratch/cmds"
for c in $(cat "$scratch/cmds"); do
    if grep -qE "^\| ([^|]* / )?\`dtk $c( |\`)" "$SRC/README.md"; then ok "README.md's table has dtk $c"
    else ko "README.md's table has dtk $c"; fi
done
for g in read write git agents; do
    if grep -qE "^\| \*\*$g\*\* " "$SRC/README.md"; then ok "README.md's table has the group $g"
    else ko "README.md's table has the group $g"; fi
done

# ---- scripts/deps as scripts/setup runs it: no Node.js, no npm; as
#      scripts/test runs it (--test): both. Run with stand-ins for dpkg-query
#      (nothing installed), apt-get, sudo and npm that log their arguments,
#      on a PATH without node.
stub=$scratch/stub
mkdir -p "$stub" "$scratch/tree/scripts" "$scratch/tree/tests/mcp"
cp "$SRC/scripts/deps" "$scratch/tree/scripts/deps"
for t in dirname grep id cp bash env; do ln -s "$(command -v $t)" "$stub/$t"; done
printf '#!/bin/sh\nexit 1\n' >"$stub/dpkg-query"
for t in apt-get sudo npm; do
    printf '#!/bin/sh\necho "%s $*" >>"%s/log"\n' "$t" "$scratch" >"$stub/$t"
done
printf '#!/bin/sh\n[ "$1" = apt-get ] && shift; echo "apt-get $*" >>"%s/log"\n' "$scratch" >"$stub/sudo"
chmod +x "$stub"/*
deps() {
    : >"$scratch/log"
    PATH=$stub "$stub/bash" "$scratch/tree/scripts/deps" "$@" >/dev/null 2>&1
}
deps
if [ -s "$scratch/log" ] && ! grep -qE '\b(nodejs|npm)\b' "$scratch/log"; then
    ok "scripts/deps (for scripts/setup) installs no Node.js and runs no npm"
else
    ko "scripts/deps (for scripts/setup) installs no Node.js and runs no npm" "$(cat "$scratch/log")"
fi
rm -f "$stub/npm"
deps --test
if grep -q 'install .*nodejs' "$scratch/log"; then ok "scripts/deps --test installs Node.js"
else ko "scripts/deps --test installs Node.js" "$(cat "$scratch/log")"; fi
if grep -qE '^(scripts/deps|"\$here"/scripts/deps)$' "$SRC/scripts/setup" &&
    ! grep -nE '\b(npm|nodejs)\b' "$SRC/scripts/setup"; then
    ok "scripts/setup runs scripts/deps without --test, and no npm"
else
    ko "scripts/setup runs scripts/deps without --test, and no npm"
fi
if grep -qE '^scripts/deps --test' "$SRC/scripts/test"; then ok "scripts/test runs scripts/deps --test"
else ko "scripts/test runs scripts/deps --test"; fi

t_done
