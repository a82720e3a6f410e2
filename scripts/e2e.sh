#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# make test's end-to-end step: the suite on the sanitizer build (build-asan) and on the release
# build (BUILD, default build), both whole (SAN_BUILD: another sanitizer build folder).
#
# Most tests wait (timers, retransmissions, DHCP and RADIUS exchanges), so the two builds' runs
# go at once, each without the tests marked timing (rates, pacing, durations: conftest.py);
# those then run alone, the sanitizer build's then the release build's. The sanitizer build's
# sluiced takes no hugepages (SL_TEST_NO_HUGE=1): they stay for the release build's, whose
# benchmark-harness tests need them. Each run's output is printed when it ends (the release
# build's first run as it goes); the exit status is 1 if any run failed.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
PY=${PY:-.venv/bin/python}
PYTEST=("$PY" -m pytest -q -p no:cacheprovider tests/e2e)
SAN=(ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
     SL_TEST_NO_HUGE=1 SLUICE_BUILD=${SAN_BUILD:-build-asan})
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0

echo "== $(date +%T) end-to-end, both builds at once (not the timing tests)"
env "${SAN[@]}" "${PYTEST[@]}" -m "not timing" >"$log" 2>&1 &
san=$!
SLUICE_BUILD=$BUILD "${PYTEST[@]}" -m "not timing" || rc=1
wait $san || rc=1
echo "== $(date +%T) the sanitizer build's run:"
cat "$log"

echo "== $(date +%T) end-to-end, the timing tests, sanitizer build"
env "${SAN[@]}" "${PYTEST[@]}" -m timing || rc=1
echo "== $(date +%T) end-to-end, the timing tests, release build"
SLUICE_BUILD=$BUILD "${PYTEST[@]}" -m timing || rc=1
exit $rc
