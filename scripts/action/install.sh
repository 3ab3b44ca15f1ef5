#!/usr/bin/env bash
# install.sh: what action.yml's install step runs. Installs the Debian or
# Ubuntu packages dtk builds and runs with (only those missing: apt-get, with
# sudo when not root), then builds dtk from the action's own checkout
# (DTK_SRC, default GITHUB_ACTION_PATH) into DTK_PREFIX (default
# ~/.cache/dtk-action, what action.yml caches), unless DTK_PREFIX/bin/dtk is
# there already (the cache of an earlier run of the same sources) and runs. Prints the binary's
# path as 'dtk=<path>' into GITHUB_OUTPUT when that is set, else on
# standard output.
set -euo pipefail
src=${DTK_SRC:-${GITHUB_ACTION_PATH:?neither DTK_SRC nor GITHUB_ACTION_PATH is set}}
prefix=${DTK_PREFIX:-$HOME/.cache/dtk-action}

packages=(build-essential cmake pkg-config git ca-certificates libyaml-dev
  libcmark-gfm-dev libcmark-gfm-extensions-dev libgit2-dev libjansson-dev libutf8proc-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  echo "installing: ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

dtk=$prefix/bin/dtk
if [ -x "$dtk" ] && "$dtk" --version >/dev/null 2>&1; then
  echo "dtk: $("$dtk" --version) (cached)"
else
  build=$(mktemp -d)
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DDTK_BENCH=OFF \
    -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
  cmake --build "$build" -j"$(nproc)" >/dev/null
  mkdir -p "$prefix/bin"
  cp "$build/dtk" "$dtk"
  rm -rf "$build"
  echo "dtk: $("$dtk" --version) (built)"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "dtk=$dtk" >>"$GITHUB_OUTPUT"
else
  echo "dtk=$dtk"
fi
