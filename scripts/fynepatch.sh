#!/usr/bin/env bash
# fynepatch.sh DIR: write DIR/fyne, a copy of the Fyne module that go.mod
# requires with patches/fyne-VERSION-*.patch applied, and DIR/go.mod and
# DIR/go.sum, the module's go.mod and go.sum with a replace directive to that
# copy; print the go flag `-modfile=DIR/go.mod` for the Makefile's GOFLAGS.
# Prints nothing (and a warning on stderr) when the module or patch(1) is
# not there yet (the first make of a fresh machine, before the set-up
# installs them) or a patch does not apply: the build then uses the stock
# Fyne, which draws the same and takes more memory. DIR's name must start
# with "_" (or "."), or `go ... ./...` takes the copy for part of aimdesk.
#
# Why a copy: `go build -overlay` (scripts/goruntime.sh) may not replace
# files in the module cache, and a replace directive needs a whole module
# directory. The copy is made once per Fyne version and patch set; the
# go.mod and go.sum copies follow the real ones on every run, so `go get`
# and `go mod tidy` are still run without the Makefile.
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
# The copy's stamp: the version and the patches' contents.
stamp="$version $(cat "${patches[@]}" | sha256sum | cut -d' ' -f1)"
if [[ ! -f $dir/fyne/.aimdesk-patched || $(cat "$dir/fyne/.aimdesk-patched") != "$stamp" ]]; then
	tmp=$(mktemp -d "$dir/fyne.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	cp -R "$src/." "$tmp/"
	chmod -R u+w "$tmp" # the module cache is read-only
	for p in "${patches[@]}"; do
		if ! patch -s -p1 -d "$tmp" --no-backup-if-mismatch <"$p" >/dev/null; then
			warn "$(basename "$p") does not apply to Fyne $version"
			exit 0
		fi
	done
	printf '%s\n' "$stamp" >"$tmp/.aimdesk-patched"
	# through renames: a go command of a concurrent make never sees half a copy
	rm -rf "$dir/fyne.old"
	[[ -d $dir/fyne ]] && mv "$dir/fyne" "$dir/fyne.old"
	mv "$tmp" "$dir/fyne"
	rm -rf "$dir/fyne.old"
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
	printf '\n// aimdesk: written by scripts/fynepatch.sh for the Makefile (-modfile)\nreplace fyne.io/fyne/v2 => %s\n' "$dir/fyne"
} | write "$dir/go.mod"
write "$dir/go.sum" <go.sum
printf -- '-modfile=%s\n' "$dir/go.mod"
