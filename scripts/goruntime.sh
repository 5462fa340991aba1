#!/usr/bin/env bash
# goruntime.sh DIR: write DIR/proc.go, the Go runtime's scheduler file with
# one change to sysmon, and DIR/overlay.json naming it; print the go flag
# `-overlay=DIR/overlay.json` for the Makefile's GOFLAGS. Prints nothing
# (and a warning on stderr) when the change does not apply to this Go
# toolchain: the build then uses the stock runtime, and only the CPU of
# calls is higher. DIR's name must start with "_" (or "."), or `go ... ./...`
# of a tree that holds it takes the copied file for a package.
#
# The change. sysmon, the runtime's monitor thread, sleeps deeply while
# every P is idle. The first system call or cgo call after that wakes it
# and, "as a bet" (runtime/proc.go), resets its poll interval to 20 µs,
# from which it backs off only after 50 polls with nothing to retake. A
# call's audio path wakes the process about 150 times a second (device
# periods, packets), each wake-up makes a cgo or system call, and every
# one of them restarts the 20 µs polling for as long as the work lasts:
# about 1,000 sysmon wake-ups a second, each a context switch, which on
# this virtual machine cost about 40 % of a voice call's CPU (call_cpu 13.9
# → 8.4 % with the change, medians of runs alternating with and without it:
# docs/media.md, "The Go runtime's monitor thread"). The change
# keeps sysmon's backed-off interval across such wake-ups; a retake of a P
# from a long system call still resets it, as before. What it costs: after
# an idle spell, a P blocked in a system call is retaken within sysmon's
# current interval (at most 10 ms) instead of within 20 µs; the other Ps
# run meanwhile. The runtime has no setting for this (golang/go#18236,
# "runtime: sysmon tick is hardcoded", open), hence a patch applied
# through `go build -overlay`, checked to apply exactly once.
set -euo pipefail

dir=${1:?usage: goruntime.sh DIR}
go=${GO:-go}
root=$("$go" env GOROOT 2>/dev/null) || exit 0
src=$root/src/runtime/proc.go
[[ -f $src ]] || exit 0
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

tmp=$(mktemp "$dir/proc.go.XXXXXX")
trap 'rm -f "$tmp"' EXIT
chmod 0644 "$tmp" # mktemp makes 0600; the files are as readable as GOROOT's
# exit status 3 unless the block occurs exactly once
if ! perl -0pe '
	BEGIN { $n = 0 }
	$n += s/\n(\t+)if syscallWake \{\n\t+idle = 0\n\t+delay = 20\n\t+\}\n/\n$1_ = syscallWake \/\/ aimdesk (scripts\/goruntime.sh): keep the backed-off interval\n/g;
	END { exit($n == 1 ? 0 : 3) }
' "$src" >"$tmp"; then
	echo "goruntime.sh: the sysmon change does not apply to $("$go" env GOVERSION) ($src); building with the stock runtime" >&2
	exit 0
fi
# rewrite only when changed, so the build cache stays valid
if ! cmp -s "$tmp" "$dir/proc.go" 2>/dev/null; then
	mv "$tmp" "$dir/proc.go"
fi
json=$dir/overlay.json
want=$(printf '{"Replace":{"%s":"%s"}}\n' "$src" "$dir/proc.go")
if [[ ! -f $json || $(cat "$json") != "$want" ]]; then
	# through a rename, like proc.go: a go command started by a concurrent
	# make never reads half a file
	printf '%s\n' "$want" >"$tmp"
	mv "$tmp" "$json"
fi
printf -- '-overlay=%s\n' "$json"
