#!/usr/bin/env bash
# Runs one oracle test file; exit 77 (ctest: skipped, shown as such) when the oracle's
# Python environment is missing, with the command that creates it.
python=$1; shift
if [ ! -x "$python" ]; then
  echo "SKIPPED: no oracle environment at $python; create it with scripts/setup.sh" >&2
  exit 77
fi
"$python" -m pytest -q -rs -p no:cacheprovider "$@"
rc=$?
# pytest exit 5 = nothing collected: that is a broken test file, not a pass.
exit $rc
