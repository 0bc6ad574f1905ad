#!/usr/bin/env bash
# make demo: checks every simulated scenario under scenarios/, runs the native ones on this
# machine, and says where the outputs went.
set -uo pipefail
cd "$(dirname "$0")/.."
mapfile -t all < <(find scenarios -name '*.yaml' | sort)
simulated=()
long=()
native=()
for f in "${all[@]}"; do
  # A benchmark's input (scenarios/bench/long/) runs for minutes: bench/'s scripts run it.
  head -1 "$f" | grep -q '^# lockstep: benchmark' && continue
  if grep -q '^platform: native' "$f"; then
    native+=("$f")
  elif head -1 "$f" | grep -q '^# lockstep: long-running'; then
    long+=("$f")
  else
    simulated+=("$f")
  fi
done
rm -rf out
# Every row's trace is saved up to 2 MiB (counterexamples and short runs: the viewer opens
# them); a longer one, a timed row's, is left out with a note, which keeps out/ near 100 MB
# instead of gigabytes. `lockstep run FILE --trace T` keeps any one whole.
echo "Traces: each row's up to 2 MiB is saved in out/ (longer ones are left out, with a note)."
build/bin/lockstep check "${simulated[@]}" --out-dir out --save-traces --save-traces-limit 2 --json out/results.json \
  --junit out/junit.xml
status=$?
if ((${#long[@]} > 0)); then
  # Their traces run to gigabytes: the results and CSVs are kept, the traces are not.
  echo
  echo "The long-running performance sweeps (about two minutes):"
  build/bin/lockstep check "${long[@]}" --out-dir out --json out/sweeps.json --junit out/sweeps-junit.xml || status=1
fi
if ((${#native[@]} > 0)); then
  echo
  echo "Native runs on this machine (lockstep native):"
  build/bin/lockstep native "${native[@]}" --out-dir out --json out/native.json || status=1
fi
echo
echo "Lock profiling (docs/os.md): the file I/O policies' inode, page and range locks on the"
echo "simulated machines, worst first, in virtual time:"
build/bin/lockstep run scenarios/fileio/cost-overlapping.yaml --out-dir out --lock-profile out/lock-profile-fileio.csv \
  || status=1
echo
echo "Adaptive idle (docs/os.md): a token around a ring of threads, each hop waking an idle CPU,"
echo "under the old idle loop (hlt, woken by an IPI), mwait, and FreeBSD's adaptive loop:"
build/bin/lockstep run scenarios/os/ring-idle.yaml --out-dir out --csv out/ring-idle.csv || status=1
build/bin/lockstep run scenarios/os/ring-idle-load.yaml --out-dir out || status=1
echo
echo "Coloured allocation (docs/os.md): 2 KiB network buffers from a UMA-style zone, their headers"
echo "read over and over, uncoloured and coloured, on nehalem-2s:"
build/bin/lockstep run scenarios/os/header-scan-colour.yaml --out-dir out --csv out/header-scan-colour.csv || status=1
echo
echo "Topology-aware placement (docs/os.md): two threads whose data fit one L3 each, placed on one"
echo "package (pinned, simple) or two (ULE's topology tree), on barcelona-4s; then ULE's periodic"
echo "balancer moving threads that its idle CPUs may not steal; then a futex ring that topology"
echo "spreads over packages and the seed's sharing rule gathers into one:"
build/bin/lockstep run scenarios/os/placement-cache.yaml scenarios/os/placement-periodic.yaml scenarios/os/placement-sharing.yaml --out-dir out || status=1
echo
echo "Simulated against measured: this host's calibration (kept for later runs), then the futex"
echo "hash designs natively and on the calibrated model (docs/compare.md):"
build/bin/lockstep calibrate --if-missing --seconds 12 --quiet || status=1
build/bin/lockstep compare scenarios/futex/native-hash.yaml -n 3 --json out/compare.json --csv out/compare.csv || status=1
cat <<TXT

Outputs are in out/:
  out/results.json      one result object per simulated scenario (docs/results.md)
  out/sweeps.json       the long performance sweeps (futex hash designs); their rows are in out/*.csv
  out/native.json       the native runs' results, in the same format
  out/compare.json      native against simulated, figure by figure (docs/results.md, "Comparison results")
  out/junit.xml         the simulated results as a JUnit report for CI systems
  out/*.trace.jsonl     traces (docs/traces.md); out/*.chrome.json opens in Perfetto or chrome://tracing
  out/*.schedule        counterexamples; replay one with: build/bin/lockstep replay out/<name>.schedule
  out/*.csv             one row per combination of a swept scenario
  out/lock-profile-fileio.csv  the lock profile of the file I/O cost sweep (docs/os.md)
  out/ring-idle.csv     the ring under each idle policy on nehalem-2s and barcelona-4s (docs/os.md)
  out/header-scan-colour.csv  header reads of uncoloured and coloured buffers (docs/os.md)
TXT
if [[ -x build/bin/lockstep-view ]]; then
  cat <<'TXT'

Open them in the viewer (gui/README.md):
  build/bin/lockstep-view out/lost-wakeup-missing-barrier.trace.jsonl
      the futex lost wakeup: step with Next/Previous, the state panel shows the waiter
      queued on its bucket while the waker's store still sits in its store buffer
  build/bin/lockstep-view out/pingpong-row1.trace.jsonl
      a timed run: lanes per thread and per CPU, wake arrows, lock and futex bands
  build/bin/lockstep-view --screenshot shot.png out/lost-wakeup-missing-barrier.trace.jsonl
      the same picture without a display
TXT
fi
exit $status
