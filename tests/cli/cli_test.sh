#!/usr/bin/env bash
# End-to-end tests of the lockstep executable: exit codes, determinism of trace hashes,
# schedules that replay, errors with file:line:col. Usage: cli_test.sh LOCKSTEP SOURCE_DIR
set -uo pipefail
lockstep=$1
src=$2
# shellcheck source=tests/cli/common.sh
source "$(dirname "$0")/common.sh"
json_field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d=d[0] if isinstance(d,list) else d; print(d$2)" "$1"; }

# A measuring sweep prints its figures as a table with SI prefixes (docs/results.md, "Sweep
# table"); the CSV keeps the raw numbers.
out=$("$lockstep" run scenarios/futex/wake-batches.yaml --out-dir "$work/wb" --csv "$work/wb.csv" 2>&1); code=$?
[[ $code -eq 0 && $out =~ workload.batch\ +wake_ns_per_round\ +wakeup_latency_ns\ +calls_per_round\ +result ]] && pass \
  || fail "sweep table: no header in '$out'"
[[ $(grep -cE '^ +(1|15) +[0-9.]+ [mun]?s +[0-9.]+ [mun]?s +[0-9.]+ +pass$' <<<"$out") -eq 2 ]] && pass \
  || fail "sweep table: rows are not 'batch, times with prefixes, calls, pass' in '$out'"
python3 -c "import csv,sys; rows=list(csv.DictReader(open(sys.argv[1]))); float(rows[0]['wake_ns_per_round'])" \
  "$work/wb.csv" && pass || fail "sweep CSV: wake_ns_per_round is not a raw number"

# Lock profiling (docs/os.md): a simulated sweep's table, CSV and JSON, worst lock first; a
# native run's; an unwritable file is exit 2 before anything runs.
out=$("$lockstep" run scenarios/fileio/cost-overlapping.yaml --out-dir "$work/lp" --lock-profile "$work/lp.csv" \
  --json "$work/lp-result.json" 2>&1); code=$?
[[ $code -eq 0 && $out =~ lock\ profile\ \(virtual\ time\) && $out =~ inode.rwlock.readers\ +\(core/fileio/data_path.hpp:[0-9]+\) ]] \
  && pass || fail "run --lock-profile: exit $code, '$out'"
[[ $(head -1 "$work/lp.csv") == scenario,platform,row,params,file,line,lock,acquisitions,contended,hold_total_ns,* ]] && pass \
  || fail "lock profile CSV header: $(head -1 "$work/lp.csv")"
"$lockstep" run scenarios/fileio/cost-overlapping.yaml --quiet --out-dir "$work/lp" --lock-profile "$work/lp.json"
if python3 - "$work/lp.json" "$work/lp-result.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
assert d["format"] == "lockstep-lock-profile" and d["scenarios"][0]["command"] == "run"
rows = d["scenarios"][0]["rows"]
assert len(rows) == len(r["rows"]) and all(row["unmatched_notes"] == 0 for row in rows)
for row, res in zip(rows, r["rows"]):
    locks = row["locks"]
    assert locks and locks == res["lock_profile"], row["params"]
    waits = [(l["wait_total_ns"], l["hold_total_ns"]) for l in locks]
    assert waits == sorted(waits, reverse=True), waits  # worst first
    for l in locks:
        assert 0 <= l["contended"] <= l["acquisitions"] and l["hold_max_ns"] <= l["hold_total_ns"], l
        assert l["file"].startswith("core/") and l["line"] > 0, l
PY
then pass; else fail "lock profile JSON"; fi
out=$("$lockstep" native scenarios/futex/native-pingpong.yaml --quiet --lock-profile "$work/nlp.json" 2>&1); code=$?
if [[ $code -eq 0 ]] && python3 -c "
import json, sys
d = json.load(open(sys.argv[1])); rows = d['scenarios'][0]['rows']
assert d['scenarios'][0]['platform'] == 'native' and any(row['locks'] for row in rows), rows
assert all(l['acquisitions'] > 0 for row in rows for l in row['locks'])" "$work/nlp.json"; then pass
else fail "native --lock-profile: exit $code, '$out'"; fi
out=$("$lockstep" run scenarios/fileio/cost-overlapping.yaml --lock-profile "$work/lp.csv/under-a-file.csv" 2>&1); code=$?
[[ $code -eq 2 && $out =~ --lock-profile ]] && pass || fail "unwritable --lock-profile: exit $code, '$out'"

