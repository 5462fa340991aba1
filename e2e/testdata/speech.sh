#!/usr/bin/env bash
# speech.sh regenerates speech.wav, the user's voice in the e2e voice tests:
# a short English sentence spoken by espeak-ng (22,050 Hz, 16-bit mono,
# about 1.7 s). The tests resample it to 48 kHz and set its level.
#
#   apt-get install -y --no-install-recommends espeak-ng   (scripts/setup.sh has it)
#   e2e/testdata/speech.sh
set -euo pipefail
cd "$(dirname "$0")"
espeak-ng -v en-us -s 165 -a 120 -w speech.wav "Hello agent, can you hear me?"
ls -l speech.wav
