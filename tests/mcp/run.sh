#!/usr/bin/env bash
# run.sh DTK SOURCE_DIR [TEST.mjs...]: runs the real clients' tests of 'dtk
# mcp' with node's test runner: client_test.mjs (the official MCP TypeScript
# SDK), agents_test.mjs (the OpenAI Agents SDK and the Vercel AI SDK),
# inspector_test.mjs (MCP Inspector's CLI, on the Node 22 of the npm package
# node@22), or the files named; http_test.mjs (--http: the conformance suite,
# the SDK's HTTP client, hostile requests) runs on its own. All come from
# package-lock.json: 'npm ci' here when node_modules does not match it
# (scripts/deps does it too).
set -euo pipefail
dtk=$1
src=$2
cd "$src/tests/mcp"
command -v node >/dev/null && command -v npm >/dev/null ||
    { echo "node and npm are needed: run scripts/deps" >&2; exit 1; }
if [ ! -f node_modules/@modelcontextprotocol/sdk/package.json ] ||
    [ ! -x node_modules/node/bin/node ] ||
    ! cmp -s package-lock.json node_modules/.package-lock.json.dtk; then
    npm ci --no-audit --no-fund --loglevel=error >&2
    cp package-lock.json node_modules/.package-lock.json.dtk
fi
shift 2
[ $# -gt 0 ] || set -- client_test.mjs agents_test.mjs inspector_test.mjs
DTK=$dtk DTK_SRC=$src exec node --test "$@"