# The futex lost wakeup: dfs finds it, minimized to at most 2 preemptions, and
# `lockstep replay` reproduces it with the same trace; the interleaving is printed.
"$lockstep" check scenarios/futex/lost-wakeup-missing-barrier.yaml --out-dir "$work/lw" --json "$work/lw.json" \
  >"$work/lw.txt"; code=$?
[[ $code -eq 0 && $(json_field "$work/lw.json" "['property']") == lost_wakeup ]] && pass || fail "lost wakeup: not found"
[[ $(json_field "$work/lw.json" "['counterexample']['preemptions']") -le 2 ]] && pass \
  || fail "lost wakeup: counterexample has more than 2 preemptions"
grep -q "store buffer drains: f = 1 reaches memory" "$work/lw.txt" && pass || fail "lost wakeup: interleaving not printed"
"$lockstep" replay "$(json_field "$work/lw.json" "['schedule']")" --quiet --json "$work/lw-replay.json"; code=$?
[[ $code -eq 0 && $(json_field "$work/lw-replay.json" "['property']") == lost_wakeup ]] && pass \
  || fail "lost wakeup: replay does not reproduce it"
[[ $(json_field "$work/lw-replay.json" "['trace_sha256']") == $(json_field "$work/lw.json" "['trace_sha256']") ]] \
  && pass || fail "lost wakeup: replay trace differs"
# Parallel dfs: the same counts with 1 and 2 workers, and with every split on demand allowed
# (--min-piece 0; the default splits only where a branch has run 64 executions).
for w in 1 2; do
  "$lockstep" check scenarios/futex/wake-fastpath-correct.yaml --quiet --workers $w --out-dir "$work/d$w" \
    --json "$work/d$w.json"
done
"$lockstep" check scenarios/futex/wake-fastpath-correct.yaml --quiet --workers 2 --min-piece 0 --out-dir "$work/d0" \
  --json "$work/d0.json"
for other in d2 d0; do
  [[ $(json_field "$work/d1.json" "['executions']") == $(json_field "$work/$other.json" "['executions']") && \
     $(json_field "$work/d1.json" "['pruned']") == $(json_field "$work/$other.json" "['pruned']") ]] && pass \
    || fail "parallel dfs: 1 and 2 workers disagree ($other)"
done
"$lockstep" check scenarios/futex/wake-fastpath-correct.yaml --quiet --min-piece -1 >/dev/null 2>&1; code=$?
[[ $code -eq 2 ]] && pass || fail "--min-piece -1: exit $code, expected 2"
# Parallel pct search: the same verdict and counts with 1 and 2 workers.
for w in 1 2; do
  "$lockstep" check scenarios/usync/forgetful-mutex.yaml --quiet --workers $w --out-dir "$work/w$w" \
    --json "$work/w$w.json"
done
[[ $(json_field "$work/w1.json" "['executions']") == $(json_field "$work/w2.json" "['executions']") && \
   $(json_field "$work/w1.json" "['trace_sha256']") == $(json_field "$work/w2.json" "['trace_sha256']") ]] && pass \
  || fail "parallel pct: 1 and 2 workers disagree"

