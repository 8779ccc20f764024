#!/usr/bin/env bash
# Renders rxla's pictures in a real headless browser and checks that they
# are not blank: `rxla graph --format html` of a fused corpus module and
# `rxla opt --report` of a pipeline run, screenshotted with chromium and
# decoded by scripts/png_check.py (python3 + zlib, nothing else).
#
#   scripts/check_pictures.sh [MODULE.hlo] [--update-docs]
#
# Needs chromium (Debian: apt-get install -y chromium). --update-docs copies
# the screenshots to docs/graph.png and docs/report.png. Not part of
# `cargo test` (the Rust tests cover the SVG/HTML generation).
set -euo pipefail
cd "$(dirname "$0")/.."
module=tests/corpus/mlp.hlo
update=0
for a in "$@"; do
  case "$a" in
    --update-docs) update=1 ;;
    *) module="$a" ;;
  esac
done
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "check_pictures: no chromium found (apt-get install -y chromium)" >&2
  exit 2
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cargo build -q -p rxla-cli
rxla=${CARGO_TARGET_DIR:-target}/debug/rxla
pipeline='inline,simplify,cse,dce,fusion,buffer-assignment'

"$rxla" opt "$module" --passes=inline,fusion | "$rxla" graph - --format html > "$out/graph.html"
"$rxla" opt "$module" --passes="$pipeline" --report "$out/report.html" > /dev/null

shot() { # html png width height
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --virtual-time-budget=2000 --window-size="$3,$4" \
    --screenshot="$2" "file://$1" > /dev/null 2>&1
  test -s "$2" || { echo "check_pictures: no screenshot $2" >&2; exit 1; }
}
shot "$out/graph.html" "$out/graph.png" 1000 1100
shot "$out/report.html" "$out/report.png" 1300 2000
python3 scripts/png_check.py "$out/graph.png" 0.03 12
python3 scripts/png_check.py "$out/report.png" 0.05 20
if [ "$update" = 1 ]; then
  cp "$out/graph.png" docs/graph.png
  cp "$out/report.png" docs/report.png
  echo "check_pictures: wrote docs/graph.png and docs/report.png"
fi
echo "check_pictures: ok ($module)"
