#!/usr/bin/env bash
# configure_test.sh SOURCE_DIR: CMake configures dtk with any libgit2 that
# pkg-config hands it (docs/install.md): the shared library, and a .pc naming
# only a static libgit2.a (that build is also linked and run). Prints one line
# per check and "N passed, M failed" last.
set -u
[ $# -eq 1 ] || { echo "usage: $0 <source dir>" >&2; exit 2; }
SRC=$(cd "$1" && pwd)
. "$(dirname "$0")/lib.sh"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/dtk-configure.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT

# configure NAME [CMAKE ARGS...]: configures into $scratch/NAME and checks
# that it succeeds.
configure()
{
    local name=$1
    shift
    if cmake -S "$SRC" -B "$scratch/$name" -DDTK_BENCH=OFF -DBUILD_TESTING=OFF "$@" \
        >"$scratch/$name.log" 2>&1; then
        ok "$name: configured"
    else
        ko "$name: configure succeeds" "$(tail -n 15 "$scratch/$name.log")"
        return 1
    fi
}

# 1. The system's libgit2 as pkg-config gives it.
configure system

# 2. A .pc naming only a static libgit2.a (beside nothing else): linked with
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
    if configure static; then
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
else
    skip "static: dtk builds linked with libgit2.a" "no static libgit2.a next to the shared one"
fi

t_done
