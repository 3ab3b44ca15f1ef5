#!/usr/bin/env bash
# layers_test.sh SOURCE_DIR LIBDTK_CORE: the structure docs/design.md draws
# holds, read from its table ("Modules and layers": each file's row and
# layer, and the exceptions) and from the symbols of libdtk_core.a (nm):
#   - every file is in a row of the table, and includes no header of a
#     higher layer than its own;
#   - no object calls (or reads) a symbol an object of a higher layer
#     defines, and no two modules call each other round a circle, but for
#     the exceptions the table names (a symbol and who uses it);
#   - every header names its module: src/<m>.c (or src/<m>_*.c) exists for
#     include/dtk/<m>.h and src/<m>.h (and src/<m>_int.h, internal to m);
#   - only the modules that wrap a library include its header: <yaml.h>
#     ytree (its .c files and ytree_int.h) and yemit, <cmark-gfm.h> markdown,
#     <git2.h> gitlib.h, <microhttpd.h> mcp_http.c, <jansson.h> jsonread and
#     the MCP server.
# A file's row is its name, or the longest row name it starts with followed
# by '_' (crystal_plan.c has its own row, similar_terms.c is similar's),
# or <row>_<name> when the table has that row (cmd_show.c: cmd_<name>). Its
# module is the longest header name it so starts with (kb_read.c is kb's),
# else its row; a row <row>_<name> is a module of its own (the commands).
set -u
SRC=$(cd "${1:?usage: layers_test.sh SOURCE_DIR LIBDTK_CORE}" && pwd)
LIB=$(realpath "${2:?usage: layers_test.sh SOURCE_DIR LIBDTK_CORE}")
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL - $1"; }
cd "$SRC" || exit 2

