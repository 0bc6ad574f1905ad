#!/usr/bin/env python3
"""Golden execution counts for every scenario checked with `dfs`.

A dfs search explores a fixed number of executions for a given scenario and build; a
change in that number means the reduction, the engine's notion of a step or the scenario
changed. Each count lives in tests/golden/dfs-counts.json with the reason it is what it
is; a changed count fails until someone updates the file and says why.

usage: check_golden_counts.py GOLDEN.json RESULTS_DIR [PREFIX]
RESULTS_DIR holds one result JSON per scenario (`lockstep check --json`). With PREFIX
(scenarios/futex/), only the golden counts of scenarios under it must have been checked.
"""
import json
import pathlib
import sys


def rows_of(result):
    return result.get("rows", [result])


def main():
    golden = json.loads(pathlib.Path(sys.argv[1]).read_text())
    counts = golden["scenarios"]
    if len(sys.argv) > 3:
        counts = {k: v for k, v in counts.items() if k.startswith(sys.argv[3])}
    seen = set()
    failures = []
    for path in sorted(pathlib.Path(sys.argv[2]).glob("*.json")):
        result = json.loads(path.read_text())
        scenario = result["scenario"]
        rows = [r for r in rows_of(result) if r.get("strategy") == "dfs"]
        if not rows:
            continue
        seen.add(scenario)
        want = counts.get(scenario)
        if want is None:
            failures.append(f"{scenario}: checked with dfs but has no golden count")
            continue
        got = [{"executions": r["executions"], "pruned": r["pruned"], "exhaustive": r["exhaustive"]} for r in rows]
        expected = [{k: row[k] for k in ("executions", "pruned", "exhaustive")} for row in want["rows"]]
        if got != expected:
            failures.append(f"{scenario}: dfs explored {got}, golden says {expected} ({want['reason']})")
        if not want.get("reason"):
            failures.append(f"{scenario}: its golden count gives no reason")
    for scenario in sorted(set(counts) - seen):
        failures.append(f"{scenario}: has a golden count but was not checked with dfs")
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
