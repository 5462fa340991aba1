#!/usr/bin/env bash
# smoke.sh runs the real aimdesk binary in demo mode under a private Xvfb
# display, waits for its main window to be mapped, screenshots it, checks the
# screenshot is not blank, and stops the app and Xvfb. The app gets a private
# D-Bus session bus, as in a desktop session. It prints the time
# from process start to the window being mapped.
#
# Usage: scripts/smoke.sh [binary]   (default build/aimdesk; `make smoke`)
#
# Environment (all optional):
#   SMOKE_SCREENSHOT      output PNG (default build/screenshots/demo.png); the
#                         app's output is kept beside it as <name>.log
#   SMOKE_WINDOW_TIMEOUT  seconds to wait for the window (default 60)
#   SMOKE_SETTLE          seconds to let it draw before the screenshot (default 2)
#   SMOKE_SEND            text the app sends to the reference agent at start
#                         (default "long": a streamed Markdown answer)
#   SMOKE_CHAT_SCREENSHOT the conversation once the answer streamed (default
#                         build/screenshots/chat.png)
#   SMOKE_CHAT_WAIT       seconds to let the answer stream (default 8)
#   SMOKE_MIN_COLOURS     fewest distinct colours a drawn window has (default 16)
#   SMOKE_SCREEN          Xvfb screen geometry (default 1280x800x24)
#   SMOKE_LANG            the app's LANG and LC_ALL (default en_US.UTF-8)
#   SMOKE_NO_BUS=1        run the app without a D-Bus session bus (as over ssh
#                         or on a bare X server) instead of on a private one
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-$root/build/aimdesk}
shot=${SMOKE_SCREENSHOT:-$root/build/screenshots/demo.png}
applog=${shot%.png}.log
window_timeout=${SMOKE_WINDOW_TIMEOUT:-60}
settle=${SMOKE_SETTLE:-2}
send=${SMOKE_SEND-long}
chat_shot=${SMOKE_CHAT_SCREENSHOT:-$root/build/screenshots/chat.png}
chat_wait=${SMOKE_CHAT_WAIT:-8}
min_colours=${SMOKE_MIN_COLOURS:-16}
screen=${SMOKE_SCREEN:-1280x800x24}
lang=${SMOKE_LANG:-en_US.UTF-8}
title='^aimdesk$'

say() { printf 'smoke: %s\n' "$*"; }
fail() {
	printf 'smoke: FAIL: %s\n' "$*" >&2
	exit 1
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }

tools=(Xvfb xdotool import identify)
[ -n "${SMOKE_NO_BUS:-}" ] || tools+=(dbus-daemon)
for tool in "${tools[@]}"; do
	command -v "$tool" >/dev/null || fail "$tool not found (run scripts/setup.sh)"
done
[ -x "$bin" ] || fail "app binary $bin not found or not executable (run make build)"

