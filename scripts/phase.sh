#!/usr/bin/env bash
# phase.sh NAME COMMAND [ARG...] runs COMMAND as one named phase of a build:
# it prints a header, runs the command, and prints how long it took and
# whether it passed. When PHASE_LOG names a file, it also appends
# "NAME<TAB>SECONDS<TAB>ok|FAIL" to it, so .ci/run can print a summary.
# The exit status is the command's.
set -uo pipefail

name=$1
shift
start=$(date +%s%N)
printf '\n==> %s\n' "$name"
rc=0
"$@" || rc=$?
end=$(date +%s%N)
secs=$(awk -v ns=$((end - start)) 'BEGIN { printf "%.1f", ns / 1e9 }')
status=ok
[ "$rc" -eq 0 ] || status=FAIL
printf '<== %s: %s s (%s)\n' "$name" "$secs" "$status"
if [ -n "${PHASE_LOG:-}" ]; then
	printf '%s\t%s\t%s\n' "$name" "$secs" "$status" >>"$PHASE_LOG"
fi
exit "$rc"
