#!/usr/bin/env bash
# layers_test.sh SOURCE_DIR: the structure docs/design.md draws holds.
#   - every module is in a layer (the table below, the same as design.md's),
#     and a file includes no header of a higher layer than its own;
#   - every header names its module: src/<m>.c (or src/<m>_*.c) exists for
#     include/dtk/<m>.h and src/<m>.h (and src/<m>_int.h, internal to m),
#     and every source file belongs to one;
#   - only the modules that wrap a library include its header: <yaml.h>
#     ytree and yemit, <cmark-gfm.h> markdown, <git2.h> gitlib.h,
#     <microhttpd.h> mcp_http.c.
# A file's module is its name, or the longest module name it starts with
# followed by '_' (cmd_show.c is cmd's, crystal_plan.c crystal's).
set -u
SRC=$(cd "${1:?usage: layers_test.sh SOURCE_DIR}" && pwd)
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL - $1"; }

# The layers, lowest first: what each may build on is below it.
layers=(
    "dtk invisible"                            # 0 base: errors, buffers, diagnostics
    "fs lock cache pager self diffview git gitlib gitenv gitcommit repo
     ytree yemit ytext markdown json jsonread linebreak" # 1 the wrappers
    "model schema links lang pack nodesum"     # 2 the model, its schema, its summaries
    "kb nodecache search similar index view" # 3 loading and checking
    "yedit merge crystal export"               # 4 editing, merging, crystallizing
    "cmd write mcp main"                       # 5 the commands and the MCP server
)
declare -A layer
for i in "${!layers[@]}"; do
    for m in ${layers[$i]}; do layer[$m]=$i; done
done

# module FILE: sets mod to the module a file belongs to ("" when none)
declare -A memo
module() {
    local base=${1##*/} m
    base=${base%.*}
    if [ -z "${memo[$base]+set}" ]; then
        memo[$base]=""
        for m in "${!layer[@]}"; do
            if [ "$base" = "$m" ] || [[ $base == "${m}_"* ]]; then
                [ ${#m} -gt ${#memo[$base]} ] && memo[$base]=$m
            fi
        done
    fi
    mod=${memo[$base]}
}

cd "$SRC" || exit 2
for f in src/*.c src/*.h include/dtk/*.h; do
    module "$f"
    m=$mod
    if [ -z "$m" ]; then
        ko "$f belongs to no module of the layers"
        continue
    fi
    ok
    while IFS= read -r h; do
        module "$h"
        hm=$mod
        if [ -z "$hm" ]; then
            ko "$f includes $h, of no module"
        elif [ "${layer[$hm]}" -gt "${layer[$m]}" ]; then
            ko "$f ($m, layer ${layer[$m]}) includes $h ($hm, layer ${layer[$hm]})"
        else
            ok
        fi
    done < <(sed -n 's/^#include "\(dtk\/\)\{0,1\}\([^"]*\)"/\2/p' "$f")
done

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
check_lib yaml.h ytree.c yemit.c
check_lib cmark-gfm.h markdown.c
check_lib git2.h gitlib.h
check_lib microhttpd.h mcp_http.c

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
