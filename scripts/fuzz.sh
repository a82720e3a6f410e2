#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds the libFuzzer harnesses with ASan and UBSan and runs each for a bounded time
# (FUZZ_SECONDS, default 20) from the seed corpus in tests/fuzz/corpus, FUZZ_JOBS of them at
# a time (default: one a CPU); FUZZ_HARNESSES names a subset.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-20}
if [ ! -f build-fuzz/build.ninja ]; then
	CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
		-Dbuildtype=debug -Dc_args=-fsanitize=fuzzer-no-link >/dev/null
fi
ninja -C build-fuzz >/dev/null
# the harnesses run side by side, one a CPU (FUZZ_JOBS), each into its own log; a failure is
# reported with that harness's lines once all have ended
run_one() {
	local t=$1 work
	work=$(mktemp -d)
	cp -r tests/fuzz/corpus/$t/. "$work/" 2>/dev/null || true
	ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		./build-fuzz/tests/fuzz/fuzz_$t -max_total_time="$secs" -rss_limit_mb=4096 \
		-max_len=4096 -print_final_stats=1 "$work" >"$logs/$t" 2>&1
	local status=$?
	rm -rf "$work"
	return $status
}
export -f run_one
export secs
logs=$(mktemp -d)
export logs
harnesses=${FUZZ_HARNESSES:-config cli ip4 ifaces pg genctl radius}
echo "fuzz: $harnesses, ${secs}s each, ${FUZZ_JOBS:=$(nproc)} at a time"
rc=0
printf '%s\n' $harnesses | xargs -P "$FUZZ_JOBS" -I{} bash -c 'run_one {} || { s=$?; echo "fuzz_{} failed (exit $s)"; touch "$logs/{}.failed"; exit 1; }' || rc=1
for t in $harnesses; do
	echo "fuzz_$t: ${secs}s"
	grep -E "^(stat::number_of_executed_units|==|SUMMARY|.*ERROR)" "$logs/$t" || true
	[ -f "$logs/$t.failed" ] && tail -n 40 "$logs/$t"
done
rm -rf "$logs"
if [ "$rc" -ne 0 ]; then
	exit 1
fi
echo "fuzz: all harnesses ran clean"
