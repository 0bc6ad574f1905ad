#!/bin/sh
# The viewer's footprint on a big trace: it reads a trace as it streams and keeps compact
# records (gui/model/trace.hpp), so opening and painting a trace must take less memory than
# the file's size plus the viewer's own (Qt's libraries and an empty window, measured here on
# a one-line scenario's trace). Before the reader streamed, peak memory was 2.6 times the
# file (docs/traces.md, "How large a trace the viewer opens").
#   footprint_test.sh LOCKSTEP LOCKSTEP_VIEW SOURCE_DIR
set -eu
lockstep=$1 view=$2 src=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export QT_QPA_PLATFORM=offscreen
"$lockstep" run "$src/scenarios/basics/racy-counter.yaml" --trace "$dir/small.jsonl" -q
"$lockstep" run "$src/scenarios/bench/sim-speed.yaml" --trace "$dir/big.jsonl" -q
peak() { /usr/bin/time -f %M -o "$dir/rss" "$view" --screenshot "$dir/shot.png" "$1" >/dev/null 2>&1; cat "$dir/rss"; }
base_kb=$(peak "$dir/small.jsonl")
big_kb=$(peak "$dir/big.jsonl")
file_kb=$(( $(wc -c < "$dir/big.jsonl") / 1024 ))
echo "trace ${file_kb} KB: viewer peak ${big_kb} KB, of which ${base_kb} KB the viewer's own"
if [ $(( big_kb - base_kb )) -ge "$file_kb" ]; then
  echo "FAIL: the viewer kept more than the file's size (${big_kb} - ${base_kb} >= ${file_kb} KB)"
  exit 1
fi
