#!/usr/bin/env bash
# membench.sh measures the real aimdesk binary's memory under a private Xvfb
# display and D-Bus session bus, reading VmRSS and RssAnon from
# /proc/PID/status once the window has settled (each start reads the
# binary from disk: evict, below), and prints one line per figure as
# `mem: NAME VALUE UNIT`:
#
#   idle_rss, idle_anon   the app without --demo, no agent, MB
#   demo_rss, demo_anon   the app with --demo (the reference agent in process), MB
#   conv10k_rss, conv10k_anon
#                         the app (no agent running) after opening a stored
#                         conversation of 10,000 messages (scripts/memseed
#                         writes it through app/store; a second launch with
#                         --open asks the running window over the
#                         single-instance socket), MB
#   session_growth        a 30-minute session in compressed time with --demo:
#                         MEMBENCH_STEPS (180, one every 10 s of a real
#                         session, started every MEMBENCH_STEP_PERIOD s)
#                         second launches over the single-instance
#                         socket, each opening a view: --send of the reference
#                         agent's skills (messages, streamed Markdown, files,
#                         tasks, input requests, approvals, A2UI forms, failing
#                         tasks; each in a new conversation, closing the one
#                         before) or --open of the 10,000-message
#                         conversation. RSS at the end against RSS after the
#                         warm-up (the first round of every step), %
#   session_warm_rss, session_end_rss   the two RSS readings, MB
#   session_step_period   the mean seconds from one step's start to the
#                         next's (more than MEMBENCH_STEP_PERIOD when the
#                         machine could not keep up), s
#
# Time in the session runs 10 s / MEMBENCH_STEP_PERIOD times faster than in
# a real one, and so do Fyne's caches: Fyne keeps the renderers, canvas
# objects and textures of whatever was drawn in the last minute of wall
# time (FYNE_CACHE, default 1m). In a real session that minute holds 6 steps;
# compressed, it held 10 to 40 by the machine's speed, and the figure moved
# with the load (9.8-19.8 %). The session's app therefore gets FYNE_CACHE
# scaled as its clock is: 60 s x MEMBENCH_STEP_PERIOD / 10 s (12 s by
# default), and the steps are paced rather than run back to back.
#
# The session takes a few minutes (180 x MEMBENCH_STEP_PERIOD, 6 at the
# default, more when steps take longer: each step starts the binary once
# more); MEMBENCH_ONLY leaves it out.
#
# It exits non-zero when a figure misses its goal (docs/benchmarks.md,
# Memory): idle_anon < 60, idle_rss < 150, demo_anon < 90,
# conv10k_rss < idle_rss + 30, session_growth <= 10.
#
# Usage: scripts/membench.sh [binary]   (default build/aimdesk; `make membench`)
#
# Environment (all optional):
#   MEMBENCH_SETTLE       seconds the window settles before reading (default 8)
#   MEMBENCH_PROFILE_DIR  also write a heap profile and a copy of smaps per
#                         run there (SIGUSR1, AIMDESK_HEAPPROFILE) for
#                         `go tool pprof`; the session also at its warm-up
#                         (session-warm.*)
#   MEMBENCH_ONLY         space-separated runs to do (idle demo conv10k session;
#                         also floor: floor_rss, floor_anon, an empty Fyne
#                         window built by scripts/memfloor with the same tags,
#                         the least any Fyne app takes here; not by default)
#   MEMBENCH_STEPS        session steps (default 180)
#   MEMBENCH_STEP_PERIOD  seconds from one session step's start to the next
#                         (default 2; a step stands for 10 s of a session)
#   MEMBENCH_NO_GOALS=1   print the figures without failing on a missed goal
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-$root/build/aimdesk}
settle=${MEMBENCH_SETTLE:-8}
profdir=${MEMBENCH_PROFILE_DIR:-}
only=${MEMBENCH_ONLY:-idle demo conv10k session}
steps=${MEMBENCH_STEPS:-180}
step_period=${MEMBENCH_STEP_PERIOD:-2}
lang=${APP_LANG:-en_US.UTF-8}
title='^aimdesk$'

