#!/usr/bin/env bash
# The bundled scenarios of one directory of scenarios/, end to end: each matches its expect
# (exit code agrees with `matched`), two runs give the same trace hashes, every dfs row
# explores its golden number of executions, and the directory's own claims hold (futex: the
# flagship figures; litmus: SB's count). One ctest entry per directory (tests/CMakeLists.txt),
# so that `make test -j` runs them side by side.
# Usage: scenarios_test.sh LOCKSTEP SOURCE_DIR DIRECTORY (relative to SOURCE_DIR, e.g. scenarios/futex)
set -uo pipefail
lockstep=$1
src=$2
dir=$3
# shellcheck source=tests/cli/common.sh
source "$(dirname "$0")/common.sh"
json_field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d=d[0] if isinstance(d,list) else d; print(d$2)" "$1"; }
[[ -d $dir ]] || { echo "no directory $dir"; exit 1; }

# A long-running scenario (first line "# lockstep: long-running") runs once: its timed rows
# are re-run traced by the runner itself, which fails on any divergence. A benchmark's input
# (first line "# lockstep: benchmark", scenarios/bench/long/) runs for minutes under bench/'s
# scripts: here it is only loaded (scenarios.schema validates it, and the fuzz target's seed
# replay loads it with lockstep's own loader).
while IFS= read -r f; do
  head -1 "$f" | grep -q '^# lockstep: benchmark' && continue
  # A native scenario (`platform: native`) runs on this host's threads: exit 0, and every row
  # measured something. Its numbers are the host's, so there is no determinism to check.
  if grep -q '^platform: native' "$f"; then
    "$lockstep" native "$f" --quiet --out-dir "$work/n" --json "$work/n.json"; code=$?
    [[ $code -eq 0 ]] && pass || fail "$f: lockstep native exit $code"
    if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); rows=d.get('rows',[d]); \