# the table: "layer row", and "except symbol user"
declare -A layer except
table=$(awk '/^## Modules and layers/ { on = 1; next } on && /^## / { exit }
	on && /^```/ { block = !block; next }
	on && block && /^exceptions/ { ex = 1; next }
	on && block && /^[0-9] / { ex = 0; n = $1; next }
	on && block && ex && $3 == "by" { sub(/:$/, "", $4); print "except", $1, $4; next }
	on && block && !ex && /^  [a-z_<>]+\.c / { sub(/\.c$/, "", $1); print n, $1 }' docs/design.md)
while read -r a b c; do
    if [ "$a" = except ]; then except[$b]+=" ${c%.c}"; else layer[$b]=$a; fi
done <<<"$table"
[ "${#layer[@]}" -gt 20 ] && ok || ko "docs/design.md: no table of layers read"

# header names: the modules
declare -A ismod
for h in include/dtk/*.h src/*.h; do
    m=$(basename "$h" .h)
    ismod[${m%_int}]=1
done

# place NAME (a file's or an object's base name): sets row and mod ("" when none)
declare -A rowof modof
place() {
    local base=$1 m r=""
    if [ -z "${rowof[$base]+set}" ]; then
        for m in "${!layer[@]}"; do
            if [ "$base" = "$m" ] || [[ $base == "${m}_"* ]]; then
                [ ${#m} -gt ${#r} ] && r=$m
            fi
        done
        [ -n "$r" ] && [ "$base" != "$r" ] && [ -n "${layer[${r}_<name>]+set}" ] && r="${r}_<name>"
        rowof[$base]=$r
        if [[ $r == *"_<name>" ]]; then
            modof[$base]=$r
        else
            r=""
            for m in "${!ismod[@]}"; do
                if [ "$base" = "$m" ] || [[ $base == "${m}_"* ]]; then
                    [ ${#m} -gt ${#r} ] && r=$m
                fi
            done
            modof[$base]=${r:-${rowof[$base]}}
        fi
    fi
    row=${rowof[$base]}
    mod=${modof[$base]}
}
base() { local b=${1##*/}; echo "${b%%.*}"; }
# obj WHERE (nm -A's "lib:obj.c.o:" or "lib:obj.c.o:address"): the object's base name
obj() { local w=${1%:*}; base "${w##*:}"; }

# includes
for f in src/*.c src/*.h include/dtk/*.h; do
    place "$(base "$f")"
    r=$row
    if [ -z "$r" ]; then
        ko "$f is in no row of the table"
        continue
    fi
    ok
    while IFS= read -r h; do
        place "$(base "$h")"
        if [ -z "$row" ]; then
            ko "$f includes $h, in no row"
        elif [ "${layer[$row]}" -gt "${layer[$r]}" ]; then
            ko "$f (layer ${layer[$r]}) includes $h (layer ${layer[$row]})"
        else
            ok
        fi
    done < <(sed -n 's/^#include "\(dtk\/\)\{0,1\}\([^"]*\)"/\2/p' "$f")
done

# calls: who defines each symbol, who uses it
[ -f "$LIB" ] && ok || ko "$LIB: no such library"
declare -A def edge
nm -A "$LIB" >/tmp/layers-nm.$$ 2>/dev/null || ko "nm $LIB failed"
while read -r where t sym; do
    [ -n "$sym" ] || continue
    case $t in [TDRBCGV]) def[$sym]=$(obj "$where") ;; esac
done < <(awk '{ print $1, $(NF - 1), $NF }' /tmp/layers-nm.$$)
while read -r where sym; do
    d=${def[$sym]:-}
    [ -n "$d" ] || continue
    u=$(obj "$where")
    [ "$u" = "$d" ] && continue
    place "$u"
    urow=$row umod=$mod
    place "$d"
    drow=$row dmod=$mod
    if [ -z "$urow" ] || [ -z "$drow" ]; then
        ko "$u.c or $d.c is in no row of the table"
        continue
    fi
    skip=0
    for x in "${!except[@]}"; do
        # shellcheck disable=SC2053 # x is a pattern: <name> stands for any
        if [[ $sym == ${x//<name>/*} ]] && [[ " ${except[$x]} " == *" $u "* || " ${except[$x]} " == *" $umod "* ]]; then
            skip=1
        fi
    done
    [ "$skip" = 1 ] && continue
    if [ "${layer[$drow]}" -gt "${layer[$urow]}" ]; then
        ko "$u.c (layer ${layer[$urow]}) uses $sym of $d.c (layer ${layer[$drow]})"
    elif [ "$umod" != "$dmod" ]; then
        edge["$umod $dmod"]=$sym
        ok
    fi
done < <(awk '$(NF - 1) == "U" { print $1, $NF }' /tmp/layers-nm.$$)
rm -f /tmp/layers-nm.$$

# circles: a module that reaches itself through another
circles=$(for e in "${!edge[@]}"; do echo "$e ${edge[$e]}"; done | awk '
	{ n[$1] = n[$2] = 1; r[$1, $2] = 1; why[$1, $2] = $3 }
	END {
		for (k in n) for (i in n) if ((i, k) in r) for (j in n) if ((k, j) in r) r[i, j] = 1
		for (i in n) for (j in n) if (i < j && (i, j) in r && (j, i) in r) {
			s = i " <-> " j
			if ((i, j) in why) s = s " (" i " uses " why[i, j] ")"
			if ((j, i) in why) s = s " (" j " uses " why[j, i] ")"
			print s
		}
	}')
if [ -n "$circles" ]; then
    while IFS= read -r c; do ko "modules call each other round a circle: $c"; done <<<"$circles"
else
    ok
fi

# every header has its source of the same name (src/<m>_int.h, what the
# files of module m share, has m's)
for h in include/dtk/*.h src/*.h; do
    m=$(basename "$h" .h)
    m=${m%_int}
    if [ -f "src/$m.c" ] || compgen -G "src/${m}_*.c" >/dev/null; then ok
    else ko "$h has no src/$m.c (nor src/${m}_*.c)"; fi
done

# the library headers, each in its wrapper only
check_lib() {
    local lib=$1 f
    shift
    for f in $(grep -l "^#include <$lib>" src/*.c src/*.h include/dtk/*.h); do
        case " $* " in *" $(basename "$f") "*) ok ;; *) ko "$f includes <$lib>" ;; esac
    done
}
check_lib yaml.h ytree.c ytree_error.c ytree_int.h yemit.c
check_lib cmark-gfm.h markdown.c
check_lib git2.h gitlib.h
check_lib microhttpd.h mcp_http.c
check_lib jansson.h jsonread.c mcp.c mcp_tools.h mcp_prompts.h

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
