#!/usr/bin/env bash
# lint.sh runs the static gates beyond go vet: gofumpt (formatting),
# staticcheck, gocyclo -over 15 (non-test code) and gosec. It installs each
# tool, at the pinned version, into bin/ when it is missing. Exits non-zero
# if any gate reports something, after running them all.
#
# Usage: scripts/lint.sh   (`make lint`)
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1

# shellcheck source=scripts/netretry.sh
. scripts/netretry.sh

tools=(
	"staticcheck honnef.co/go/tools/cmd/staticcheck v0.8.2"
	"gofumpt mvdan.cc/gofumpt v0.12.0"
	"gocyclo github.com/fzipp/gocyclo/cmd/gocyclo v0.6.0"
	"gosec github.com/securego/gosec/v2/cmd/gosec v2.30.0"
)
for t in "${tools[@]}"; do
	read -r name pkg version <<<"$t"
	have=$(go version -m "bin/$name" 2>/dev/null | awk '$1 == "mod" {print $3}')
	if [ "$have" != "$version" ]; then
		echo "lint: installing $name $version into bin/"
		# tools get the stock Go runtime, not the Makefile's overlay
		go_install_tool "$root/bin" "$pkg@$version" || exit 1
	fi
done

# Go files of the module, without the tool and output folders.
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.go' 2>/dev/null ||
	find . -name '*.go' -not -path './bin/*' -not -path './build/*')

failed=()
gate() {
	local name=$1
	shift
	echo "lint: $name"
	local out rc=0
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" -ne 0 ] || [ -n "$out" ]; then
		printf '%s\n' "$out" | sed 's/^/  /'
		failed+=("$name")
	fi
}
# Generated code (protoc's app/a2a/a2apb) is checked by its generator, not here.
mapfile -t files < <(for f in "${files[@]}"; do grep -qm1 '^// Code generated .* DO NOT EDIT\.$' "$f" || echo "$f"; done)
gate gofumpt bin/gofumpt -l "${files[@]}"
# staticcheck and gosec load packages with golang.org/x/tools, which asks
# for the Go version with a GOPATH-mode `go list` that refuses -modfile (the
# Makefile's patched Fyne, scripts/fynepatch.sh): they check aimdesk's code
# against the stock Fyne, which has the same API.
goflags=()
for f in ${GOFLAGS:-}; do
	[[ $f == -modfile=* ]] || goflags+=("$f")
done
export GOFLAGS="${goflags[*]}"
gate staticcheck bin/staticcheck ./...
gate "gocyclo -over 15" bin/gocyclo -over 15 -ignore '_test\.go$' "${files[@]}"
gate gosec bin/gosec -quiet -color=false -fmt text -exclude-dir=bin -exclude-dir=build -exclude-generated ./...

if [ ${#failed[@]} -gt 0 ]; then
	echo "lint: FAIL: ${failed[*]}"
	exit 1
fi
echo "lint: all gates clean"