say() { printf 'membench: %s\n' "$*" >&2; }
fail() {
	printf 'membench: FAIL: %s\n' "$*" >&2
	exit 1
}
for tool in Xvfb xdotool dbus-daemon; do
	command -v "$tool" >/dev/null || fail "$tool not found (run scripts/setup.sh)"
done
[ -x "$bin" ] || fail "app binary $bin not found (run make build)"

tmp=$(mktemp -d)
xvfb_pid="" bus_pid="" app_pid=""
stop_pid() {
	local pid=$1 sig=${2:-TERM}
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill "-$sig" "$pid" 2>/dev/null || true
		for _ in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
}
cleanup() {
	stop_pid "$app_pid"
	stop_pid "$xvfb_pid"
	stop_pid "$bus_pid"
	rm -rf "$tmp"
}
trap cleanup EXIT

# A private X server (1280x800, as the smoke test) and session bus.
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp -noreset 3>"$tmp/display" >"$tmp/xvfb.log" 2>&1 &
xvfb_pid=$!
display=""
for _ in $(seq 1 100); do
	display=$(tr -dc '0-9' <"$tmp/display" 2>/dev/null || true)
	[ -n "$display" ] && break
	sleep 0.1
done
[ -n "$display" ] || fail "Xvfb did not report a display"
export DISPLAY=":$display"
dbus-daemon --session --nofork --nopidfile --address="unix:path=$tmp/bus" \
	--print-address=4 4>"$tmp/bus.address" >"$tmp/bus.log" 2>&1 &
bus_pid=$!
for _ in $(seq 1 100); do
	[ -s "$tmp/bus.address" ] && break
	sleep 0.1
done
[ -s "$tmp/bus.address" ] || fail "the D-Bus session bus did not start"
export DBUS_SESSION_BUS_ADDRESS
DBUS_SESSION_BUS_ADDRESS=$(head -n 1 "$tmp/bus.address")

# status_mb FIELD prints a /proc/PID/status field of the app in MB.
status_mb() {
	awk -v f="$1:" '$1 == f { printf "%.1f", $2 / 1024 }' "/proc/$app_pid/status"
}

# app_env holds NAME=VALUE settings for the next start (the session's
# FYNE_CACHE).
app_env=()

# evict drops the binary (and its plugin, which --demo opens) from the
# page cache, so that each start reads it
# from disk as a user's first start after boot does. Without it the
# figures depend on how the file came into the cache: the linker writes its
# output through a mapping, which leaves it in 2 MB folios, and a start
# maps every folio it touches whole: idle_rss 179.9 MB right after `go
# build` against 166.7-168.3 MB for the same binary read from disk (2026-12-02;
# docs/benchmarks.md, Memory).
evict() {
	local f
	for f in "$bin" "$(dirname "$bin")/aimdesk-parts.so"; do
		[ -e "$f" ] || continue
		sync -- "$f" 2>/dev/null || sync
		dd if="$f" iflag=nocache count=0 status=none 2>/dev/null || say "could not drop $f from the page cache"
	done
}

# start NAME ARGS... starts the app with fresh config/data dirs (a data dir
# prepared in $tmp/NAME.data is kept), read from disk (evict), and waits
# for its window.
start() {
	local name=$1
	shift
	evict
	local home=$tmp/$name
	mkdir -p "$home/config" "$home/data" "$home/cache" "$home/runtime"
	chmod 700 "$home/runtime"
	env -u LANGUAGE LANG="$lang" LC_ALL="$lang" \
		XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" \
		XDG_CACHE_HOME="$home/cache" XDG_RUNTIME_DIR="$home/runtime" \
		AIMDESK_HEAPPROFILE="$home/heap.pprof" ${app_env[@]+"${app_env[@]}"} \
		"$bin" "$@" >"$home/app.log" 2>&1 &
	app_pid=$!
	wid=""
	for _ in $(seq 1 1200); do
		wid=$(xdotool search --onlyvisible --name "$title" 2>/dev/null | head -n 1 || true)
		[ -n "$wid" ] && break
		kill -0 "$app_pid" 2>/dev/null || {
			tail -n 30 "$home/app.log" >&2
			fail "$name: the app exited before its window was mapped"
		}
		sleep 0.05
	done
	[ -n "$wid" ] || fail "$name: no window within 60 s"
}

