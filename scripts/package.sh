#!/usr/bin/env bash
# package.sh builds the Linux release package with the fyne CLI: a tar.xz
# holding the binary, the .desktop entry (from FyneApp.toml [LinuxAndBSD])
# and the icon, plus a Makefile that installs them. The release build adds
# -trimpath, -ldflags "-s -w", the release and no_emoji tags, and
# migrated_fynedo (from FyneApp.toml [Migrations] fyneDo), and the
# aimdesk_plugin tag: the app opens its plugin, aimdesk-parts.so, which is
# built here with the same flags (release-env.sh) and added to the archive
# as lib/aimdesk/aimdesk-parts.so beside bin/. It installs the fyne CLI
# into bin/ first if it is missing or another version.
#
# Output: build/aimdesk-<version>-linux-<arch>.tar.xz and
# build/release/aimdesk-parts.so (which deb.sh reuses)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
FYNE_TOOLS_VERSION=${FYNE_TOOLS_VERSION:-v1.7.2}
fyne="$root/bin/fyne"
# shellcheck source=scripts/release-env.sh
. scripts/release-env.sh
# shellcheck source=scripts/netretry.sh
. scripts/netretry.sh
tags=$(release_fyne_tags)

have=""
if [ -x "$fyne" ]; then
	have=$("$fyne" version 2>/dev/null | awk '/cli version/ {print $NF}' || true)
fi
if [ "$have" != "$FYNE_TOOLS_VERSION" ]; then
	echo "package: installing fyne CLI $FYNE_TOOLS_VERSION into bin/${have:+ (found $have)}"
	# a tool, built with the stock Go runtime (not the Makefile's overlay)
	go_install_tool "$root/bin" "fyne.io/tools/cmd/fyne@$FYNE_TOOLS_VERSION"
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
mkdir -p build/release
echo "package: go build -buildmode=plugin (tags: $(release_tags)) -o build/release/aimdesk-parts.so"
build_release_plugin build/release/aimdesk-parts.so

# The Makefile that fyne writes into the archive names the icon without its
# .png extension, so its install targets fail (fyne-io/tools#139, still in
# v1.7.4). Patch it, add the plugin and its install lines, then check the
# archive by installing it into a scratch DESTDIR and running the installed
# app's plugin command (aimdesk devices --json).
work=$(mktemp -d)
trap 'cp build/FyneApp.toml.keep FyneApp.toml && rm -f build/FyneApp.toml.keep; rm -rf "$work"' EXIT
tar -xJf "$out" -C "$work"
mk="$work/$name/Makefile"
icon=$(find "$work/$name/usr" -path '*/share/pixmaps/*' -type f -printf '%f\n' | head -n 1)
[ -n "$icon" ] || {
	echo "package: FAIL: no icon under share/pixmaps in $out" >&2
	exit 1
}
sed -i "s/^Icon := .*/Icon := \"$icon\"/" "$mk"
install -Dm00644 build/release/aimdesk-parts.so "$work/$name/usr/local/lib/aimdesk/aimdesk-parts.so"
plugin='lib/aimdesk/aimdesk-parts.so'
sed -i -e "/^install:/a\\	install -Dm00644 usr/local/$plugin \$(DESTDIR)\$(PREFIX)/$plugin" \
	-e "/^uninstall:/a\\	-rm \$(DESTDIR)\$(PREFIX)/$plugin\n\t-rmdir \$(DESTDIR)\$(PREFIX)/lib/aimdesk" \
	-e "/^user-install:/a\\	install -Dm00644 usr/local/$plugin \$(DESTDIR)\$(HOME)/.local/$plugin" \
	-e "/^user-uninstall:/a\\	-rm \$(DESTDIR)\$(HOME)/.local/$plugin\n\t-rmdir \$(DESTDIR)\$(HOME)/.local/lib/aimdesk" "$mk"
tar -cJf "$out" -C "$work" "$name"
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$work/$name" install DESTDIR="$work/root" PREFIX=/usr >/dev/null
for f in "bin/$name" "$plugin" "share/applications/com.aimdesk.app.desktop" "share/pixmaps/$icon"; do
	[ -s "$work/root/usr/$f" ] || {
		echo "package: FAIL: installing $out did not put /usr/$f in place" >&2
		exit 1
	}
done
opens_plugin "$work/root/usr/bin/$name" "$work" || {
	echo "package: FAIL: the installed aimdesk could not run its plugin's command (aimdesk devices)" >&2
	exit 1
}
echo "package: the installed aimdesk opened its plugin (aimdesk devices --json: $(wc -c <"$work/devices.json") bytes)"
echo "package: $out ($(du -h "$out" | cut -f1)); make install puts in place:"
(cd "$work/root" && find . -type f | sort | sed 's/^\./  /')
