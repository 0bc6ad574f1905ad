#!/usr/bin/env bash
# Imports every herd x86 litmus test under the given directories (`lockstep import litmus`,
# with the kinds.txt beside them where there is one) and holds each against itself:
#   - `lockstep check` under tso and under sc, with dfs and with smt (variants made with sed);
#   - herd's verdict (kinds.txt) where known, against dfs under tso;
#   - `lockstep_difftest --file F --workers 1 --no-smt` (dfs outcomes and counts against the
#     reference enumerator and naive);
#   - `lockstep native F --seconds S` (real threads): outcomes it observed that the checker
#     says x86-TSO forbids (must be 0).
# Prints one table (docs/litmus.md). Usage:
#   bench/litmus-catalogue.sh [-j JOBS] [--native-seconds S] [--no-native] DIR...
# Environment: LOCKSTEP, LOCKSTEP_DIFFTEST (default build/bin/...), KEEP=DIR keeps the work.
set -euo pipefail

jobs=1
native_seconds=0.2
native=1
dirs=()
while [[ $# -gt 0 ]]; do
  case $1 in
    -j) jobs=$2; shift 2 ;;
    --native-seconds) native_seconds=$2; shift 2 ;;
    --no-native) native=0; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) dirs+=("$1"); shift ;;
  esac
