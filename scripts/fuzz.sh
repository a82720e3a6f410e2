#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds the libFuzzer harnesses with ASan and UBSan and runs each for a bounded time
# (FUZZ_SECONDS, default 20) from the seed corpus in tests/fuzz/corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-20}
if [ ! -f build-fuzz/build.ninja ]; then
	CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
		-Dbuildtype=debug -Dc_args=-fsanitize=fuzzer-no-link >/dev/null
fi
ninja -C build-fuzz >/dev/null
for t in config cli ip4 ifaces pg genctl radius; do
	work=$(mktemp -d)
	cp -r tests/fuzz/corpus/$t/. "$work/" 2>/dev/null || true
	echo "fuzz_$t: ${secs}s"
	ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		./build-fuzz/tests/fuzz/fuzz_$t -max_total_time="$secs" -rss_limit_mb=4096 \
		-max_len=4096 -print_final_stats=1 "$work" 2>&1 | grep -E "^(stat::number_of_executed_units|==|SUMMARY|.*ERROR)" || true
	status=${PIPESTATUS[0]}
	rm -rf "$work"
	if [ "$status" -ne 0 ]; then
		echo "fuzz_$t failed (exit $status)"
		exit 1
	fi
done
echo "fuzz: all harnesses ran clean"