# The racy counter: exit 1 when expecting pass is not the point; its expect is the violation,
# so check gives 0, result violation, a schedule; replay reproduces it with the same hash.
"$lockstep" check scenarios/basics/racy-counter.yaml --quiet --out-dir "$work/racy" --json "$work/racy.json"
code=$?
[[ $code -eq 0 ]] && pass || fail "racy counter: exit $code, expected 0 (the violation is expected)"
[[ $(json_field "$work/racy.json" "['result']") == violation ]] && pass || fail "racy counter: result is not violation"
schedule=$(json_field "$work/racy.json" "['schedule']")
[[ -s $schedule ]] && pass || fail "racy counter: no schedule file at '$schedule'"
hash=$(json_field "$work/racy.json" "['trace_sha256']")
"$lockstep" replay "$schedule" --quiet --json "$work/replay.json"; code=$?
[[ $code -eq 0 ]] && pass || fail "replay: exit $code"
[[ $(json_field "$work/replay.json" "['result']") == violation ]] && pass || fail "replay: no violation"
[[ $(json_field "$work/replay.json" "['trace_sha256']") == "$hash" ]] && pass || fail "replay: trace hash differs"

# A scenario whose expect disagrees with what happens exits 1.
sed 's/expect: {violation: lost_update}/expect: pass/' scenarios/basics/racy-counter.yaml >"$work/racy-expect-pass.yaml"
"$lockstep" check "$work/racy-expect-pass.yaml" --quiet --out-dir "$work/x" --json "$work/x.json"; code=$?
[[ $code -eq 1 ]] && pass || fail "mismatched expect: exit $code, expected 1"
[[ $(json_field "$work/x.json" "['matched']") == False ]] && pass || fail "mismatched expect: matched is not false"

# Bad input: exit 2 and a file:line:col message.
bad() {  # name, yaml, expected-prefix-regex
  printf '%s\n' "$2" >"$work/$1.yaml"
  out=$("$lockstep" check "$work/$1.yaml" --quiet 2>&1); code=$?
  if [[ $code -ne 2 ]]; then fail "$1: exit $code, expected 2 ($out)"; return; fi
  if [[ ! $out =~ $3 ]]; then fail "$1: message '$out' does not match '$3'"; return; fi
  pass
}
bad bad-yaml $'name: x\nexpect: [pass' "bad-yaml.yaml:[0-9]+:[0-9]+: "
bad unknown-key $'name: x\nworkload: {kind: lock-counter}\nexpect: pass\ncolour: red' "unknown-key.yaml:4:1: .*colour"
bad wrong-type $'name: x\nworkload: {kind: lock-counter, threads: many}\nexpect: pass' "wrong-type.yaml:2:[0-9]+: "
bad unknown-preset $'name: x\nmachine: {preset: cray-1}\nworkload: {kind: lock-counter}\nexpect: pass' "unknown-preset.yaml:2:[0-9]+: .*cray-1"
# Host futexes and native scenarios cannot be simulated: exit 2 at the place that says so.
printf 'name: x\ndesign: {futex: kernel}\nworkload: {kind: futex-hash, runtime_us: 1}\nexpect: pass\n' >"$work/kernel.yaml"
out=$("$lockstep" run "$work/kernel.yaml" --quiet 2>&1); code=$?
[[ $code -eq 2 && $out =~ kernel.yaml:2:17:.*only\ natively ]] && pass || fail "run with the kernel futex: exit $code, '$out'"
printf 'name: x\nplatform: native\ndesign: {futex: std-atomic-wait}\nworkload: {kind: futex-pingpong, runtime_us: 1000}\nexpect: pass\n' >"$work/native.yaml"
out=$("$lockstep" check "$work/native.yaml" --quiet 2>&1); code=$?
[[ $code -eq 2 && $out =~ native.yaml:2:11:.*lockstep\ native ]] && pass || fail "check of a native scenario: exit $code, '$out'"
"$lockstep" native "$work/native.yaml" --quiet --json "$work/native.json"; code=$?
[[ $code -eq 0 && $(json_field "$work/native.json" "['round_trips']") != 0.0 ]] && pass || fail "native ping-pong: exit $code"
# A ring's `work` is simulated compute: a native ring refuses it (exit 2, naming the file).
printf 'name: r\ndesign: {futex: kernel}\nworkload: {kind: ring, threads: 2, laps: 10, work: 1000}\nexpect: pass\n' >"$work/ring-work.yaml"
out=$("$lockstep" native "$work/ring-work.yaml" --quiet 2>&1); code=$?
[[ $code -eq 2 && $out =~ ring-work.yaml:.*simulated\ compute ]] && pass || fail "native ring with work: exit $code, '$out'"
# Thread programs run natively as litmus tests: on x86 SB's relaxed outcome shows
# within a second, consistent with the checker under tso; elsewhere the histogram alone.
out=$("$lockstep" native scenarios/litmus/sb-tso.yaml --seconds 1 --json "$work/sb.json" 2>&1); code=$?
if [[ $(uname -m) == x86_64 ]]; then
  [[ $code -eq 0 && $out =~ sb_relaxed.*observed\ in\ [1-9] && $out =~ consistent\ with\ the\ checker\ under\ tso ]] \
    && pass || fail "native SB: exit $code, '$out'"
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); l=d['litmus']; c=l['conditions'][0]
assert d['platform'] == 'native' and d['matched'] and l['runs'] > 0 and sum(h['count'] for h in l['histogram']) == l['runs']
assert c['property'] == 'sb_relaxed' and c['observed'] > 0 and c['checker']['result'] == 'reachable', c" "$work/sb.json"
  then pass; else fail "native SB: the JSON's litmus object"; fi
