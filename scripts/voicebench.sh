#!/usr/bin/env bash
# voicebench.sh runs every voice benchmark test in the tree (func
# TestVoiceBench… in a _test.go file) with AIMDESK_BENCH=1 against the real
# livekit-server, one package at a time, prints the `voice: NAME VALUE UNIT`
# figure lines together at the end, and writes them into the "Voice" section
# of docs/benchmarks.md (between `<!-- voice:begin -->` and
# `<!-- voice:end -->`, replaced by every run that printed figures; appended
# when missing). It exits non-zero if any test failed, a figure that misses
# its goal included. The raw output is kept in build/voicebench.txt.
#
# Environment: LIVEKIT_SERVER (default bin/livekit-server), VOICE_OUT
# (default docs/benchmarks.md), VOICEFLAGS (extra go test flags).
#
# Usage: scripts/voicebench.sh [packages...]   (default: every package with
# a TestVoiceBench test; `make voicebench`)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=${VOICE_OUT:-docs/benchmarks.md}
raw=build/voicebench.txt
read -r -a extra <<<"${VOICEFLAGS:-}"
export AIMDESK_BENCH=1
export LIVEKIT_SERVER=${LIVEKIT_SERVER:-$root/bin/livekit-server}
export LANG=${APP_LANG:-en_US.UTF-8} LC_ALL=${APP_LANG:-en_US.UTF-8}
unset LANGUAGE

if [ $# -eq 0 ]; then
	mapfile -t pkgs < <(grep -rlE --include='*_test.go' --exclude-dir=bin --exclude-dir=build \
		--exclude-dir=.git '^func TestVoiceBench[A-Z0-9_]' . | xargs -r -n1 dirname | sort -u)
	set -- "${pkgs[@]+"${pkgs[@]}"}"
fi
if [ $# -eq 0 ]; then
	echo "voicebench: no TestVoiceBench tests found; $out left as it is"
	exit 0
fi
echo "voicebench: packages: $*"

mkdir -p build
rc=0
go test -p 1 -timeout 30m -run '^TestVoiceBench' -count=1 -v "${extra[@]+"${extra[@]}"}" "$@" 2>&1 | tee "$raw" || rc=$?

figures=$(grep -E '^voice: [A-Za-z0-9_]+ ' "$raw" || true)
results=$(grep -E '^--- (PASS|FAIL|SKIP): TestVoiceBench' "$raw" | sed -E 's/^--- ([A-Z]+): (TestVoiceBench[A-Za-z0-9_]*).*/\2 \1/' || true)
if grep -qE '^--- FAIL|^FAIL' "$raw"; then
	rc=1
fi

echo
echo "==> voice figures"
if [ -n "$figures" ]; then echo "$figures"; else echo "(none)"; fi
if [ -n "$results" ]; then echo "$results" | sed 's/^/    /'; fi

if [ -n "$figures" ]; then
	cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
	meta="_$(date -u '+%Y-%m-%d %H:%M UTC'); $(go env GOVERSION), $(go env GOOS)/$(go env GOARCH), ${cpu:-unknown CPU}, $(nproc) cores (shared).$(
		[ -n "$results" ] && printf ' %s' "$(echo "$results" | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')"
	)._"
	section=$(mktemp)
	{
		echo '<!-- voice:begin -->'
		echo '## Voice (make voicebench)'
		echo
		echo "$meta"
		echo
		echo 'Figures printed by the `TestVoiceBench…` tests (`voice: NAME VALUE UNIT`); what'
		echo 'each one measures, and how, is in docs/media.md ("Voice benchmark").'
		echo
		echo '| figure | value | goal |'
		echo '|---|---:|---|'
		echo "$figures" | awk '
			BEGIN {
				goal["m2e_p50"] = "≤ 60 ms"; goal["m2e_p99"] = "≤ 100 ms"
				goal["impaired_m2e_p50"] = "≤ 120 ms"; goal["impaired_concealed"] = "≤ loss + 1 %"
				goal["impaired_max_gap"] = "≤ 40 ms"
				goal["erle"] = "≥ 25 dB"; goal["doubletalk_loss"] = "≤ 3 dB"; goal["call_cpu"] = "≤ 10 %"
				goal["barge_in_state"] = "≤ 500 ms"; goal["barge_in_audio_stop"] = "≤ 500 ms"
				goal["barge_in_echo_state"] = "≤ 500 ms"; goal["barge_in_echo_audio_stop"] = "≤ 500 ms"
			}
			{ printf "| %s | %s %s | %s |\n", $2, $3, $4, goal[$2] }'
		echo '<!-- voice:end -->'
	} >"$section"
	[ -f "$out" ] || printf '# Benchmarks\n' >"$out"
	tmp=$(mktemp)
	if grep -q '^<!-- voice:begin -->$' "$out"; then
		awk -v f="$section" '
			/^<!-- voice:begin -->$/ { while ((getline l < f) > 0) print l; skip = 1; next }
			/^<!-- voice:end -->$/ { skip = 0; next }
			!skip { print }' "$out" >"$tmp"
	else
		{ cat "$out"; echo; cat "$section"; } >"$tmp"
	fi
	cat "$tmp" >"$out"
	rm -f "$tmp" "$section"
	echo "voicebench: wrote the Voice section of $out"
fi
if [ "$rc" -ne 0 ]; then
	echo "voicebench: FAIL (see $raw)" >&2
fi
exit "$rc"
