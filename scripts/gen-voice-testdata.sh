#!/usr/bin/env bash
# gen-voice-testdata.sh regenerates the speech recordings the echo tests in
# media/audio/apm play: two different synthetic voices (espeak-ng), 16 kHz
# mono 16-bit WAV (the tests resample them to 48 kHz), peak-normalised to
# -3 dBFS. The far end (the agent, played on the speaker) is a male US voice,
# the near end (the user, talking into the microphone) a female British one.
# Needs: apt-get install -y espeak-ng sox. The output is committed, so the
# tests never need espeak-ng; run this only to change the recordings.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out="$root/media/audio/apm/testdata"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# speak VOICE SPEED FILE TEXT...
speak() {
	local voice=$1 speed=$2 file=$3
	shift 3
	espeak-ng -v "$voice" -s "$speed" -w "$tmp/raw.wav" "$*"
	# resample to 16 kHz, keep 16-bit mono, normalise the peak to -3 dBFS
	sox "$tmp/raw.wav" -r 16000 -b 16 -c 1 -e signed-integer "$out/$file" rate -v gain -n -3
	printf 'gen-voice-testdata: %s %s s\n' "$file" "$(soxi -D "$out/$file")"
}

speak en-us+m3 165 far.wav \
	"Hello, this is your assistant. I have finished reading the report, \
and there are three things we should discuss."
speak en-gb+f3 170 near.wav \
	"Sorry, could you stop for a moment? I think that number is wrong."
