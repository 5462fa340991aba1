# release-env.sh, sourced by package.sh and deb.sh: how aimdesk's release
# builds are made, so that the app and its plugin (aimdesk-parts.so,
# package parts) come from identical package builds. Go refuses a plugin
# whose shared packages were built differently from the app's, and the cgo
# flags, -trimpath and the tags all count. The flags are fyne package
# --release's (fyne.io/tools v1.7.2, cmd/fyne/internal/commands/build.go):
# the tags given, then release and migrated_fynedo; -trimpath; -ldflags
# "-s -w"; CGO_CFLAGS "-O3 -pipe" plus its hardening flags, CGO_LDFLAGS its
# hardening flags.

# release_fyne_tags is what package.sh gives fyne package --tags:
# PACKAGE_TAGS (default no_emoji), the plugin's tag and the system SQLite's.
# An explicit -tags replaces GOFLAGS' (the Makefile's APMTAGS and
# SQLITETAGS): add apm1 through PACKAGE_TAGS where it applies.
release_fyne_tags() {
	printf '%s' "${PACKAGE_TAGS:-no_emoji},aimdesk_plugin,libsqlite3"
}

# release_tags is the tag list of a release build, in fyne's order.
release_tags() {
	printf '%s' "$(release_fyne_tags),release,migrated_fynedo"
}

# fyne appends its flags to the caller's CGO_CFLAGS and CGO_LDFLAGS, so
# they must not be set for the app and the plugin to get the same.
unset CGO_CFLAGS CGO_LDFLAGS
release_cgo_cflags="-O3 -pipe -D_FORTIFY_SOURCE=3 -fstack-protector-strong"
release_cgo_ldflags="-Wl,-z,relro,-z,now -Wl,--as-needed"

# release_go runs a go command with the release build's cgo environment
# (fyne package sets it the same way, so its caller must not: fyne appends).
release_go() {
	CGO_ENABLED=1 CGO_CFLAGS="$release_cgo_cflags" CGO_LDFLAGS="$release_cgo_ldflags" go "$@"
}

# opens_plugin APP WORKDIR runs APP's plugin command (aimdesk devices
# --json), which opens its plugin; on failure it prints the command's
# stderr and returns non-zero (the plugin is missing or does not match).
opens_plugin() {
	"$1" devices --json >"$2/devices.json" 2>"$2/devices.err" || {
		cat "$2/devices.err" >&2
		return 1
	}
}

# build_release_plugin OUT builds the plugin of a release build into OUT.
build_release_plugin() {
	release_go build -buildmode=plugin -trimpath -tags "$(release_tags)" -ldflags "-s -w" -o "$1" ./partsplugin
}
