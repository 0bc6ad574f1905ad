#!/usr/bin/env bash
# The estimator (model/search_estimate.hpp) against the search it estimates, on every
# benchmark program: dfs's count and time to the verdict (no estimate before it), then the
# estimate `lockstep check --estimate --probes 8` gives (4 M re-run steps a probe) and the one a
# plain `lockstep check` makes before searching (2 probes, a fortieth of that budget), each with
# its 95% interval, its error against the count, and its time as a share of the search's.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
release_lockstep
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-22s %-4s %9s %7s | %-34s | %s\n' program row count search "check --estimate" "before a plain check"
for f in mc-mutex3 mc-four-threads mc-four-threads-7 mc-fib mc-fib-tso; do
  build/bin/lockstep check "scenarios/bench/$f.yaml" --quiet --probes 0 --out-dir "$out" --json "$out/dfs.json"
  build/bin/lockstep check "scenarios/bench/$f.yaml" --quiet --estimate --probes 8 --out-dir "$out" --json "$out/est.json"
  build/bin/lockstep check "scenarios/bench/$f.yaml" --quiet --out-dir "$out" --json "$out/pre.json"
  python3 - "$f" "$out" <<'PY'
import json, sys
f, out = sys.argv[1], sys.argv[2]
def rows(name):
    d = json.load(open(f"{out}/{name}.json"))
    return d.get("rows", [d])
for dfs, est, pre in zip(rows("dfs"), rows("est"), rows("pre")):
    n, t = dfs["executions"], dfs["elapsed_s"]
    def show(e):
        err = 100 * (e["executions"] - n) / n
        return (f"{e['executions']:>9,.0f} +-{100 * e['relative']:>3.0f}% {err:+6.1f}% "
                f"{e['elapsed_s']:5.2f} s {100 * e['elapsed_s'] / t:4.0f}%")
    label = ",".join(str(v) for v in dfs.get("params", {}).values())[:4] or "-"
    print(f"{f:<22} {label:<4} {n:>9,} {t:6.2f}s | {show(est['estimate'])} | {show(pre['estimate'])}")
PY
done