else
  [[ $code -eq 0 && $out =~ histogram ]] && pass || fail "native SB: exit $code, '$out'"
fi
out=$("$lockstep" native scenarios/litmus/sb-tso.yaml --runs 0 2>&1); code=$?
[[ $code -eq 2 && $out =~ --runs ]] && pass || fail "native --runs 0: exit $code, '$out'"
# Native traces: one per sweep row, named from --trace with -row<N>; each says
# platform native, declares its threads and ends; the table designs' rows hold lock events.
"$lockstep" native scenarios/futex/native-pingpong.yaml --quiet --trace "$work/pp.trace.jsonl"; code=$?
if [[ $code -eq 0 ]] && python3 -c "
import json, sys
rows = [open(f'{sys.argv[1]}/pp-row{i}.trace.jsonl').read().splitlines() for i in range(1, 8)]
for lines in rows:
    h = json.loads(lines[0]); ev = [json.loads(l) for l in lines[1:]]
    assert h['platform'] == 'native' and ev[-1]['ev'] == 'end', h
    assert sum(e['ev'] == 'thread' for e in ev) >= 2 and all(a['t'] <= b['t'] for a, b in zip(ev, ev[1:]))
assert all(any(json.loads(l)['ev'] == 'lock' for l in lines[1:]) for lines in rows[:5])
" "$work"; then pass; else fail "native --trace of a sweep: exit $code"; fi
out=$("$lockstep" native scenarios/futex/native-pingpong.yaml scenarios/futex/native-hash.yaml --trace "$work/x.jsonl" 2>&1); code=$?
[[ $code -eq 2 && $out =~ single\ scenario\ file ]] && pass || fail "native --trace of two files: exit $code, '$out'"
out=$("$lockstep" native scenarios/futex/native-pingpong.yaml --trace-sample 4 2>&1); code=$?
[[ $code -eq 2 && $out =~ --trace-sample\ needs\ --trace ]] && pass || fail "native --trace-sample alone: exit $code, '$out'"

# The file probe: ~1 s on a temporary directory; the JSON has the documented fields,
# the classification splits the ten modeled policies, and the probe's files are gone.
mkdir -p "$work/probe-dir"
"$lockstep" native probe fileio --path "$work/probe-dir" --seconds 1 --quiet --json "$work/probe.json"; code=$?
[[ $code -eq 0 ]] && pass || fail "file probe: exit $code"
if python3 - "$work/probe.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for key in ("path", "filesystem", "trials", "torn_reads", "interleaved_writes", "duplicate_reads", "lost_writes",
            "append_losses", "elapsed_s", "consistent_policies", "inconsistent_policies"):
    assert key in d, key
