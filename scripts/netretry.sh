# netretry.sh, sourced by the scripts that reach the network (the Go module
# proxy): a download that fails or hangs is retried, and a Go tool is built
# in two steps so that only the download is retried and time-limited.
#
# Why: a CI run spent 1291 s in setup on one request to the module proxy,
# which ended in "503 Service Unavailable" and failed the run. The proxy
# answered again minutes later.
#
# Settings (environment): NET_ATTEMPTS (default 4) attempts per download;
# NET_WAITS (default "10 30 60") seconds between them, the last repeated.

# net_retry LIMIT WHAT CMD...: runs CMD, stopping an attempt after LIMIT
# seconds; a failed or stopped attempt is retried after a wait. Returns CMD's
# last exit code (124 when the last attempt ran out of time).
net_retry() {
	local limit=$1 what=$2
	shift 2
	local attempts=${NET_ATTEMPTS:-4} n=1 rc why
	local -a waits
	read -r -a waits <<<"${NET_WAITS:-10 30 60}"
	while :; do
		rc=0
		timeout --kill-after=10 "$limit" "$@" || rc=$?
		[ "$rc" -eq 0 ] && return 0
		why="exit code $rc"
		[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && why="no answer within ${limit} s"
		if [ "$n" -ge "$attempts" ]; then
			printf '%s: failed %d times, the last with %s: is the network or the Go module proxy down?\n' \
				"$what" "$n" "$why" >&2
			return "$rc"
		fi
		local i=$((n - 1))
		[ "$i" -lt "${#waits[@]}" ] || i=$((${#waits[@]} - 1))
		printf '%s: attempt %d of %d failed (%s); trying again in %s s\n' \
			"$what" "$n" "$attempts" "$why" "${waits[$i]}" >&2
		sleep "${waits[$i]}"
		n=$((n + 1))
	done
}

# go_install_tool GOBIN PKG@VERSION [LIMIT]: go install of a pinned tool,
# with the stock Go runtime (GOFLAGS=, not the Makefile's overlay) and any
# CGO_ENABLED the caller exports. Step 1 fetches the modules it needs
# (`go install -n` loads every package without compiling) with net_retry,
# LIMIT seconds an attempt (default 300; 24 s for livekit-server from a cold
# cache here); it is skipped when the module cache already has them all,
# so a warm machine does not ask the proxy anything (a plain go install
# PKG@VERSION always does: for the paths above the module and for its
# deprecation). Step 2 compiles from the module cache alone, served as a
# file:// proxy (GOPROXY=off would refuse go install's deprecation lookup),
# so a cold compile of several minutes never counts as a network hang.
go_install_tool() {
	local gobin=$1 pkg=$2 limit=${3:-300}
	local cache
	cache=$(go env GOMODCACHE) || return 1
	# as a URL in GOPROXY, where , and | separate proxies
	cache=${cache//%/%25}
	cache=${cache//,/%2C}
	cache=${cache//|/%7C}
	cache=${cache// /%20}
	local offline="file://$cache/cache/download"
	# Step 1, unless the module cache has it all. -n prints the build's
	# commands on stderr: keep them out of the log, but show go's own lines
	# when an attempt fails.
	GOFLAGS= GOBIN="$gobin" GOPROXY="$offline" go install -n "$pkg" >/dev/null 2>&1 ||
		net_retry "$limit" "downloading the modules of $pkg" sh -c '
		out=$(GOFLAGS= GOBIN="$1" go install -n "$2" 2>&1) && exit 0
		rc=$?
		printf "%s\n" "$out" | grep "^go: " >&2
		exit "$rc"' sh "$gobin" "$pkg" || return 1
	# Step 2.
	GOFLAGS= GOBIN="$gobin" GOPROXY="$offline" go install "$pkg"
}
