#!/usr/bin/env bash
# configure_test.sh SOURCE_DIR: CMake configures dtk with any libgit2 that
# pkg-config hands it (docs/install.md): DTK_LINK_LIBGIT2 defaults to OFF
# (run-time loading) where the SONAME can be read the ELF way, and to ON where
# it cannot: a static libgit2.a (that build is also linked and run), objdump
# unable to read it. An explicit DTK_LINK_LIBGIT2=OFF that cannot work fails
# saying why. Prints one line per check and "N passed, M failed" last.
set -u
[ $# -eq 1 ] || { echo "usage: $0 <source dir>" >&2; exit 2; }
SRC=$(cd "$1" && pwd)
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   - $1"; }
ko() { fail=$((fail + 1)); echo "FAIL - $1"; shift; printf '       %s\n' "$@"; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/dtk-configure.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT

# configure NAME WANT-LINK [CMAKE ARGS...]: configures into $scratch/NAME and
# checks that it succeeds with DTK_LINK_LIBGIT2 as WANT-LINK (ON or OFF).
configure()
{
    local name=$1 want=$2 got
    shift 2
    if ! cmake -S "$SRC" -B "$scratch/$name" -DDTK_BENCH=OFF -DBUILD_TESTING=OFF "$@" \
        >"$scratch/$name.log" 2>&1; then
        ko "$name: configure succeeds" "$(tail -n 15 "$scratch/$name.log")"
        return 1
    fi
    got=$(sed -n 's/^DTK_LINK_LIBGIT2:BOOL=//p' "$scratch/$name/CMakeCache.txt")
    if [ "$got" = "$want" ]; then ok "$name: configured, DTK_LINK_LIBGIT2=$want"
    else ko "$name: DTK_LINK_LIBGIT2=$want" "got '$got'"; return 1; fi
}

# 1. The system's libgit2 as pkg-config gives it (a shared library on ELF).
configure system OFF

# 2. objdump cannot read the SONAME: linked, configure does not fail.
printf '#!/bin/sh\nexit 1\n' >"$scratch/fake-objdump"
chmod +x "$scratch/fake-objdump"
configure no-objdump ON -DCMAKE_OBJDUMP="$scratch/fake-objdump"
if grep -q "run-time loading is not possible here: cannot read the SONAME" \
    "$scratch/no-objdump.log"; then ok "no-objdump: configure says why it links"
else ko "no-objdump: configure says why it links" "$(grep -i libgit2 "$scratch/no-objdump.log")"; fi

# 3. A .pc naming only a static libgit2.a (beside nothing else): linked with
#    pkg-config's static flags; the binary is built and runs git commands.
libdir=$(pkg-config --variable=libdir libgit2 2>/dev/null)
if [ -n "$libdir" ] && [ -f "$libdir/libgit2.a" ]; then
    # Debian's libgit2.pc omits GSSAPI from Libs.private (libgit2 1.5.1 is
    # built with it): the fixture names it, as a complete static .pc would
    gss=
    [ -f "$libdir/libgssapi_krb5.so.2" ] && gss=-l:libgssapi_krb5.so.2
    mkdir -p "$scratch/pc" "$scratch/lib"
    ln -s "$libdir/libgit2.a" "$scratch/lib/libgit2.a"
    {
        echo "Name: libgit2"
        echo "Description: libgit2, static only"
        echo "Version: $(pkg-config --modversion libgit2)"
        echo "Libs: -L$scratch/lib -lgit2"
        echo "Libs.private: $(pkg-config --static --libs-only-L --libs-only-l libgit2 |
            sed 's/-lgit2//') $gss"
        echo "Cflags: $(pkg-config --cflags libgit2)"
    } >"$scratch/pc/libgit2.pc"
    export PKG_CONFIG_PATH="$scratch/pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    if configure static ON; then
        if cmake --build "$scratch/static" --target dtk -j2 >"$scratch/static-build.log" 2>&1; then
            ok "static: dtk builds linked with libgit2.a"
            if readelf -d "$scratch/static/dtk" 2>/dev/null | grep -q 'NEEDED.*libgit2'; then
                ko "static: no NEEDED entry for libgit2 (it is inside dtk)"
            else ok "static: no NEEDED entry for libgit2 (it is inside dtk)"; fi
            repo=$scratch/repo
            cp -R "$SRC/tests/fixtures/base" "$repo"
            (cd "$repo" && git init -q && git add -A &&
                git -c user.name=t -c user.email=t@example.org commit -q -m base)
            out=$(cd "$repo" && "$scratch/static/dtk" log 2>&1)
            if [ $? -eq 0 ] && printf '%s\n' "$out" | grep -q '^2026-07-01'; then
                ok "static: dtk log runs"
            else ko "static: dtk log runs" "$out"; fi
        else
            ko "static: dtk builds linked with libgit2.a" "$(tail -n 15 "$scratch/static-build.log")"
        fi
    fi
    # asked to load at run time where it cannot: an error that says why
    if cmake -S "$SRC" -B "$scratch/static-off" -DDTK_BENCH=OFF -DBUILD_TESTING=OFF \
        -DDTK_LINK_LIBGIT2=OFF >"$scratch/static-off.log" 2>&1; then
        ko "static, DTK_LINK_LIBGIT2=OFF: configure fails"
    elif grep -q "DTK_LINK_LIBGIT2=OFF needs the SONAME of libgit2" "$scratch/static-off.log"; then
        ok "static, DTK_LINK_LIBGIT2=OFF: configure fails saying why"
    else ko "static, DTK_LINK_LIBGIT2=OFF: configure fails saying why" \
        "$(tail -n 10 "$scratch/static-off.log")"; fi
else
    echo "skip - no static libgit2.a next to the shared one: the static build is not tested"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
