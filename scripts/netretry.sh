# netretry.sh, sourced by the scripts that reach the network (the Go module
# proxy): a download that fails or hangs is retried, and a Go tool is built
# in two steps so that only the download is retried and time-limited.
#
# Why: a CI run spent 1291 s of its set-up in the go install of
# livekit-server, which ended on "503 Service Unavailable" from the module
# proxy and failed the run. The proxy answered again minutes later.
#
# Settings (environment): NET_ATTEMPTS (default 4) attempts per download;
# NET_WAITS (default "10 30 60") seconds between them, the last repeated.

# net_retry LIMIT WHAT CMD...: runs CMD, stopping an attempt after LIMIT
# seconds; a failed or stopped attempt is retried after a wait. Returns CMD's
# last exit code (124, or 137 when it had to be killed, when the last
# attempt ran out of time). Not retried: a command that could not be run
# (126, 127) and an interrupt (Ctrl-C: 130, 143). With NET_ERRLOG set to a
# file, CMD's standard error goes there and is shown only when an attempt
# fails.
#
# timeout runs in the foreground (--foreground): without it, timeout puts
# the command in a process group of its own, which Ctrl-C at the terminal
# does not reach. So CMD must be the process that does the work (exec, or
# env, not a shell that starts it): on time-out only it is signalled.
net_retry() {
	local limit=$1 what=$2
	shift 2
	local attempts=${NET_ATTEMPTS:-4} n=1 rc why
	local -a waits
	read -r -a waits <<<"${NET_WAITS:-10 30 60}"
	if ! [[ $attempts =~ ^[1-9][0-9]*$ && $limit =~ ^[1-9][0-9]*$ ]] || [ ${#waits[@]} -eq 0 ]; then
		printf '%s: bad settings: NET_ATTEMPTS=%q, NET_WAITS=%q, limit %q\n' \
			"$what" "$attempts" "${NET_WAITS-}" "$limit" >&2
		return 2
	fi
	while :; do
		rc=0
		if [ -n "${NET_ERRLOG:-}" ]; then
			timeout --foreground --kill-after=10 "$limit" "$@" 2>"$NET_ERRLOG" || rc=$?
			[ "$rc" -eq 0 ] || cat "$NET_ERRLOG" >&2
		else
			timeout --foreground --kill-after=10 "$limit" "$@" || rc=$?
		fi
		case $rc in
		0) return 0 ;;
		126 | 127 | 130 | 143) return "$rc" ;;
		124 | 137) why="no answer within ${limit} s" ;;
		*) why="exit code $rc" ;;
		esac
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
# LIMIT seconds an attempt (default 300; livekit-server's took 24 s here
# from an empty module cache, timed by hand); it is skipped when the module cache already has them all,
# so a warm machine does not ask the proxy anything (a plain go install
# PKG@VERSION always does: for the paths above the module and for its
# deprecation). Step 2 compiles from the module cache alone, served as a
# file:// proxy (GOPROXY=off would refuse go install's deprecation lookup),
# so a cold compile of several minutes never counts as a network hang.
go_install_tool() {
	local gobin=$1 pkg=$2 limit=${3:-300}
	local cache
	cache=$(go env GOMODCACHE) || return 1
	# as a URL in GOPROXY, where , and | separate proxies (and # and ?
	# would end the path)
	cache=${cache//%/%25}
	cache=${cache//,/%2C}
	cache=${cache//|/%7C}
	cache=${cache// /%20}
	cache=${cache//#/%23}
	cache=${cache//\?/%3F}
	local offline="file://$cache/cache/download" log rc=0
	# Step 1, unless the module cache has it all. -n prints the build's
	# commands on stderr: they are shown only when an attempt fails (and a
	# failed load prints none, only go's errors).
	if ! GOFLAGS= GOBIN="$gobin" GOPROXY="$offline" go install -n "$pkg" >/dev/null 2>&1; then
		log=$(mktemp) || return 1
		NET_ERRLOG=$log net_retry "$limit" "downloading the modules of $pkg" \
			env GOFLAGS= GOBIN="$gobin" go install -n "$pkg" || rc=$?
		rm -f "$log"
		[ "$rc" -eq 0 ] || return "$rc"
	fi
	# Step 2.
	GOFLAGS= GOBIN="$gobin" GOPROXY="$offline" go install "$pkg"
}
