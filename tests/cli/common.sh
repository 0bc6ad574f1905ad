# Shared by the end-to-end test scripts: sourced after `lockstep` and `src` are set. Makes a
# scratch directory (removed on exit), enters the source tree, counts passes and failures.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$src" || exit 1
# `preset: host` reads this host's last calibration (docs/machines.md): none here, so runs do
# not depend on what the user calibrated.
export LOCKSTEP_CALIBRATION_DIR="$work/calibration"
failures=0
passes=0

pass() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
