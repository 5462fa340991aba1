#!/usr/bin/env bash
# demo.sh: start livekit-server on loopback for realtime calls, then the app
# in demo mode with its reference agent pointed at that server. The server
# stops when the app does. Without bin/livekit-server the demo still runs,
# with calls turned off (the agent then does not offer them).
#
#   scripts/demo.sh build/aimdesk [app flags…]
#   DEMO_LIVEKIT_PORT   HTTP/WebSocket port (default 7880; +1 TCP, +2 UDP)
set -euo pipefail
app=${1:?usage: demo.sh APP [flags…]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
lk=${LIVEKIT_SERVER:-$root/bin/livekit-server}
port=${DEMO_LIVEKIT_PORT:-7880}

if [ ! -x "$lk" ]; then
	echo "demo: $lk not found (make setup builds it); realtime calls are off" >&2
	exec "$app" --demo "$@"
fi
if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
	echo "demo: port $port is in use; set DEMO_LIVEKIT_PORT; realtime calls are off" >&2
	exec "$app" --demo "$@"
fi

dir=$(mktemp -d)
key=demo
secret=$(head -c 32 /dev/urandom | base64 | tr -d '/+=\n' | head -c 40)
cat >"$dir/livekit.yaml" <<YAML
port: $port
bind_addresses:
  - 127.0.0.1
rtc:
  tcp_port: $((port + 1))
  udp_port: $((port + 2))
  node_ip: 127.0.0.1
  use_external_ip: false
  enable_loopback_candidate: true
  interfaces:
    includes:
      - lo
keys:
  $key: $secret
logging:
  level: warn
YAML
"$lk" --config "$dir/livekit.yaml" >"$dir/livekit.log" 2>&1 &
lk_pid=$!
cleanup() {
	kill "$lk_pid" 2>/dev/null || true
	wait "$lk_pid" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT INT TERM

for _ in $(seq 1 100); do
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		break
	fi
	kill -0 "$lk_pid" 2>/dev/null || {
		echo "demo: livekit-server exited:" >&2
		tail -n 20 "$dir/livekit.log" >&2
		exit 1
	}
	sleep 0.1
done
echo "demo: livekit-server on ws://127.0.0.1:$port (loopback only)"
LIVEKIT_URL="ws://127.0.0.1:$port" LIVEKIT_API_KEY=$key LIVEKIT_API_SECRET=$secret "$app" --demo "$@"
