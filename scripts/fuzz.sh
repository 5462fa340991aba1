#!/usr/bin/env bash
# fuzz.sh runs every Go fuzz target in the module, one at a time, each for
# FUZZTIME (default 60s). `go test -fuzz` takes one target per package per
# run, so the targets are found with `go test -list '^Fuzz' ./...` and run
# separately. New failing inputs land in the package's testdata/fuzz/<Target>/
# as regression seeds. Extra go test flags come from FUZZFLAGS.
#
# Usage: FUZZTIME=5s scripts/fuzz.sh [packages...]   (default ./...; `make fuzz`)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
fuzztime=${FUZZTIME:-60s}
read -r -a extra <<<"${FUZZFLAGS:-}"
[ $# -gt 0 ] || set -- ./...

list=$(mktemp)
trap 'rm -f "$list"' EXIT
echo "fuzz: listing fuzz targets in $*"
if ! go test -list '^Fuzz' "$@" >"$list" 2>&1; then
	cat "$list" >&2
	echo "fuzz: FAIL: go test -list failed (a package does not build?)" >&2
	exit 1
fi

# `go test -list` prints each package's matching names, then "ok <pkg> <time>".
targets=()
names=()
while IFS= read -r line; do
	case "$line" in
	Fuzz*) names+=("$line") ;;
	ok*)
		pkg=$(awk '{print $2}' <<<"$line")
		for n in "${names[@]+"${names[@]}"}"; do targets+=("$pkg $n"); done
		names=()
		;;
	*) ;; # other output (log lines of a test binary) is not a name
	esac
done <"$list"

if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz: no fuzz targets found"
	exit 0
fi
echo "fuzz: ${#targets[@]} target(s), ${fuzztime} each"

failed=()
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	echo
	echo "fuzz: $pkg $name"
	start=$(date +%s)
	if go test -run='^$' -fuzz="^${name}\$" -fuzztime="$fuzztime" "${extra[@]+"${extra[@]}"}" "$pkg"; then
		echo "fuzz: $pkg $name ok ($(($(date +%s) - start)) s)"
	else
		echo "fuzz: $pkg $name FAILED ($(($(date +%s) - start)) s); the failing input is under its testdata/fuzz/$name/"
		failed+=("$pkg $name")
	fi
done

echo
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz: FAIL: ${#failed[@]} of ${#targets[@]} target(s) failed:"
	printf '  %s\n' "${failed[@]}"
	exit 1
fi
echo "fuzz: all ${#targets[@]} target(s) passed"
