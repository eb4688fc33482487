#!/usr/bin/env bash
# Renders every Graphviz file of a dump folder (JX_DUMP with JX_DUMP_FORMAT=dot, or
# build/examples/plans' output) to SVG beside it, with Debian's graphviz (apt-get install
# graphviz). Usage: scripts/render_dumps.sh <folder> [<folder>...]
set -euo pipefail
if ! command -v dot > /dev/null; then
  echo "render_dumps.sh: Graphviz's dot is not installed (apt-get install graphviz)" >&2
  exit 1
fi
[ $# -ge 1 ] || { echo "usage: $0 <folder> [<folder>...]" >&2; exit 2; }
for folder in "$@"; do
  shopt -s nullglob
  files=("$folder"/*.dot)
  [ ${#files[@]} -gt 0 ] || echo "render_dumps.sh: no .dot files in $folder" >&2
  for f in "${files[@]}"; do
    dot -Tsvg "$f" -o "${f%.dot}.svg"
    echo "${f%.dot}.svg"
  done
done