assert [s["bytes"] for s in d["torn_reads"]["sizes"]] == [512, 4096, 65536, 1048576], d["torn_reads"]
assert d["trials"] > 0 and d["torn_reads"]["trials"] > 0 and d["duplicate_reads"]["trials"] > 0, d
assert d["elapsed_s"] < 5, d["elapsed_s"]
policies = {"none", "inode-lock", "vnode-rwlock", "f-pos-lock", "foffset-lock",
            "exclusive", "shared-read", "lockless-reads", "page-locks", "range-locks"}
consistent, inconsistent = set(d["consistent_policies"]), set(d["inconsistent_policies"])
assert consistent | inconsistent == policies and not consistent & inconsistent, (consistent, inconsistent)
PY
then pass; else fail "file probe: the JSON lacks a field or its classification is not a split of the policies"; fi
[[ -z $(ls -A "$work/probe-dir") ]] && pass || fail "file probe: left files behind: $(ls -A "$work/probe-dir")"
# The machine probes: the memory probe's JSON has the simulator's row shape
# (histogram in 1 ns bins, peaks_ns) for every size from 4 KiB to 4 x the last-level cache.
# 0.5 s is below what faulting in and linking its largest buffers takes on a small VM, so
# the bound on elapsed_s is loose; docs/machines.md, "Native probes".
"$lockstep" native probe memory --seconds 0.5 --quiet --json "$work/memory.json"; code=$?
[[ $code -eq 0 ]] && pass || fail "memory probe: exit $code"
if python3 - "$work/memory.json" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["probe"] == "memory" and d["platform"] == "native" and d["swept"], d
assert d["clock"] == "clock_gettime" or d["clock"].startswith("tsc "), d["clock"]
sizes = [r["params"]["bytes"] for r in d["rows"]]
# Faulting in and linking the largest buffer grows with it: 10 s, and 8 s more per GiB (a VM
# that reports its host's whole last level, 480 MiB here, probes 1.9 GiB: about 10 s alone).
assert not d["interrupted"] and d["elapsed_s"] < 10 + 8 * sizes[-1] / 2**30, (d["elapsed_s"], sizes[-1])
assert sizes[0] == 4096 and sizes == sorted(sizes) and sizes[-1] >= 4 * d["llc_bytes"], sizes
for r in d["rows"]:
    assert r["samples"] > 0 and 0 < r["p10_ns"] <= r["median_ns"] <= r["p90_ns"] < 1e6, r
    assert math.isfinite(r["mean_ns"]) and r["accesses"] == 256 * r["samples"], r
    assert sum(b["count"] for b in r["histogram"]) == r["samples"], r["params"]
    assert all(b["hi_ns"] == b["lo_ns"] + 1 for b in r["histogram"]) and r["peaks_ns"], r["params"]
assert d["rows"][0]["median_ns"] < d["rows"][-1]["median_ns"], (d["rows"][0], d["rows"][-1]["median_ns"])
PY
then pass; else fail "memory probe: the JSON lacks a field or a size"; fi
out=$("$lockstep" native probe memory --max-bytes 1KiB 2>&1); code=$?
[[ $code -eq 2 && $out =~ max-bytes ]] && pass || fail "memory probe below 4 KiB: exit $code, '$out'"
out=$("$lockstep" native probe futex --seconds 0 2>&1); code=$?
[[ $code -eq 2 ]] && pass || fail "futex probe with 0 s: exit $code, '$out'"
out=$("$lockstep" native probe fileio 2>&1); code=$?
[[ $code -eq 2 && $out =~ --path ]] && pass || fail "file probe without --path: exit $code, '$out'"
out=$("$lockstep" native 2>&1); code=$?
[[ $code -eq 2 && $out =~ scenario\ files ]] && pass || fail "native without files: exit $code, '$out'"

