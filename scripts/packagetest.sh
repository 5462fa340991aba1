#!/usr/bin/env bash
# packagetest.sh installs the Debian package that `make package` built into
# this machine with dpkg, checks what it put in place, runs the installed
# `aimdesk --version` and `aimdesk card` against the reference agent (served
# by the installed `aimdesk devagent` on loopback; card's stderr must be
# empty, also under LANG=C and C.UTF-8) and `aimdesk tasks --binding grpc`
# (the agent and the gRPC binding come from the installed plugin,
# /usr/lib/aimdesk/aimdesk-parts.so), then purges the package and checks
# that nothing of it is left. It needs root (CI runs `make test` as root)
# and refuses to touch an aimdesk package it did not install.
#
# Usage: scripts/packagetest.sh [build/aimdesk_VERSION_ARCH.deb]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { printf 'packagetest: %s\n' "$*"; }
fail() {
	printf 'packagetest: FAIL: %s\n' "$*" >&2
	exit 1
}

version=$(awk -F'"' '/^Version *=/ {print $2; exit}' FyneApp.toml)
deb=${1:-build/aimdesk_${version}_$(dpkg --print-architecture).deb}
[ -f "$deb" ] || fail "$deb not found (run make package)"
[ "$(id -u)" -eq 0 ] || fail "installing a package needs root"
if dpkg-query -W -f='${db:Status-Abbrev}' aimdesk 2>/dev/null | grep -q '^.i'; then
	fail "an aimdesk package is already installed here; not replacing it (dpkg -r aimdesk first)"
fi

tmp=$(mktemp -d)
agent_pid=""
installed=""
cleanup() {
	if [ -n "$agent_pid" ] && kill -0 "$agent_pid" 2>/dev/null; then
		kill -TERM "$agent_pid" 2>/dev/null || true
		wait "$agent_pid" 2>/dev/null || true
	fi
	if [ -n "$installed" ]; then
		dpkg --purge aimdesk >/dev/null 2>&1 || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# 1. Install.
say "dpkg -i $deb"
installed=yes
dpkg -i "$deb" >"$tmp/dpkg.log" 2>&1 || {
	cat "$tmp/dpkg.log" >&2
	fail "dpkg -i failed (are the Depends: installed?)"
}
files=(/usr/bin/aimdesk /usr/lib/aimdesk/aimdesk-parts.so /usr/share/applications/com.aimdesk.app.desktop
	/usr/share/metainfo/com.aimdesk.app.metainfo.xml)
for size in 16 24 32 48 64 128 256 512; do
	files+=("/usr/share/icons/hicolor/${size}x${size}/apps/com.aimdesk.app.png")
done
for f in "${files[@]}"; do
	[ -s "$f" ] || fail "the package did not install $f"
	dpkg -S "$f" >/dev/null 2>&1 || fail "$f is not owned by the package"
done
grep -qx 'MimeType=x-scheme-handler/aimdesk;' /usr/share/applications/com.aimdesk.app.desktop ||
	fail "the .desktop entry does not register aimdesk:// links"
grep -qx 'Exec=aimdesk %u' /usr/share/applications/com.aimdesk.app.desktop ||
	fail "the .desktop entry does not pass the link to aimdesk"
say "installed: ${#files[@]} files in place, owned by the package"

# 2. --version: FyneApp.toml's version and this checkout's commit.
got=$(env -i PATH=/usr/bin:/bin LANG=C.UTF-8 /usr/bin/aimdesk --version 2>"$tmp/version.err")
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
case "$got" in
"aimdesk $version (commit $commit)" | "aimdesk $version (commit $commit-dirty)") ;;
*) fail "aimdesk --version printed '$got', want 'aimdesk $version (commit $commit)'" ;;
esac
[ ! -s "$tmp/version.err" ] || fail "aimdesk --version wrote to stderr: $(cat "$tmp/version.err")"
say "aimdesk --version: $got"

# 3. The installed binary serves the reference agent and reads its card.
/usr/bin/aimdesk devagent --listen 127.0.0.1:0 --bindings jsonrpc,grpc >"$tmp/agent.log" 2>&1 &
agent_pid=$!
url=""
for _ in $(seq 1 300); do
	url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/agent.log" | head -n 1 || true)
	[ -n "$url" ] && break
	kill -0 "$agent_pid" 2>/dev/null || break
	sleep 0.1
done
[ -n "$url" ] || {
	cat "$tmp/agent.log" >&2
	fail "the reference agent did not start"
}
for lang in C C.UTF-8 en_US.UTF-8; do
	env -i PATH=/usr/bin:/bin HOME="$tmp" LANG="$lang" /usr/bin/aimdesk card "$url" >"$tmp/card.out" 2>"$tmp/card.err" || {
		cat "$tmp/card.err" >&2
		fail "aimdesk card $url failed under LANG=$lang"
	}
	grep -q 'AIM reference agent' "$tmp/card.out" || fail "aimdesk card printed no card under LANG=$lang: $(head -n 3 "$tmp/card.out")"
	[ ! -s "$tmp/card.err" ] || {
		cat "$tmp/card.err" >&2
		fail "aimdesk card wrote to stderr under LANG=$lang"
	}
done
say "aimdesk card $url: $(head -n 1 "$tmp/card.out") (stderr empty under C, C.UTF-8, en_US.UTF-8)"
# The reference agent and the gRPC binding are the plugin's
# (/usr/lib/aimdesk/aimdesk-parts.so): list the agent's tasks over gRPC.
env -i PATH=/usr/bin:/bin HOME="$tmp" LANG=C.UTF-8 /usr/bin/aimdesk tasks "$url" --binding grpc >"$tmp/tasks.out" 2>"$tmp/tasks.err" || {
	cat "$tmp/tasks.err" >&2
	fail "aimdesk tasks $url --binding grpc failed"
}
say "aimdesk tasks $url --binding grpc: exit 0 (the plugin's gRPC binding)"
kill -TERM "$agent_pid"
wait "$agent_pid" 2>/dev/null || true
agent_pid=""

# 4. Remove it cleanly: dpkg knows nothing of it and no file is left.
dpkg --purge aimdesk >"$tmp/dpkg.log" 2>&1 || {
	cat "$tmp/dpkg.log" >&2
	fail "dpkg --purge aimdesk failed"
}
installed=""
if dpkg-query -W -f='${db:Status-Abbrev}' aimdesk 2>/dev/null | grep -q '^.i'; then
	fail "aimdesk is still installed after dpkg --purge"
fi
for f in "${files[@]}" /usr/share/doc/aimdesk; do
	[ ! -e "$f" ] || fail "$f is left after dpkg --purge"
done
say "PASS: installed, ran and purged $deb"
