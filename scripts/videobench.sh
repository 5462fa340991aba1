#!/usr/bin/env bash
# videobench.sh runs the video benchmarks (tests named TestVideoBench…, with
# AIMDESK_BENCH=1 so the long ones run): the PSNR of a text-heavy 4K screen
# through the scaler, VP8 and libvpx's decoder (media/video), and the CPU
# of a 1080p15 share and of a still screen against a real livekit-server
# and Xvfb (media), the frames a second participant receives from a
# Wayland share through the ScreenCast portal and PipeWire on a headless
# sway (media, wayland_frames), and congestion control: a screen share through an
# uplink capped at 1 Mbit/s then 300 kbit/s (media, TestVideoBenchCongestion:
# adapt_time, audio_delivery_capped, max_freeze_1m, max_freeze_capped).
# The full log is kept in build/videobench.txt; the
# figures (`video: NAME VALUE UNIT`) are printed at the end. Exits non-zero
# when a test fails (a figure missed its goal).
#
# Usage: scripts/videobench.sh   (`make videobench`)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export AIMDESK_BENCH=1
export LIVEKIT_SERVER=${LIVEKIT_SERVER:-$root/bin/livekit-server}
mkdir -p build
log=build/videobench.txt
rc=0
go test -p 1 -count=1 -timeout 10m -run '^TestVideoBench' -v ./media/video/ ./media/ >"$log" 2>&1 || rc=$?
grep -E '^(--- |FAIL|ok )' "$log" || true
echo
echo "video benchmark figures:"
grep -E '^video: ' "$log" || echo "(none)"
if [ "$rc" -ne 0 ]; then
	echo "videobench: FAIL (see $log)" >&2
	exit "$rc"
fi
