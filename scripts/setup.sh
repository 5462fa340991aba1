#!/usr/bin/env bash
# setup.sh installs what building and testing aimdesk needs and is missing:
# Debian packages (cgo libraries for Fyne and media, Xvfb and tools for the
# smoke test), the en_US.UTF-8 locale, livekit-server in bin/, and the Go
# modules. Each step checks first, so a second run installs nothing and
# does not call apt. Run it from anywhere; `make demo` and `make test` run it.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

LIVEKIT_VERSION=${LIVEKIT_VERSION:-1.13.5}

# Debian packages: cgo toolchain (gcc needs libc6-dev, which it only
# recommends) and headers for Fyne (GL, X11) and media
# (libvpx, opus, soxr), and what scripts/smoke.sh drives (Xvfb, ImageMagick,
# xdotool, a private D-Bus session bus). locales provides locale-gen;
# xz-utils packs and unpacks release archives. WebRTC's audio processing
# module (echo cancellation, media/audio/apm) and a real sound server for the
# media tests (PipeWire with its PulseAudio server, wireplumber, pactl).
packages=(
	gcc libc6-dev pkg-config
	libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev
	libxi-dev libxxf86vm-dev libxext-dev
	libvpx-dev libopus-dev libopusfile-dev libsoxr-dev
	xvfb imagemagick xdotool dbus-daemon
	locales xz-utils
	g++ libwebrtc-audio-processing-dev
	# the history's SQLite: app/store links the system's libsqlite3
	# (mattn/go-sqlite3 with the libsqlite3 tag the Makefile sets)
	libsqlite3-dev
	pipewire pipewire-pulse wireplumber pulseaudio-utils
	# Wayland screen sharing: libpipewire for the portal's stream (cgo,
	# media/screen/pwstream); the headless desktop its live tests run on
	# (media/waylandtest: sway on pixman, the ScreenCast portal and its
	# wlroots backend; grim to check the compositor by hand)
	libpipewire-0.3-dev sway xdg-desktop-portal xdg-desktop-portal-wlr grim
	# speech synthesis and conversion, only to regenerate the voice test
	# recordings (scripts/gen-voice-testdata.sh, e2e/testdata/speech.sh); the
	# tests themselves use the committed files
	espeak-ng sox
	# protoc and the protobuf well-known types, only for `make generate`
	# (app/a2a/a2apb from the A2A proto; the generated code is committed)
	protobuf-compiler libprotobuf-dev
	# the Debian package (scripts/deb.sh): dpkg-shlibdeps computes its
	# Depends:, appstreamcli validates its AppStream metainfo
	dpkg-dev appstream
	# a second font family (DejaVu Serif) for A2UI surface themes that name
	# a font: a2ui/fyner's font tests and `make uishots` (a2ui-theme.png);
	# DejaVu Sans is also the system fallback face of ui's
	# TestFallbackFontDrawsRunesTheThemeLacks
	fonts-dejavu-core
	# patch(1) applies patches/ to the copy of Fyne that the Makefile builds
	# with (scripts/fynepatch.sh)
	patch
	# a small real window manager for the minimise tests (ui/winstate,
	# ui/callwin TestCallWindowMinimise): it iconifies the window and sets
	# WM_STATE and _NET_WM_STATE_HIDDEN as desktop window managers do
	openbox
)

# shellcheck source=scripts/netretry.sh
. scripts/netretry.sh

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# 1. Debian packages, checked with dpkg-query so a warm run never calls apt.
missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	case "$status" in
	ii*) ;;
	*) missing+=("$p") ;;
	esac
done
if [ ${#missing[@]} -gt 0 ]; then
	say "missing Debian packages: ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		die "not root; run: sudo apt-get update && sudo apt-get install -y ${missing[*]}  (then run this again)"
	fi
	say "installing them with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o Acquire::Retries=3 update -q
	apt-get -o Acquire::Retries=3 install -y -q --no-install-recommends "${missing[@]}"
else
	say "Debian packages: all ${#packages[@]} present"
fi

# 2. The en_US.UTF-8 locale, which the Makefile sets as LANG for the app.
if locale -a 2>/dev/null | grep -qiE '^en_US\.utf-?8$'; then
	say "locale en_US.UTF-8: present"
else
	say "generating locale en_US.UTF-8"
	if [ "$(id -u)" -ne 0 ]; then
		die "not root; run: sudo sh -c \"sed -i 's/^# *en_US.UTF-8 UTF-8/en_US.UTF-8 UTF-8/' /etc/locale.gen && locale-gen\"  (then run this again)"
	fi
	if grep -q '^# *en_US.UTF-8 UTF-8' /etc/locale.gen 2>/dev/null; then
		sed -i 's/^# *en_US.UTF-8 UTF-8/en_US.UTF-8 UTF-8/' /etc/locale.gen
	elif ! grep -q '^en_US.UTF-8 UTF-8' /etc/locale.gen 2>/dev/null; then
		echo 'en_US.UTF-8 UTF-8' >>/etc/locale.gen
	fi
	locale-gen
fi

# 3. livekit-server, built from source into the git-ignored bin/ (the SFU
# that the live media tests start on loopback).
lk="$root/bin/livekit-server"
have=""
if [ -x "$lk" ]; then
	have=$("$lk" --version 2>/dev/null | awk '{print $NF}' || true)
fi
if [ "$have" = "$LIVEKIT_VERSION" ]; then
	say "livekit-server $LIVEKIT_VERSION: present in bin/"
else
	say "building livekit-server v$LIVEKIT_VERSION into bin/ (several minutes when cold)${have:+ (found $have)}"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# Pure Go, as LiveKit builds its own release binaries (CGO_ENABLED=0).
	# A tool, built with the stock Go runtime (the Makefile's runtime overlay
	# is for aimdesk's own builds) so the build cache serves it; downloads are
	# retried and time-limited, the compile is not (netretry.sh)
	CGO_ENABLED=0 go_install_tool "$tmp" "github.com/livekit/livekit-server/cmd/server@v$LIVEKIT_VERSION" ||
		die "could not build livekit-server v$LIVEKIT_VERSION (above: what went wrong)"
	mkdir -p "$root/bin"
	mv -f "$tmp/server" "$lk"
	say "livekit-server: $("$lk" --version)"
fi

# 4. Go modules of aimdesk itself.
say "go mod download"
net_retry 600 "go mod download" go mod download || die "could not download aimdesk's Go modules"

say "done"
