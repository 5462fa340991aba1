#!/usr/bin/env bash
# deb.sh builds the Debian package build/aimdesk_<version>_<arch>.deb with
# dpkg-deb: a release build of aimdesk in /usr/bin (version and commit set
# with -ldflags -X, as `aimdesk --version` prints them), the .desktop entry
# (which also registers aimdesk for aimdesk:// links), the icon at the
# hicolor sizes, and AppStream metainfo checked with `appstreamcli validate
# --no-net`; the app's plugin in /usr/lib/aimdesk/aimdesk-parts.so (the one
# package.sh built, build/release/aimdesk-parts.so: the app here is built
# with the same flags, release-env.sh). Depends: is computed by
# dpkg-shlibdeps from the shared libraries the binary and the plugin link.
# `make package` runs it after package.sh.
#
# Environment: PACKAGE_TAGS (default no_emoji), as package.sh.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { printf 'deb: %s\n' "$*"; }
fail() {
	printf 'deb: FAIL: %s\n' "$*" >&2
	exit 1
}
for tool in dpkg-deb dpkg-shlibdeps appstreamcli convert git; do
	command -v "$tool" >/dev/null || fail "$tool not found (run scripts/setup.sh)"
done

name=aimdesk
appid=com.aimdesk.app
version=$(awk -F'"' '/^Version *=/ {print $2; exit}' FyneApp.toml)
[ -n "$version" ] || fail "no Version in FyneApp.toml"
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [ "$commit" != unknown ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	commit="$commit-dirty"
fi
arch=$(dpkg --print-architecture)
# shellcheck source=scripts/release-env.sh
. scripts/release-env.sh
tags=$(release_tags)
plugin=build/release/aimdesk-parts.so
[ -s "$plugin" ] || fail "$plugin not found (package.sh builds it)"
out="build/${name}_${version}_${arch}.deb"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pkg="$work/pkg"
mkdir -p "$pkg/DEBIAN" "$pkg/usr/bin" "$pkg/usr/lib/$name" "$pkg/usr/share/applications" \
	"$pkg/usr/share/metainfo" "$pkg/usr/share/doc/$name"

# 1. The binary: the release build fyne package makes (release tag,
# migrated_fynedo, -trimpath, -s -w, its cgo flags), plus the version and
# commit; and the plugin, which only a build with these flags can open.
say "go build (tags: $tags; version $version, commit $commit)"
release_go build -trimpath -tags "$tags" \
	-ldflags "-s -w -X main.version=$version -X main.commit=$commit" \
	-o "$pkg/usr/bin/$name" .
install -m 0644 "$plugin" "$pkg/usr/lib/$name/aimdesk-parts.so"
opens_plugin "$pkg/usr/bin/$name" "$work" ||
	fail "the app built here cannot run its plugin's command (aimdesk devices): the plugin does not match it"

# 2. Desktop entry, icons, AppStream metadata.
install -m 0644 packaging/linux/$appid.desktop "$pkg/usr/share/applications/$appid.desktop"
for size in 16 24 32 48 64 128 256 512; do
	dir="$pkg/usr/share/icons/hicolor/${size}x${size}/apps"
	mkdir -p "$dir"
	convert assets/icon.png -resize "${size}x${size}" -strip "PNG32:$dir/$appid.png"
done
sed -e "s/@VERSION@/$version/" -e "s/@DATE@/$(git log -1 --format=%cs 2>/dev/null || date -u +%F)/" \
	packaging/linux/$appid.metainfo.xml >"$pkg/usr/share/metainfo/$appid.metainfo.xml"
appstreamcli validate --no-net "$pkg/usr/share/metainfo/$appid.metainfo.xml" >"$work/validate.log" 2>&1 || {
	cat "$work/validate.log" >&2
	fail "appstreamcli validate rejected the metainfo"
}
say "appstreamcli validate --no-net: $(tail -n 1 "$work/validate.log")"
cat >"$pkg/usr/share/doc/$name/copyright" <<EOT
aimdesk $version (commit $commit)
See https://github.com/aimdesk/aimdesk for the source and its licence.
EOT

# 3. Depends: from the libraries the binary links. dpkg-shlibdeps wants a
# source package's debian/control; a minimal one in a scratch dir does.
mkdir -p "$work/src/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$name" "$name" >"$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-shlibdeps -O -e"$pkg/usr/bin/$name" -e"$pkg/usr/lib/$name/aimdesk-parts.so" 2>"$work/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p') || {
	cat "$work/shlibdeps.log" >&2
	fail "dpkg-shlibdeps failed"
}
[ -n "$depends" ] || fail "dpkg-shlibdeps found no dependencies (is the binary dynamically linked?)"
say "Depends: $depends"

size=$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
cat >"$pkg/DEBIAN/control" <<EOT
Package: $name
Version: $version
Architecture: $arch
Maintainer: aimdesk <aimdesk@users.noreply.github.com>
Installed-Size: $size
Depends: $depends
Section: net
Priority: optional
Homepage: https://github.com/aimdesk/aimdesk
Description: desktop client for AI agents over A2A
 Chat with AI agents, follow their tasks, fill in the views they draw
 (A2UI), approve what they want to do, and talk with them in realtime
 voice, camera and screen sessions over LiveKit WebRTC.
EOT
(cd "$pkg" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$pkg/DEBIAN/md5sums"

mkdir -p build
rm -f "$out"
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$out" >/dev/null
dpkg-deb --info "$out" >/dev/null || fail "dpkg-deb cannot read $out"
say "$out ($(du -h "$out" | cut -f1)):"
dpkg-deb --contents "$out" | awk '{print "  " $NF}' | grep -v '/$'
