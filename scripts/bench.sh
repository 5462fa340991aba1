#!/usr/bin/env bash
# bench.sh runs the Go benchmarks of every package that has one, one package
# at a time (-p 1, so packages do not compete for the 2 cores), and writes
# the figures into docs/benchmarks.md, one marked section per package (see
# scripts/benchmd). The raw output is kept in build/bench.txt.
#
# Environment: BENCH (the -bench pattern, default .), BENCHFLAGS (extra go
# test flags, e.g. "-count=5 -benchtime=2s"), BENCH_OUT (default
# docs/benchmarks.md).
#
# Usage: scripts/bench.sh [packages...]   (default: every package with a
# func Benchmark*; `make bench`)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
pattern=${BENCH:-.}
out=${BENCH_OUT:-docs/benchmarks.md}
read -r -a extra <<<"${BENCHFLAGS:-}"

if [ $# -eq 0 ]; then
	# Packages whose tests declare a benchmark; bin/ and build/ hold no source.
	mapfile -t pkgs < <(grep -rlE --include='*_test.go' --exclude-dir=bin --exclude-dir=build \
		--exclude-dir=.git '^func Benchmark[A-Z0-9_]' . | xargs -r -n1 dirname | sort -u)
	set -- "${pkgs[@]+"${pkgs[@]}"}"
fi
if [ $# -eq 0 ]; then
	echo "bench: no benchmarks found; $out left as it is"
	exit 0
fi
echo "bench: packages: $*"

mkdir -p build
rc=0
go test -p 1 -run='^$' -bench="$pattern" -benchmem "${extra[@]+"${extra[@]}"}" "$@" >build/bench.txt 2>&1 || rc=$?
# benchmd echoes the output, rewrites the sections of the packages that
# passed, and fails if any package failed.
go run ./scripts/benchmd -o "$out" build/bench.txt || rc=1
if [ "$rc" -ne 0 ]; then
	echo "bench: FAIL (see build/bench.txt)" >&2
fi
exit "$rc"
