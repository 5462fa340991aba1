#!/usr/bin/env bash
# package.sh builds the Linux release package with the fyne CLI: a tar.xz
# holding the binary, the .desktop entry (from FyneApp.toml [LinuxAndBSD])
# and the icon, plus a Makefile that installs them. The release build adds
# -trimpath, -ldflags "-s -w", the release and no_emoji tags, and
# migrated_fynedo (from FyneApp.toml [Migrations] fyneDo). It installs the
# fyne CLI into bin/ first if it is missing or another version.
#
# Output: build/aimdesk-<version>-linux-<arch>.tar.xz
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
FYNE_TOOLS_VERSION=${FYNE_TOOLS_VERSION:-v1.7.2}
fyne="$root/bin/fyne"
tags=${PACKAGE_TAGS:-no_emoji}

have=""
if [ -x "$fyne" ]; then
	have=$("$fyne" version 2>/dev/null | awk '/cli version/ {print $NF}' || true)
fi
if [ "$have" != "$FYNE_TOOLS_VERSION" ]; then
	echo "package: installing fyne CLI $FYNE_TOOLS_VERSION into bin/${have:+ (found $have)}"
	GOBIN="$root/bin" go install "fyne.io/tools/cmd/fyne@$FYNE_TOOLS_VERSION"
fi

version=$(awk -F'"' '/^Version *=/ {print $2; exit}' FyneApp.toml)
arch=$(go env GOARCH)
name=aimdesk
out="build/$name-$version-linux-$arch.tar.xz"

# fyne package increments Build in FyneApp.toml after every run; keep the
# file as committed so packaging is repeatable (raise Build by hand for a
# release).
mkdir -p build
cp FyneApp.toml build/FyneApp.toml.keep
trap 'cp build/FyneApp.toml.keep FyneApp.toml && rm -f build/FyneApp.toml.keep' EXIT
rm -f "$name.tar.xz"

echo "package: fyne package --os linux --release --tags $tags"
"$fyne" package --os linux --release --tags "$tags"
mv -f "$name.tar.xz" "$out"

# Check the archive holds what a desktop install needs.
contents=$(tar -tJf "$out")
for want in "bin/$name" ".desktop" "pixmaps/"; do
	grep -q -- "$want" <<<"$contents" || {
		echo "package: FAIL: $out has no $want entry" >&2
		exit 1
	}
done
echo "package: $out ($(du -h "$out" | cut -f1))"
sed 's/^/  /' <<<"$contents"
