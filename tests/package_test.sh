#!/usr/bin/env bash
# package_test.sh BUILD_DIR SOURCE_DIR: 'cpack -G DEB' in the build
# directory makes a package; unpacked with 'dpkg-deb -x', its dtk runs
# (--version, and check on the shipped base), 'man -l' renders its page, and
# it holds the completions and dtk-pre-commit. Exits 77 (skipped) without
# cpack, dpkg-deb or man.
set -u

for t in cpack dpkg-deb man; do
    command -v "$t" >/dev/null || { echo "$t is not installed: skipped"; exit 77; }
done
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   - $1"; }
ko() { fail=$((fail + 1)); echo "FAIL - $1"; shift; printf '       %s\n' "$@"; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/dtk-package.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT

(cd "$scratch" && cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$scratch/out") \
    >"$scratch/log" 2>&1 || { ko "cpack -G DEB" "$(tail -n 20 "$scratch/log")"; echo "0 passed, 1 failed"; exit 1; }
deb=$(ls "$scratch"/out/dtk_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] && ok "cpack -G DEB makes $(basename "$deb")" || ko "cpack -G DEB makes a package" "$(ls -R "$scratch/out")"
deps=$(dpkg-deb -f "$deb" Depends)
case ", $deps," in
*", git,"*libgit2*libyaml*) ok "its Depends name the libraries and git: $deps" ;;
*) ko "its Depends name the libraries and git" "$deps" ;;
esac
dpkg-deb -x "$deb" "$scratch/root"
for f in usr/bin/dtk usr/bin/dtk-pre-commit usr/share/man/man1/dtk.1 \
    usr/share/bash-completion/completions/dtk usr/share/zsh/site-functions/_dtk; do
    [ -f "$scratch/root/$f" ] && ok "it holds /$f" || ko "it holds /$f"
done
out=$("$scratch/root/usr/bin/dtk" --version 2>&1)
case $out in "dtk "[0-9]*) ok "its dtk runs: $out" ;; *) ko "its dtk runs" "$out" ;; esac
cp -R "$SRC/insights" "$SRC/INDEX.md" "$scratch/"
out=$(cd "$scratch" && "$scratch/root/usr/bin/dtk" check 2>&1) && ok "its dtk checks the shipped base" ||
    ko "its dtk checks the shipped base" "$out"
out=$(MANWIDTH=80 man -l "$scratch/root/usr/share/man/man1/dtk.1" 2>&1 >/dev/null)
if [ -z "$out" ] && MANWIDTH=80 man -l "$scratch/root/usr/share/man/man1/dtk.1" 2>/dev/null | grep -q 'dtk check'; then
    ok "man -l renders its page, without a warning"
else
    ko "man -l renders its page, without a warning" "$out"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