assert d['platform'] == 'native' and all(r.get('ops_per_s', r.get('round_trips_per_s', r.get('hops_per_s', r.get('header_ns', 0)))) > 0 for r in rows), rows" \
      "$work/n.json"; then pass; else fail "$f: some native row measured nothing"; fi
    continue
  fi
  "$lockstep" check "$f" --quiet --out-dir "$work/a" --json "$work/a.json"; code_a=$?
  if head -1 "$f" | grep -q '^# lockstep: long-running'; then
    cp "$work/a.json" "$work/b.json"; code_b=$code_a
  else
    "$lockstep" check "$f" --quiet --out-dir "$work/b" --json "$work/b.json"; code_b=$?
  fi
  matched=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['matched'])" "$work/a.json")
  if [[ $matched == True && $code_a -ne 0 ]] || [[ $matched == False && $code_a -ne 1 ]]; then
    fail "$f: exit code $code_a but matched=$matched"
  else pass; fi
  [[ $code_a -eq 0 ]] || fail "$f: the bundled scenario does not match its expect (exit $code_a)"
  hashes_a=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([r['trace_sha256'] for r in d.get('rows',[d])])" "$work/a.json")
  hashes_b=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([r['trace_sha256'] for r in d.get('rows',[d])])" "$work/b.json")
  if [[ "$hashes_a" == "$hashes_b" ]]; then pass; else fail "$f: trace hashes differ between two runs"; fi
  [[ $code_b -eq $code_a ]] || fail "$f: exit codes differ between two runs"
  case "$f" in scenarios/futex/*) cp "$work/a.json" "$work/futex-$(basename "$f" .yaml).json" ;; esac
  mkdir -p "$work/results" && cp "$work/a.json" "$work/results/$(echo "$f" | tr / _).json"
done < <(find "$dir" -name '*.yaml' | sort)

# Every dfs row explores exactly its golden number of executions (tests/golden/dfs-counts.json);
# only the golden entries of this directory are this test's.
if python3 tests/cli/check_golden_counts.py tests/golden/dfs-counts.json "$work/results" "$dir/"; then pass
else fail "a dfs execution count changed: update tests/golden/dfs-counts.json with a reason"; fi

case "$dir" in
  scenarios/futex)
    # The futex flagships show what docs/futex.md claims (tests/cli/check_futex_results.py).
    if python3 tests/cli/check_futex_results.py "$work/futex-hash-sweep.json" "$work/futex-wake-fastpath.json" \
      "$work/futex-hash-futexes.json" "$work/futex-colliding-keys.json"; then pass
    else fail "the futex flagship results do not show what they should"; fi ;;
  scenarios/os)
    # The idle loop (docs/os.md, "Adaptive idle"): on each machine and placement the ring's
    # hop is far faster with mwait or the adaptive loop than with hlt; only hlt sends IPIs
    # (the adaptive loop, a few, before its CPUs count as busy). The adaptive loop spins on
    # Barcelona and is faster than mwait there; on Nehalem's SMT cores it never spins
    # (FreeBSD's rule), so it is mwait.
    if python3 - "$work/results/scenarios_os_ring-idle.yaml.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))['rows']
by = {}
for r in rows:
    p = dict(r['params'])
    by.setdefault((p['machine.preset'], p['workload.cpu_stride']), {})[p['scheduler.idle']] = r
assert len(by) == 4, by.keys()
for (preset, stride), g in by.items():
    hop = {k: v['hop_ns'] for k, v in g.items()}
    assert 2 * hop['adaptive'] < hop['hlt'] and 2 * hop['mwait'] < hop['hlt'], (preset, stride, hop)
    assert g['hlt']['ipis'] == g['hlt']['idle_wakes_hlt'] > 0 and g['mwait']['ipis'] == 0, (preset, stride)
    assert g['adaptive']['ipis'] < 0.01 * g['hlt']['ipis'], (preset, stride)
    if preset == 'barcelona-4s':
        assert hop['adaptive'] < hop['mwait'] and g['adaptive']['idle_wakes_spin'] > 0.9 * g['hlt']['ipis'], (preset, stride, hop)
    else:
        assert g['adaptive']['idle_wakes_spin'] == 0, (preset, stride)
PY
    then pass; else fail "scenarios/os/ring-idle.yaml does not show what docs/os.md says"; fi
    # Coloured allocation (docs/os.md): coloured headers use all 32 colours and are read
    # faster at every size, from a nearer cache; uncoloured ones use one. The kegs: a small
    # page cannot colour, a large one does, the fallback mixes them; per-node kegs keep
    # every buffer on its thread's node, one keg on node 0 half of them remote.
    if python3 - "$work/results/scenarios_os_header-scan-colour.yaml.json" "$work/results/scenarios_os_header-scan-kegs.yaml.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))['rows']
by = {}
for r in rows:
    p = dict(r['params'])
    by.setdefault(p['workload.buffers'], {})[p['workload.colour']] = r
assert len(by) == 3, by.keys()
for n, g in by.items():
    assert g['false']['colours'] == 1 and g['true']['colours'] == 32, n
    assert g['true']['header_ns'] < g['false']['header_ns'], (n, g['true']['header_ns'], g['false']['header_ns'])
assert set(by['256']['true']['sources']) == {'l1', 'dram_local'} and 'l3' in by['256']['false']['sources']
assert by['2048']['true']['header_ns'] * 3 < by['2048']['false']['header_ns']
kegs = {(dict(r['params'])['workload.keg'], dict(r['params'])['workload.numa']): r for r in json.load(open(sys.argv[2]))['rows']}
assert kegs[('small', 'true')]['colours'] == 1 and kegs[('small', 'true')]['bytes_per_buffer'] == 4096
assert kegs[('large', 'true')]['colours'] == 32 and kegs[('large', 'true')]['large_share'] == 1
assert 0 < kegs[('large-fallback', 'true')]['large_share'] < 1
assert kegs[('large', 'true')]['header_ns'] < kegs[('large-fallback', 'true')]['header_ns'] < kegs[('small', 'true')]['header_ns']
for keg in ('small', 'large', 'large-fallback'):
    assert kegs[(keg, 'true')]['remote_share'] == 0 and kegs[(keg, 'false')]['remote_share'] == 0.5, keg
PY
    then pass; else fail "scenarios/os/header-scan-*.yaml do not show what docs/os.md says"; fi
    # Placement (docs/os.md): on barcelona-4s, two threads whose headers fit one L3 each but not
    # one L3 together read them over twice as fast when topology puts them on two packages;
    # pinned and simple leave them on one. Four threads given one CPU: spreading them wins
    # with private counters; with one shared counter it loses, topology's (over packages,
    # 3.5 times pinned) far more than simple's (within one, where each transfer carries a
    # burst of adds).
    if python3 - "$work/results/scenarios_os_placement-cache.yaml.json" "$work/results/scenarios_os_placement-balance.yaml.json" <<'PY'
import json, sys
cache = {dict(r['params'])['scheduler.placement']: r for r in json.load(open(sys.argv[1]))['rows']}
assert cache['pinned']['header_ns'] == cache['simple']['header_ns'], cache
assert 2 * cache['topology']['header_ns'] < cache['simple']['header_ns'], cache
assert cache['topology']['migrations'] == 1 and cache['simple']['migrations'] == 0
bal = {(dict(r['params'])['workload.layout'], dict(r['params'])['scheduler.placement']): r['virtual_time_ns']
       for r in json.load(open(sys.argv[2]))['rows']}
assert bal[('padded', 'simple')] * 3 < bal[('padded', 'pinned')] and bal[('padded', 'topology')] * 3 < bal[('padded', 'pinned')], bal
assert bal[('shared', 'pinned')] < bal[('shared', 'simple')] < bal[('shared', 'topology')], bal
assert bal[('shared', 'pinned')] * 3 < bal[('shared', 'topology')], bal
PY
    then pass; else fail "scenarios/os/placement-*.yaml do not show what docs/os.md says"; fi
    # The periodic balancer: 24 never-sleeping threads on 16 CPUs. Off or at ULE's 1 s it
    # moves nothing (idle CPUs may not steal from a load of 2 on 16 CPUs); every 100 us and
    # every 20 us it moves the 8 queued threads and the run ends sooner, sooner at 20 us.
    if python3 - "$work/results/scenarios_os_placement-periodic.yaml.json" <<'PY'
import json, sys
rows = {dict(r['params'])['scheduler.balance_interval_us']: r for r in json.load(open(sys.argv[1]))['rows']}
assert rows['0']['balancer_moves'] == 0 and rows['1000000']['balancer_moves'] == 0, rows
assert rows['0']['virtual_time_ns'] == rows['1000000']['virtual_time_ns'], rows
assert rows['100']['balancer_moves'] == 8 and rows['20']['balancer_moves'] == 8, rows
assert rows['20']['virtual_time_ns'] < rows['100']['virtual_time_ns'] < rows['0']['virtual_time_ns'], rows
assert rows['20']['virtual_time_ns'] * 1.3 < rows['0']['virtual_time_ns'], rows
PY
    then pass; else fail "scenarios/os/placement-periodic.yaml does not show what docs/os.md says"; fi
    # Sharing: a four-thread ring that topology spreads over packages (over both boards on
    # barcelona-8s) hops slower than pinned's one package; sharing places (all but a tie's
    # worth of) woken threads by their partner's package and gets pinned's hop back on every
    # machine.
    if python3 - "$work/results/scenarios_os_placement-sharing.yaml.json" <<'PY'
import json, sys
rows = {(dict(r['params'])['machine.preset'], dict(r['params'])['scheduler.placement']): r for r in json.load(open(sys.argv[1]))['rows']}
for m in ('nehalem-2s', 'barcelona-4s', 'barcelona-8s'):
    pinned, topology, sharing = (rows[(m, p)] for p in ('pinned', 'topology', 'sharing'))
    assert topology['hop_ns'] > 1.1 * pinned['hop_ns'], (m, topology, pinned)
    assert sharing['hop_ns'] < 1.01 * pinned['hop_ns'], (m, sharing, pinned)
    assert sharing['near_placements'] >= 0.99 * sharing['hops'], (m, sharing)
assert rows[('barcelona-8s', 'topology')]['hop_ns'] > 1.3 * rows[('barcelona-8s', 'sharing')]['hop_ns']
PY
    then pass; else fail "scenarios/os/placement-sharing.yaml does not show what docs/os.md says"; fi
    # Idle residency by load: without work the adaptive loop's idle time is mostly spinning;
    # at 3 ms a hop (under one switch a tick) it is all hlt and the hop is the old loop's.
    if python3 - "$work/results/scenarios_os_ring-idle-load.yaml.json" <<'PY'
import json, sys
rows = {(dict(r['params'])['workload.work'], dict(r['params'])['scheduler.idle']): r for r in json.load(open(sys.argv[1]))['rows']}
for work in ('0', '10000', '1000000', '3000000'):
    assert rows[(work, 'hlt')]['idle_hlt_share'] == 1, work
    assert abs(sum(rows[(work, 'adaptive')]['idle_' + s + '_share'] for s in ('spin', 'mwait', 'hlt')) - 1) < 0.005, work  # shares printed to 3 places
busy, light = rows[('0', 'adaptive')], rows[('3000000', 'adaptive')]
assert busy['idle_spin_share'] > 0.5 and busy['idle_hlt_share'] < 0.1, busy
assert light['idle_hlt_share'] == 1 and light['hop_ns'] == rows[('3000000', 'hlt')]['hop_ns'], light
assert rows[('1000000', 'adaptive')]['idle_mwait_share'] > 0.9
assert rows[('0', 'hlt')]['hop_ns'] > 2 * busy['hop_ns']
PY
    then pass; else fail "scenarios/os/ring-idle-load.yaml does not show what docs/os.md says"; fi ;;
  scenarios/litmus)
    # SB under SC: three executions, one per equivalence class (GenMC's count).
    [[ $(json_field "$work/results/scenarios_litmus_sb-sc.yaml.json" "['executions']") == 3 ]] && pass \
      || fail "SB under SC: dfs did not explore exactly 3 executions" ;;
esac

echo "$dir: $passes passed, $failures failed"
[[ $failures -eq 0 ]]
