# Helpers the bench scripts share: `source "$(dirname "$0")/lib.sh"`.

# release_lockstep: configures the release preset and builds build/bin/lockstep, quietly.
release_lockstep() {
  cmake --preset release >/dev/null
  cmake --build --preset release --target lockstep >/dev/null
}

# seconds CMD...: the wall seconds CMD takes, to the millisecond. Its output is discarded, so
# that `t=$(seconds ...)` holds the time alone.
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.3f}')"
}

# one_row SWEEP MODEL DIR: SWEEP without its sweep and with `memory_model: MODEL` (the
# scenario files under scenarios/bench/ sweep the model), written to DIR; prints its path.
one_row() {
  local to
  to="$3/$(basename "$1" .yaml)-$2.yaml"
  sed "/^sweep:/d; s/^memory_model: sc/memory_model: $2/" "$1" >"$to"
  echo "$to"
}