done
[[ ${#dirs[@]} -gt 0 ]] || { echo "usage: $0 [-j JOBS] [--native-seconds S] [--no-native] DIR..." >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
lockstep=$(realpath "${LOCKSTEP:-$root/build/bin/lockstep}")
difftest=$(realpath "${LOCKSTEP_DIFFTEST:-$root/build/bin/lockstep_difftest}")
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"
[[ -n ${KEEP:-} ]] || trap 'rm -rf "$work"' EXIT
start=$(date +%s.%N)

# 1. Import, one directory of litmus files at a time (each with its own kinds.txt).
total=0
refused=0
n=0
: > "$work/refusals.txt"
for d in "${dirs[@]}"; do
  while IFS= read -r sub; do
    mapfile -t files < <(find "$sub" -maxdepth 1 -name '*.litmus' | sort)
    [[ ${#files[@]} -gt 0 ]] || continue
    n=$((n + 1))
    out="$work/scenarios/$n"
    kinds=()
    [[ -f $sub/kinds.txt ]] && kinds=(--kinds "$sub/kinds.txt")
    total=$((total + ${#files[@]}))
    "$lockstep" import litmus "${files[@]}" --out "$out" "${kinds[@]}" -q 2>> "$work/refusals.txt" || true
  done < <(find "$d" -type d | sort)
done
refused=$(grep -c . "$work/refusals.txt" || true)

# 2. One line per test: name kind tso-dfs tso-smt sc-dfs sc-smt difftest native-forbidden-seen
one() {
  local f=$1 w=$2 lockstep=$3 difftest=$4 native=$5 secs=$6
  local base
  base=$(basename "$f" .yaml)
  local t="$w/tmp/$(echo "$f" | md5sum | cut -c1-12)"
  mkdir -p "$t"
  local kind=-
  grep -q 'herd verdict (kinds file): Allow' "$f" && kind=Allow
  grep -q 'herd verdict (kinds file): Forbid' "$f" && kind=Forbid
  local results=()
  for mm in tso sc; do
    for st in dfs smt; do
      sed -e "s/^memory_model: tso$/memory_model: $mm/" -e "s/^strategy: {kind: dfs}$/strategy: {kind: $st}/" "$f" > "$t/v.yaml"
      if "$lockstep" check "$t/v.yaml" --json "$t/r.json" --out-dir "$t" -q > /dev/null 2>&1 || [[ -s $t/r.json ]]; then
        results+=("$(jq -r .result "$t/r.json" 2>/dev/null || echo error)")
      else
        results+=(error)
      fi
      rm -f "$t/r.json"
    done
  done
  local diff=ok
  "$difftest" --file "$f" --workers 1 --no-smt > "$t/d.txt" 2>&1 || diff=mismatch
  local seen=-
  if [[ $native == 1 ]]; then
    seen=0
    "$lockstep" native "$f" --seconds "$secs" --json "$t/n.json" -q > /dev/null 2>&1 || true
    if [[ -s $t/n.json ]]; then
      seen=$(jq '[.rows[]? // . | .litmus.conditions[]? | select(.kind == "exists" and .checker.result == "unreachable") | .observed] | add // 0' "$t/n.json")
    else
      seen=error
    fi
  fi
  rm -rf "$t"
  echo "$base $kind ${results[*]} $diff $seen"
}
export -f one
find "$work/scenarios" -name '*.yaml' 2>/dev/null | sort > "$work/list.txt" || true
mkdir -p "$work/tmp"
xargs -a "$work/list.txt" -P "$jobs" -I{} bash -c 'one "$@"' _ {} "$work" "$lockstep" "$difftest" "$native" "$native_seconds" > "$work/lines.txt"
end=$(date +%s.%N)

# 3. The table.
awk -v total="$total" -v refused="$refused" -v secs="$(echo "$end - $start" | bc)" -v native="$native" '
{
  n++
  kind = $2; td = $3; ts = $4; sd = $5; ss = $6; diff = $7; seen = $8
  if (td == ts) tso_agree++; else tso_dis = tso_dis " " $1
  if (sd == ss) sc_agree++; else sc_dis = sc_dis " " $1
  if (td == "error" || ts == "error" || sd == "error" || ss == "error") errors++
  if (kind == "-") { unk++; if (td == "reachable") unk_reach++; else if (td == "unreachable") unk_unreach++ }
  else { known++; if ((kind == "Allow" && td == "reachable") || (kind == "Forbid" && td == "unreachable")) kagree++; else kdis = kdis " " $1 }
  if (td == "reachable" && sd == "unreachable") tso_only++
  if (td == "unreachable" && sd == "reachable") sc_only++
  if (diff == "ok") dagree++; else ddis = ddis " " $1
  if (seen != "-" && seen != "error" && seen > 0) { nat_bad++; nat_seen += seen; natdis = natdis " " $1 }
  if (seen == "error") nat_err++
}
END {
  printf "| measure | value |\n|---|---|\n"
  printf "| litmus files | %d |\n", total
  printf "| imported / refused | %d / %d |\n", n, refused
  printf "| dfs = smt under tso | %d of %d%s |\n", tso_agree, n, tso_dis == "" ? "" : " (differ:" tso_dis ")"
  printf "| dfs = smt under sc | %d of %d%s |\n", sc_agree, n, sc_dis == "" ? "" : " (differ:" sc_dis ")"
  printf "| reachable under tso, unreachable under sc (dfs) | %d |\n", tso_only
  printf "| reachable under sc, unreachable under tso (must be 0) | %d |\n", sc_only
  printf "| herd verdict known: dfs under tso agrees | %d of %d%s |\n", kagree, known, kdis == "" ? "" : " (differ:" kdis ")"
  printf "| no herd verdict (expectation unchecked): dfs tso reachable / unreachable | %d: %d / %d |\n", unk, unk_reach, unk_unreach
  printf "| lockstep_difftest (dfs vs reference and naive; counts) agrees | %d of %d%s |\n", dagree, n, ddis == "" ? "" : " (mismatch:" ddis ")"
  if (native == 1) printf "| native: tests with an outcome observed that dfs forbids under tso (must be 0) | %d (%d observations)%s%s |\n", nat_bad, nat_seen, (natdis == "" ? "" : ":" natdis), ((nat_err > 0) ? sprintf("; %d native runs failed", nat_err) : "")
  printf "| checks that failed to run | %d |\n", errors
  printf "| total time | %.1f s |\n", secs
}' "$work/lines.txt"
if [[ $refused -gt 0 ]]; then
  echo
  echo "refused (first 10; constructs):"
  head -10 "$work/refusals.txt"
fi
