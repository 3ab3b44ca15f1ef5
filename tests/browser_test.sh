#!/usr/bin/env bash
# browser_test.sh DTK SRCDIR: exports the shipped base and the test fixture as
# HTML and checks the sites in a real headless Chromium (Debian's): the index
# links every node page, the pages render their content, and a screenshot is
# taken. Skips (exit 0) when chromium is missing, unless CI is set.
set -u
dtk=$1 src=$2
pass=0 fail=0
check() { if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $*"; fi; }

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  if [ -n "${CI:-}" ]; then echo "chromium is missing"; echo "0 passed, 1 failed"; exit 1; fi
  echo "skipped: chromium is not installed"; echo "0 passed, 0 failed, 1 skipped"; exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chrome() {
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$tmp/profile" --hide-scrollbars "$@" 2>/dev/null
}

for base in "$src" "$src/tests/fixtures/base"; do
  site="$tmp/site-$(basename "$base")"
  check "$dtk" -C "$base" export html "$site"
  dom=$(chrome --dump-dom "file://$site/index.html")
  check grep -q "<table>" <<<"$dom"
  # every node has a link from the index, and the page it leads to renders
  for page in "$site"/*.html; do
    name=$(basename "$page")
    [ "$name" = index.html ] && continue
    check grep -q "href=\"$name\"" <<<"$dom"
    node_dom=$(chrome --dump-dom "file://$page")
    check grep -q "<h1>${name%.html}</h1>" <<<"$node_dom"
    check grep -q 'href="index.html"' <<<"$node_dom"
  done
  check grep -q '<link rel="stylesheet" href="style.css">' "$site/index.html"
  check [ -s "$site/style.css" ]
  chrome --window-size=1280,1400 --screenshot="$tmp/shot.png" "file://$site/index.html" >/dev/null
  check [ -s "$tmp/shot.png" ]
  check [ "$(head -c 8 "$tmp/shot.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
  check [ "$(stat -c %s "$tmp/shot.png")" -gt 20000 ]
done
# the fixture's node page shows an entry's claim and its source linked
check grep -q 'Communicators fix rank and size' "$tmp/site-base/alpha.html"
check grep -q '<a href="https://example.org/a">Paper A</a>' "$tmp/site-base/alpha.html"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