# again NAME ARGS... is a second launch of the app with NAME's directories:
# it hands ARGS to the running window over the single-instance socket and
# prints the window's answer.
again() {
	local name=$1
	shift
	local home=$tmp/$name
	env -u LANGUAGE LANG="$lang" LC_ALL="$lang" \
		XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" \
		XDG_CACHE_HOME="$home/cache" XDG_RUNTIME_DIR="$home/runtime" \
		"$bin" "$@" 2>&1 | tail -n 1
}

# seed NAME [AGENT] writes the 10,000-message conversation into NAME's
# history (scripts/memseed, built once).
seed() {
	local db=$tmp/$1/history.db
	if [ ! -x "$tmp/memseed" ]; then
		(cd "$root" && go build -o "$tmp/memseed" ./scripts/memseed) || fail "build scripts/memseed"
	fi
	mkdir -p "$tmp/$1"
	"$tmp/memseed" -db "$db" -n 10000 ${2:+-agent "$2"} >/dev/null || fail "$1: memseed"
	echo "$db"
}

# profile NAME [AS] writes the heap profile and smaps of NAME's app to
# $profdir/AS.pprof and AS.smaps (AS defaults to NAME), when asked.
profile() {
	local name=$1 as=${2:-$1} home=$tmp/$1
	[ -n "$profdir" ] || return 0
	rm -f "$home/heap.pprof"
	kill -USR1 "$app_pid"
	for _ in $(seq 1 50); do
		[ -s "$home/heap.pprof" ] && break
		sleep 0.1
	done
	sleep 0.5
	mkdir -p "$profdir"
	cp "/proc/$app_pid/smaps" "$profdir/$as.smaps" 2>/dev/null || true
	cp "$home/heap.pprof" "$profdir/$as.pprof" && say "heap profile $profdir/$as.pprof"
	grep 'memstats' "$home/app.log" | tail -n 1 >&2 || true
}

# finish NAME writes the heap profile (when asked) and stops the app.
finish() {
	local name=$1 home=$tmp/$1
	profile "$name"
	stop_pid "$app_pid"
	app_pid=""
	if grep -qE '^(panic:|fatal error:)' "$home/app.log"; then
		tail -n 30 "$home/app.log" >&2
		fail "$name: the app panicked"
	fi
}

declare -A fig
report() {
	fig[$1]=$2
	echo "mem: $1 $2 $3"
}

run_idle() {
	start idle
	sleep "$settle"
	report idle_rss "$(status_mb VmRSS)" MB
	report idle_anon "$(status_mb RssAnon)" MB
	finish idle
}

run_demo() {
	start demo --demo
	sleep "$settle"
	report demo_rss "$(status_mb VmRSS)" MB
	report demo_anon "$(status_mb RssAnon)" MB
	finish demo
}

# run_floor measures scripts/memfloor in place of the app (same tags, same
# display and settling time).
run_floor() {
	(cd "$root" && go build -tags release,no_emoji,migrated_fynedo -o "$tmp/memfloor" ./scripts/memfloor) || fail "build scripts/memfloor"
	local app=$bin
	bin=$tmp/memfloor
	start floor
	bin=$app
	sleep "$settle"
	report floor_rss "$(status_mb VmRSS)" MB
	report floor_anon "$(status_mb RssAnon)" MB
	finish floor
}

# rss_mb prints the app's VmRSS in MB, the mean of five readings a second
# apart (the Go heap and Mesa's caches move by a few MB from one moment to
# the next).
rss_mb() {
	local sum=0 v
	for _ in 1 2 3 4 5; do
		v=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$app_pid/status")
		sum=$((sum + v))
		sleep 1
	done
	awk -v s="$sum" 'BEGIN { printf "%.1f", s / 5 / 1024 }'
}

run_conv10k() {
	local db
	db=$(seed conv10k)
	start conv10k --data "$db"
	sleep "$settle"
	local res
	res=$(again conv10k --data "$db" --open membench-conv)
	[[ $res == *"opening conversation membench-conv"* ]] || fail "conv10k: the running window did not take --open: $res"
	sleep "$settle"
	report conv10k_rss "$(status_mb VmRSS)" MB
	report conv10k_anon "$(status_mb RssAnon)" MB
	finish conv10k
}