out=$("$lockstep" check 2>&1); code=$?
[[ $code -eq 2 ]] && pass || fail "usage error: exit $code, expected 2"
printf 'not a schedule\n' >"$work/bad.schedule"
out=$("$lockstep" replay "$work/bad.schedule" 2>&1); code=$?
[[ $code -eq 2 && $out =~ bad.schedule:1:1 ]] && pass || fail "bad schedule: exit $code, '$out'"
# A schedule cut before its choices line, and one naming /dev/zero as its scenario: refused
# at their place, never read forever.
printf '# lockstep schedule v1\nscenario: scenarios/litmus/sb-sc.yaml\nexecution: 0\n' >"$work/nochoices.schedule"
out=$("$lockstep" replay "$work/nochoices.schedule" 2>&1); code=$?
[[ $code -eq 2 && $out =~ nochoices.schedule:1:1:.*no\ .choices:.\ line ]] && pass || fail "schedule without choices: exit $code, '$out'"
printf '# lockstep schedule v1\nscenario: /dev/zero\nchoices:\n' >"$work/zero.schedule"
out=$(timeout 20 "$lockstep" replay "$work/zero.schedule" 2>&1); code=$?
[[ $code -eq 2 && $out =~ not\ a\ regular\ file ]] && pass || fail "schedule naming /dev/zero: exit $code, '$out'"
out=$(timeout 20 "$lockstep" check /dev/zero 2>&1); code=$?
[[ $code -eq 2 && $out =~ not\ a\ regular\ file ]] && pass || fail "check /dev/zero: exit $code, '$out'"

# Outputs are written whole: the JUnit report parses.
"$lockstep" check scenarios/litmus/sb-sc.yaml --quiet --out-dir "$work/j" --junit "$work/j.xml" \
  --chrome-trace "$work/sb.chrome.json" --trace "$work/sb.trace.jsonl"
python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$work/j.xml" && pass || fail "junit does not parse"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$work/sb.chrome.json" && pass || fail "chrome trace does not parse"
head -1 "$work/sb.trace.jsonl" | grep -q '"format":"lockstep-trace"' && pass || fail "trace header missing"

# --version; a library given whole skips its native-only scenarios with a note (the README's
# `lockstep check scenarios/**/*.yaml`), one named alone is an error.
[[ $("$lockstep" --version) =~ ^lockstep\ [0-9] ]] && pass || fail "--version"
out=$("$lockstep" check scenarios/futex/native-hash.yaml scenarios/litmus/sb-sc.yaml --out-dir "$work/s" 2>&1); code=$?
[[ $code -eq 0 && $out =~ skipped:.*native-hash.yaml ]] && pass || fail "native scenario in a list: exit $code, '$out'"
"$lockstep" check scenarios/futex/native-hash.yaml --quiet --out-dir "$work/s" 2>/dev/null; code=$?
[[ $code -eq 2 ]] && pass || fail "native scenario alone: exit $code, expected 2"

# ccbench natively (driver/native_ccbench.hpp) and compared: a row per measuring CPU, both ways.
if [[ $(nproc) -ge 2 ]]; then
  cat >"$work/ccb.yaml" <<'EOF'
name: ccbench both ways
workload: {kind: ccbench, state: modified, op: cas, holders: [0], cpus: [1], repetitions: 20}
expect: {fidelity: {ccbench_ns: 100000}}
EOF
  "$lockstep" native "$work/ccb.yaml" --quiet --json "$work/ccb-native.json"; code=$?
  if [[ $code -eq 0 ]] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=d['ccbench'][0]; \
assert d['platform']=='native' and r['cpu']==1 and 0 < r['median_ns'] < 100000, d" "$work/ccb-native.json"; then pass
  else fail "lockstep native of a ccbench scenario: exit $code"; fi
  "$lockstep" compare "$work/ccb.yaml" -n 2 --quiet --json "$work/ccb-cmp.json"; code=$?
  if [[ $code -eq 0 ]] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); m=d['rows'][0]['metrics'][0]; \
