#!/bin/sh
# shellcheck_test.sh SOURCE_DIR: the hook scripts dtk setup-git installs
# (src/hooks/*.sh and contrib/pre-commit, built into dtk) pass shellcheck as
# POSIX sh, the GitHub Action's (scripts/action/*.sh) as bash. Exits 77
# (reported as skipped) when shellcheck is not installed.
command -v shellcheck >/dev/null || { echo "shellcheck is not installed: skipped"; exit 77; }
shellcheck --shell=sh --severity=style "$1"/src/hooks/*.sh "$1"/contrib/pre-commit &&
    echo "src/hooks/*.sh, contrib/pre-commit: shellcheck clean" &&
    shellcheck --severity=style "$1"/scripts/action/*.sh && echo "scripts/action/*.sh: shellcheck clean"