# The session's steps, in order, repeated: what a user does in half an
# hour with the reference agent (its skills by their keywords), and going
# back to the long conversation now and then.
session_steps=(
	"--send=Hello, agent!"
	"--send=task remember the milk"
	"--send=long"
	"--send=file"
	"--send=ask"
	"--send=confirm"
	"--send=form"
	"--open=membench-conv"
	"--send=slow"
	"--send=fail"
	"--send=bench 500"
	"--send=What did we say about the milk?"
)

# now_s prints the time in seconds (with fractions).
now_s() { date +%s.%N; }

run_session() {
	local db warm end i res t0 next wait_s paced=0 warmed=0
	db=$(seed session demo-reference-agent)
	# Fyne's one-minute caches at the session's clock (see the top).
	app_env=("FYNE_CACHE=$(awk -v p="$step_period" 'BEGIN { printf "%.3fs", 60 * p / 10 }')")
	start session --demo --data "$db"
	app_env=()
	sleep "$settle"
	t0=$(now_s)
	for ((i = 0; i < steps; i++)); do
		# Step i starts at t0 + i x period, or at once when behind.
		next=$(awk -v t="$t0" -v i="$i" -v p="$step_period" 'BEGIN { printf "%.3f", t + i * p }')
		wait_s=$(awk -v n="$next" -v now="$(now_s)" 'BEGIN { d = n - now; printf "%.3f", (d > 0 ? d : 0) }')
		sleep "$wait_s"
		res=$(again session --data "$db" "${session_steps[i % ${#session_steps[@]}]}")
		[[ $res == *"window raised"* ]] || fail "session: step $i (${session_steps[i % ${#session_steps[@]}]}): $res"
		if ((i == ${#session_steps[@]} - 1)); then
			sleep "$settle"
			warm=$(rss_mb)
			say "session: warm-up done after $((i + 1)) steps, RSS $warm MB"
			profile session session-warm
			# The pause for the reading is not part of the paced session.
			warmed=$(awk -v a="$(now_s)" -v t="$t0" -v n="$((i + 1))" -v p="$step_period" 'BEGIN { printf "%.3f", a - t - n * p }')
			t0=$(awk -v t="$t0" -v w="$warmed" 'BEGIN { printf "%.3f", t + (w > 0 ? w : 0) }')
			paced=$(now_s)
		fi
	done
	local took
	took=$(awk -v a="$(now_s)" -v b="$paced" -v n="$((steps - ${#session_steps[@]}))" 'BEGIN { printf "%.2f", (n > 0 ? (a - b) / n : 0) }')
	sleep "$settle"
	end=$(rss_mb)
	report session_warm_rss "$warm" MB
	report session_end_rss "$end" MB
	report session_step_period "$took" s
	report session_growth "$(awk -v w="$warm" -v e="$end" 'BEGIN { printf "%.1f", (e - w) / w * 100 }')" %
	finish session
}

has() { [[ " $only " == *" $1 "* ]]; }
has idle && run_idle
has demo && run_demo
has conv10k && run_conv10k
has session && run_session
has floor && run_floor

if [ -z "${MEMBENCH_NO_GOALS:-}" ]; then
	missed=()
	check() { # NAME OP LIMIT
		local v=${fig[$1]:-}
		[ -n "$v" ] || return 0
		awk -v v="$v" -v l="$3" -v op="$2" 'BEGIN { exit !((op == "<" && v < l) || (op == "<=" && v <= l)) }' ||
			missed+=("$1 $v (goal $2 $3)")
	}
	check idle_anon "<" 60
	check idle_rss "<" 150
	check demo_anon "<" 90
	[ -n "${fig[idle_rss]:-}" ] && [ -n "${fig[conv10k_rss]:-}" ] &&
		check conv10k_rss "<" "$(awk -v i="${fig[idle_rss]}" 'BEGIN { print i + 30 }')"
	check session_growth "<=" 10
	[ ${#missed[@]} -eq 0 ] || fail "goals missed: ${missed[*]}"
	say "all goals met"
fi