assert m['metric']=='ccbench_ns[1]' and len(m['native']['runs'])==2 and m['simulated'] > 0, m" "$work/ccb-cmp.json"; then pass
  else fail "lockstep compare of a ccbench scenario: exit $code"; fi
fi

# lockstep compare (docs/compare.md): the same workload natively and simulated on this host's
# model; exit 0 within every tolerance, 1 outside one, 2 for a tolerance of no figure.
cat >"$work/cmp.yaml" <<'EOF'
name: compare exit codes
design: {futex: baseline}
workload: {kind: futex-hash, futexes: 64, runtime_us: 20000}
expect: {fidelity: {ops_per_s: 1000000}}
EOF
"$lockstep" compare "$work/cmp.yaml" -n 2 --quiet --json "$work/cmp.json" --csv "$work/cmp.csv" --junit "$work/cmp.xml"; code=$?
[[ $code -eq 0 ]] && pass || fail "compare within tolerance: exit $code"
if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); m=d['rows'][0]['metrics'][0]; \
assert d['command']=='compare' and d['result']=='pass' and m['metric']=='ops_per_s' and len(m['native']['runs'])==2 \
and m['native']['min']<=m['native']['median']<=m['native']['max'] and m['simulated']>0 and m['tolerance_pct']==1000000, d" \
  "$work/cmp.json"; then pass; else fail "compare JSON shape"; fi
python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$work/cmp.xml" && pass || fail "compare junit does not parse"
[[ $(head -1 "$work/cmp.csv") == scenario,row,kind,metric,native_median* ]] && pass || fail "compare CSV header"
# compare --lock-profile: both sides' bucket locks, the simulated and the native one.
"$lockstep" compare "$work/cmp.yaml" -n 1 --quiet --lock-profile "$work/cmp-locks.json"; code=$?
if [[ $code -eq 0 ]] && python3 -c "
import json, sys
d = json.load(open(sys.argv[1])); sides = {s['platform']: s for s in d['scenarios']}
assert set(sides) == {'sim', 'native'}, sides.keys()
for s in sides.values():
    locks = s['rows'][0]['locks']
    assert locks and locks[0]['lock'] == 'bucket[].lock' and locks[0]['acquisitions'] > 0, locks" "$work/cmp-locks.json"
then pass; else fail "compare --lock-profile: exit $code"; fi
sed 's/ops_per_s: 1000000/ops_per_s: 0.000001/' "$work/cmp.yaml" >"$work/cmp-tight.yaml"
out=$("$lockstep" compare "$work/cmp-tight.yaml" -n 1 2>&1); code=$?
[[ $code -eq 1 && $out =~ OUTSIDE ]] && pass || fail "compare outside tolerance: exit $code, '$out'"
sed 's/ops_per_s: 1000000/ops_per_sec: 5/' "$work/cmp.yaml" >"$work/cmp-typo.yaml"
out=$("$lockstep" compare "$work/cmp-typo.yaml" -n 1 2>&1); code=$?
[[ $code -eq 2 && $out =~ cmp-typo.yaml:4:21:.*ops_per_sec ]] && pass || fail "compare tolerance typo: exit $code, '$out'"
out=$("$lockstep" compare scenarios/litmus/sb-tso.yaml 2>&1); code=$?
[[ $code -eq 2 && $out =~ no\ native\ form ]] && pass || fail "compare of a thread program: exit $code, '$out'"

# The smt strategy (docs/model-checking.md, "The SMT strategy"): a witness written as a
# schedule that plain replay reproduces; every reachable final state with --all-outcomes;
# an op it cannot encode is exit 2 at its place.
sed 's/^strategy:.*/strategy: {kind: smt}/' scenarios/litmus/sb-tso.yaml >"$work/sb-smt.yaml"
out=$("$lockstep" check "$work/sb-smt.yaml" --all-outcomes --out-dir "$work/smt" --json "$work/smt.json" 2>&1); code=$?
[[ $code -eq 0 && $out =~ "engine followed the witness" && $out =~ "4 reachable final states" ]] && pass \
  || fail "smt check: exit $code, '$out'"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); s=d['smt']; \
