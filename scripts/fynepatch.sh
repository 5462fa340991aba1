#!/usr/bin/env bash
# fynepatch.sh DIR: make a copy of the Fyne module that go.mod requires
# with patches/fyne-VERSION-*.patch applied, and write DIR/go.mod and
# DIR/go.sum, the module's go.mod and go.sum with a replace directive to that
# copy; print the go flag `-modfile=DIR/go.mod` for the Makefile's GOFLAGS.
# The copy lives outside the checkout, in AIMDESK_PATCHED_MODULES (default
# ~/.cache/aimdesk/modules), named by the Fyne version and the patches'
# hash and never changed once written: every checkout of the same patches
# builds the same path, so they share the Go build cache (a compiled
# package's cache key includes its source directory; a fresh clone would
# otherwise build all of Fyne again, with the race detector in make test).
# Prints nothing (and a warning on stderr) when the module or patch(1) is
# not there yet (the first make of a fresh machine, before the set-up
# installs them) or a patch does not apply: the build then uses the stock
# Fyne, which draws the same and takes more memory.
#
# Why a copy: `go build -overlay` (scripts/goruntime.sh) may not replace
# files in the module cache, and a replace directive needs a whole module
# directory. The copy is made once per Fyne version and patch set; the
# go.mod and go.sum copies follow the real ones on every run, so `go get`
# and `go mod tidy` are still run without the Makefile. DIR's name must
# start with "_" (or "."), which `go ... ./...` skips.
#
# The patch. Fyne 2.7.1's painter (internal/painter/font.go, lookupFaces)
# loads the locale's system font for every text style it sets up, before
# any rune needs it: a font-directory scan at the first text, and DejaVu
# Sans (here) parsed once per style, about 6 MB of the idle app's 57 MB of
# anonymous memory (docs/benchmarks.md, Memory). The patch looks that face
# up when the first rune the theme's faces lack is drawn, ahead of the
# per-rune lookup that follows it as before: the same glyphs, found later.
set -euo pipefail

dir=${1:?usage: fynepatch.sh DIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
go=${GO:-go}
cd "$root"

warn() { echo "fynepatch.sh: $*; building with the stock Fyne" >&2; }

# GOFLAGS=: the Makefile's own flags (this script's -modfile among them)
# must not steer the lookup of the real module.
mod=$(GOFLAGS= GOWORK=off "$go" list -m -f '{{.Version}} {{.Dir}}' fyne.io/fyne/v2 2>/dev/null) || mod=""
version=${mod%% *}
src=${mod#* }
if [[ -z $version || -z $src || $src == "$mod" || ! -d $src ]]; then
	warn "fyne.io/fyne/v2 is not in the module cache yet"
	exit 0
fi
if ! command -v patch >/dev/null; then
	warn "patch(1) is not installed yet (scripts/setup.sh installs it)"
	exit 0
fi
shopt -s nullglob
patches=("$root"/patches/fyne-"$version"-*.patch)
if ((${#patches[@]} == 0)); then
	warn "no patch for Fyne $version in patches/"
	exit 0
fi

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
store=${AIMDESK_PATCHED_MODULES:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/aimdesk/modules}
hash=$(cat "${patches[@]}" | sha256sum | cut -c1-16)
copy=$store/fyne-$version-$hash
if [[ ! -f $copy/.aimdesk-patched ]]; then
	mkdir -p "$store"
	tmp=$(mktemp -d "$store/.fyne.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	cp -R "$src/." "$tmp/"
	chmod -R u+w "$tmp" # the module cache is read-only
	for p in "${patches[@]}"; do
		if ! patch -s -p1 -d "$tmp" --no-backup-if-mismatch <"$p" >/dev/null; then
			warn "$(basename "$p") does not apply to Fyne $version"
			exit 0
		fi
	done
	printf 'fyne %s, %s\n' "$version" "${patches[*]##*/}" >"$tmp/.aimdesk-patched"
	# through a rename: a concurrent make sees no copy or a whole one (the
	# loser of a race keeps the winner's, which is the same)
	mv -T "$tmp" "$copy" 2>/dev/null || rm -rf "$tmp"
	trap - EXIT
fi

# go.mod and go.sum with the replace directive, rewritten only when they
# change, so the build cache stays valid.
write() { # write FILE: stdin to FILE, through a rename, when it differs
	local t
	t=$(mktemp "$1.XXXXXX")
	cat >"$t"
	chmod 0644 "$t"
	if cmp -s "$t" "$1" 2>/dev/null; then
		rm -f "$t"
	else
		mv "$t" "$1"
	fi
}
{
	cat go.mod
	printf '\n// aimdesk: written by scripts/fynepatch.sh for the Makefile (-modfile)\nreplace fyne.io/fyne/v2 => %s\n' "$copy"
} | write "$dir/go.mod"
write "$dir/go.sum" <go.sum
printf -- '-modfile=%s\n' "$dir/go.mod"
