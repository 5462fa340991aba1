#!/usr/bin/env bash
# apm1test.sh runs the echo-canceller tests against webrtc-audio-processing-1
# (AEC3; build tag apm1) instead of Debian 12's 0.3, which `make test` uses.
# Opt-in (`make apm1test`): Debian 12 has no package of the 1.x library,
# so it must be installed first, either a distribution's package (Debian
# 13, Ubuntu 24.04, Fedora, Arch: pkg-config finds it as is) or a build
# installed under a prefix (APM1_PREFIX). This script builds only aimdesk,
# never the library. docs/media.md ("Echo cancellation with
# webrtc-audio-processing-1") says what it was run against and the
# figures of both libraries.
#
# Environment:
#   APM1_PREFIX  where the library is installed (default /opt/apm1; used
#                when it holds webrtc-audio-processing-1.pc under
#                lib/*/pkgconfig, lib/pkgconfig or lib64/pkgconfig). Its
#                library directory goes into the test binaries' rpath.
#   LIVEKIT_SERVER  for `media` (default bin/livekit-server)
#
# Usage: scripts/apm1test.sh [unit|bench|media]...   (default: unit)
#   unit   go test of media/audio/apm (every test but TestVoiceBench…);
#          fails when any fails
#   bench  TestVoiceBenchEcho: prints the `voice: erle` and
#          `voice: doubletalk_loss` figures; fails when one misses its goal
#          (with 1.3 the double-talk loss does: see docs/media.md)
#   media  the tests of media/audio and media that run the canceller in
#          the publisher and in a live call (livekit-server on loopback)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export LANG=${APP_LANG:-en_US.UTF-8} LC_ALL=${APP_LANG:-en_US.UTF-8}
unset LANGUAGE
export LIVEKIT_SERVER=${LIVEKIT_SERVER:-$root/bin/livekit-server}

prefix=${APM1_PREFIX:-/opt/apm1}
for d in "$prefix"/lib/*/pkgconfig "$prefix"/lib/pkgconfig "$prefix"/lib64/pkgconfig; do
	if [ -f "$d/webrtc-audio-processing-1.pc" ]; then
		export PKG_CONFIG_PATH="$d${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
		break
	fi
done
if ! pkg-config --exists webrtc-audio-processing-1; then
	echo "apm1test: pkg-config does not find webrtc-audio-processing-1 (PKG_CONFIG_PATH=${PKG_CONFIG_PATH:-}):" >&2
	pkg-config --print-errors --exists webrtc-audio-processing-1 >&2 || true
	echo "apm1test: install the library (a distribution's package, or set APM1_PREFIX to where it is installed);" >&2
	echo "apm1test: its headers need abseil's (Debian: libabsl-dev)" >&2
	exit 2
fi
libdir=$(pkg-config --variable=libdir webrtc-audio-processing-1)
case "$libdir" in
/usr/lib | /usr/lib64 | /usr/lib/*-linux-gnu) ;;
*) export CGO_LDFLAGS="${CGO_LDFLAGS:+$CGO_LDFLAGS }-Wl,-rpath,$libdir" ;;
esac
echo "apm1test: webrtc-audio-processing-1 $(pkg-config --modversion webrtc-audio-processing-1) from $libdir"
# the Makefile's GOFLAGS may carry its own -tags: this script sets them
export GOFLAGS=
tags=(-tags apm1)

[ $# -gt 0 ] || set -- unit
rc=0
for what in "$@"; do
	case "$what" in
	unit)
		go test "${tags[@]}" -count=1 -p 1 -v -skip '^TestVoiceBench' ./media/audio/apm/ || rc=1
		;;
	bench)
		go test "${tags[@]}" -count=1 -p 1 -v -run '^TestVoiceBenchEcho$' ./media/audio/apm/ || rc=1
		;;
	media)
		go test "${tags[@]}" -count=1 -p 1 -v -run '^(TestPublisherCancelsEcho|TestMixerCopiesPlayoutToFarEnd|TestFarEnd)' ./media/audio/ || rc=1
		go test "${tags[@]}" -count=1 -p 1 -v -run '^(TestEchoCancellerMakesFullDuplexDefault|TestMicAutoGainOption)$' ./media/ || rc=1
		;;
	*)
		echo "apm1test: unknown part $what (unit, bench or media)" >&2
		exit 2
		;;
	esac
done
exit $rc