assert d['strategy']=='smt' and s['witness_replayed'] and len(s['outcomes'])==4 and s['complete'], d" "$work/smt.json" \
  && pass || fail "smt JSON shape"
out=$("$lockstep" replay "$work/smt/sb-smt.schedule" 2>&1); code=$?
[[ $code -eq 0 && $out =~ reachable:\ sb_relaxed ]] && pass || fail "smt schedule replay: exit $code, '$out'"
cat >"$work/smt-lock.yaml" <<'EOF'
name: smt refuses locks
machine: {preset: flat, cpus: 2}
variables: {x: 0}
locks: [m]
threads:
  - {name: t0, program: [{lock: m}, {unlock: m}]}
strategy: {kind: smt}
expect: pass
EOF
out=$("$lockstep" check "$work/smt-lock.yaml" 2>&1); code=$?
[[ $code -eq 2 && $out =~ smt-lock.yaml:6:26:.*cannot\ encode ]] && pass || fail "smt unsupported op: exit $code, '$out'"

# herd litmus import (docs/litmus.md): a test becomes a scenario that `check` decides as the
# literature does (SB+rfi-pos is allowed under x86-TSO); an unknown instruction is exit 2 at
# its file:line:col.
out=$("$lockstep" import litmus tests/litmus/SB+rfi-pos.litmus --out "$work/lit" 2>&1); code=$?
[[ $code -eq 0 ]] && pass || fail "import litmus: exit $code, '$out'"
out=$("$lockstep" check "$work"/lit/*.yaml --out-dir "$work/lit" 2>&1); code=$?
[[ $code -eq 0 && $out =~ reachable ]] && pass || fail "check of an imported litmus test: exit $code, '$out'"
printf 'X86 bad\n{ x=0; }\n P0 ;\n NOP ;\nexists (x=0)\n' >"$work/bad.litmus"
out=$("$lockstep" import litmus "$work/bad.litmus" --out "$work/lit2" 2>&1); code=$?
[[ $code -eq 2 && $out =~ bad.litmus:4:[0-9]+: ]] && pass || fail "import of an unknown instruction: exit $code, '$out'"

# Outputs (docs/results.md "How outputs are written"): `--json -` is the JSON alone on
# standard output; an output naming an input or another output, or a read-only file, is
# refused with exit 2 and nothing overwritten; /dev/null stays a device.
cp scenarios/litmus/sb-tso.yaml "$work/s.yaml"
out=$("$lockstep" check "$work/s.yaml" --out-dir "$work/o" --json -); code=$?
[[ $code -eq 0 ]] && python3 -c "import json,sys; json.loads(sys.argv[1])" "$out" && pass || fail "--json -: exit $code, '$out'"
out=$("$lockstep" check "$work/s.yaml" --out-dir "$work/o" --json "$work/s.yaml" 2>&1); code=$?
[[ $code -eq 2 && $out =~ is\ an\ input && $(head -1 "$work/s.yaml") == name:* ]] && pass || fail "--json over the scenario: exit $code, '$out'"
out=$("$lockstep" check "$work/s.yaml" --out-dir "$work/o" --json "$work/r.json" --trace "$work/./r.json" 2>&1); code=$?
[[ $code -eq 2 && $out =~ name\ one\ file ]] && pass || fail "two outputs, one file: exit $code, '$out'"
echo keep >"$work/ro.json"; chmod 444 "$work/ro.json"
out=$("$lockstep" check "$work/s.yaml" --out-dir "$work/o" --json "$work/ro.json" 2>&1); code=$?
[[ $code -eq 2 && $out =~ read-only && $(cat "$work/ro.json") == keep ]] && pass || fail "read-only output: exit $code, '$out'"
"$lockstep" check "$work/s.yaml" --out-dir "$work/o" --json /dev/null -q && [[ -c /dev/null ]] && pass || fail "--json /dev/null"

echo "$passes passed, $failures failed"
[[ $failures -eq 0 ]]