tmp=$(mktemp -d)
xvfb_pid=""
app_pid=""
bus_pid=""
cleanup() {
	if [ -n "$app_pid" ] && kill -0 "$app_pid" 2>/dev/null; then
		kill -KILL "$app_pid" 2>/dev/null || true
		wait "$app_pid" 2>/dev/null || true
	fi
	if [ -n "$xvfb_pid" ] && kill -0 "$xvfb_pid" 2>/dev/null; then
		kill -TERM "$xvfb_pid" 2>/dev/null || true
		wait "$xvfb_pid" 2>/dev/null || true
	fi
	if [ -n "$bus_pid" ] && kill -0 "$bus_pid" 2>/dev/null; then
		kill -TERM "$bus_pid" 2>/dev/null || true
		wait "$bus_pid" 2>/dev/null || true
	fi
	if [ -f "$tmp/app.log" ]; then
		mkdir -p "$(dirname "$applog")"
		cp "$tmp/app.log" "$applog" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

show_log() {
	local name=$1 file=$2
	if [ -s "$file" ]; then
		printf -- '--- %s (last 40 lines) ---\n' "$name" >&2
		tail -n 40 "$file" >&2
		printf -- '---\n' >&2
	fi
}

# 1. A private X server. -displayfd makes Xvfb pick a free display number
# itself and report it, so parallel runs never collide.
Xvfb -displayfd 3 -screen 0 "$screen" -nolisten tcp -noreset \
	3>"$tmp/display" >"$tmp/xvfb.log" 2>&1 &
xvfb_pid=$!
display=""
for _ in $(seq 1 100); do
	display=$(tr -dc '0-9' <"$tmp/display" 2>/dev/null || true)
	[ -n "$display" ] && break
	kill -0 "$xvfb_pid" 2>/dev/null || {
		show_log Xvfb "$tmp/xvfb.log"
		fail "Xvfb exited before reporting a display"
	}
	sleep 0.1
done
[ -n "$display" ] || {
	show_log Xvfb "$tmp/xvfb.log"
	fail "Xvfb did not report a display within 10 s"
}
export DISPLAY=":$display"
say "Xvfb on $DISPLAY ($screen)"

# 2. A private D-Bus session bus, as a desktop session has (Fyne uses it for
# settings, notifications and the system tray), unless SMOKE_NO_BUS is set.
bus_address="unix:path=$tmp/no-session-bus"
if [ -z "${SMOKE_NO_BUS:-}" ]; then
	dbus-daemon --session --nofork --nopidfile --address="unix:path=$tmp/bus" \
		--print-address=4 4>"$tmp/bus.address" >"$tmp/bus.log" 2>&1 &
	bus_pid=$!
	for _ in $(seq 1 100); do
		[ -s "$tmp/bus.address" ] && break
		kill -0 "$bus_pid" 2>/dev/null || break
		sleep 0.1
	done
	[ -s "$tmp/bus.address" ] || {
		show_log dbus-daemon "$tmp/bus.log"
		fail "the D-Bus session bus did not start"
	}
	bus_address=$(head -n 1 "$tmp/bus.address")
	say "D-Bus session bus at $bus_address"
else
	say "no D-Bus session bus (SMOKE_NO_BUS)"
fi

# 3. The app, with its own config/data/cache dirs so the user's state does not
# leak in.
mkdir -p "$tmp/config" "$tmp/data" "$tmp/cache" "$tmp/runtime"
chmod 700 "$tmp/runtime"
start=$(now_ms)
env -u LANGUAGE LANG="$lang" LC_ALL="$lang" \
	XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" \
	XDG_CACHE_HOME="$tmp/cache" XDG_RUNTIME_DIR="$tmp/runtime" \
	DBUS_SESSION_BUS_ADDRESS="$bus_address" \
	"$bin" --demo --send "$send" >"$tmp/app.log" 2>&1 &
app_pid=$!
say "started $bin --demo --send '$send' (pid $app_pid)"

# 4. Wait for the main window to be mapped (viewable), polling every 50 ms so
# the start-up time is measured finely and an early exit is caught at once.
wid=""
deadline=$((start + window_timeout * 1000))
while :; do
	wid=$(xdotool search --onlyvisible --name "$title" 2>/dev/null | head -n 1 || true)
	[ -n "$wid" ] && break
	if ! kill -0 "$app_pid" 2>/dev/null; then
		rc=0
		wait "$app_pid" || rc=$?
		app_pid=""
		show_log app "$tmp/app.log"
		fail "app exited with status $rc before its window was mapped"
	fi
	if [ "$(now_ms)" -ge "$deadline" ]; then
		show_log app "$tmp/app.log"
		fail "no visible window named 'aimdesk' within ${window_timeout} s"
	fi
	sleep 0.05
done
mapped_ms=$(($(now_ms) - start))
say "window $wid mapped ${mapped_ms} ms after process start"
echo "time-to-window-ms: $mapped_ms"

# 5. Let it draw, then screenshot the window. A window that has not painted
# yet is one flat colour, so retry a few times before calling it blank.
mkdir -p "$(dirname "$shot")"
colours=0
for attempt in 1 2 3 4 5; do
	sleep "$settle"
	kill -0 "$app_pid" 2>/dev/null || {
		show_log app "$tmp/app.log"
		fail "app exited after its window was mapped"
	}
	if ! import -window "$wid" "$shot" 2>"$tmp/import.log"; then
		show_log import "$tmp/import.log"
		say "window capture failed; capturing the root window"
		import -window root "$shot" 2>"$tmp/import.log" || {
			show_log import "$tmp/import.log"
			fail "screenshot failed"
		}
	fi
	colours=$(identify -format '%k' "$shot" 2>/dev/null || echo 0)
	[ "$colours" -gt "$min_colours" ] && break
	say "attempt $attempt: screenshot has $colours colours, waiting for the window to draw"
done
[ "$colours" -gt "$min_colours" ] ||
	fail "screenshot $shot looks blank: $colours colours (want > $min_colours)"
size=$(identify -format '%wx%h' "$shot")
say "screenshot $shot ($size, $colours colours)"
rss_kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$app_pid/status" 2>/dev/null || echo 0)
anon_kb=$(awk '/^RssAnon:/ {print $2}' "/proc/$app_pid/status" 2>/dev/null || echo 0)
echo "idle-rss-kb: $rss_kb"
echo "idle-rss-anon-kb: $anon_kb (the rest is file-backed: the binary and, under Xvfb, Mesa's libLLVM)"

# 5b. The conversation the app started with --send: once the answer has
# streamed, the window must look different from the first screenshot.
if [ -n "$send" ]; then
	sleep "$chat_wait"
	kill -0 "$app_pid" 2>/dev/null || {
		show_log app "$tmp/app.log"
		fail "app exited while the answer streamed"
	}
	mkdir -p "$(dirname "$chat_shot")"
	import -window "$wid" "$chat_shot" 2>"$tmp/import.log" || import -window root "$chat_shot" 2>"$tmp/import.log" || {
		show_log import "$tmp/import.log"
		fail "chat screenshot failed"
	}
	changed=$(compare -metric AE "$shot" "$chat_shot" null: 2>&1 >/dev/null | awk '{print int($1)}' || true)
	say "chat screenshot $chat_shot (${changed:-?} pixels differ from the first)"
	[ "${changed:-0}" -gt 1000 ] || fail "the conversation did not change the window: no streamed answer visible"
fi

if grep -qE '^(panic:|fatal error:)|DATA RACE' "$tmp/app.log"; then
	show_log app "$tmp/app.log"
	fail "the app's log has a panic, fatal error or data race"
fi
if grep -q 'Error in Fyne call thread' "$tmp/app.log"; then
	say "WARNING: widgets were touched off the Fyne goroutine (use fyne.Do):"
	grep -A3 'Error in Fyne call thread' "$tmp/app.log" | head -n 20 | sed 's/^/  /'
fi

# 6. Stop the app with SIGTERM, as a session manager would: Fyne quits on it,
# so the app must exit by itself, with status 0 and without a panic.
kill -TERM "$app_pid"
stopped=""
for _ in $(seq 1 100); do
	if ! kill -0 "$app_pid" 2>/dev/null; then
		stopped=yes
		break
	fi
	sleep 0.1
done
if [ -z "$stopped" ]; then
	kill -KILL "$app_pid" 2>/dev/null || true
	wait "$app_pid" 2>/dev/null || true
	app_pid=""
	show_log app "$tmp/app.log"
	fail "app still running 10 s after SIGTERM (killed it)"
fi
rc=0
wait "$app_pid" || rc=$?
app_pid=""
if [ "$rc" -ne 0 ] || grep -qE '^(panic:|fatal error:)|DATA RACE' "$tmp/app.log"; then
	show_log app "$tmp/app.log"
	fail "app exited with status $rc after SIGTERM (want 0, no panic)"
fi
say "app exited with status 0 after SIGTERM"
kill -TERM "$xvfb_pid"
wait "$xvfb_pid" 2>/dev/null || true
xvfb_pid=""
if [ -n "$bus_pid" ]; then
	kill -TERM "$bus_pid" 2>/dev/null || true
	wait "$bus_pid" 2>/dev/null || true
	bus_pid=""
fi
say "PASS (window in ${mapped_ms} ms)"
