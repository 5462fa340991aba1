#!/usr/bin/env bash
# Generates the Go code of the A2A v1.0 protocol buffers (app/a2a/a2apb)
# from ../shared/a2a-spec/a2a.proto (`make generate`). The generated files
# are committed, so a build needs neither protoc nor the plugins.
#
# protoc comes from Debian's protobuf-compiler, the well-known types
# (google/protobuf/*.proto) from libprotobuf-dev, the google.api protos the
# spec imports from ../shared/a2a-spec/third_party. The two Go plugins are
# installed into bin/ at pinned versions from the Go module proxy.
set -euo pipefail
cd "$(dirname "$0")/.."

PROTOC_GEN_GO_VERSION=v1.36.12    # = google.golang.org/protobuf in go.mod
PROTOC_GEN_GO_GRPC_VERSION=v1.6.2 # google.golang.org/grpc/cmd/protoc-gen-go-grpc
SPEC=${A2A_SPEC:-../shared/a2a-spec}
OUT=app/a2a/a2apb

# shellcheck source=scripts/netretry.sh
. scripts/netretry.sh
mkdir -p bin
export PATH="$PWD/bin:$PATH"
want() { # want TOOL VERSION MODULE: install TOOL@VERSION unless bin/ has it
	if ! [[ -x bin/$1 ]] || ! go version -m "bin/$1" | grep -q "mod.*$3.*$2"; then
		go_install_tool "$PWD/bin" "$3/cmd/$1@$2"
	fi
}
want protoc-gen-go "$PROTOC_GEN_GO_VERSION" google.golang.org/protobuf
want protoc-gen-go-grpc "$PROTOC_GEN_GO_GRPC_VERSION" google.golang.org/grpc
command -v protoc >/dev/null || { echo "generate: protoc missing: apt-get install protobuf-compiler libprotobuf-dev" >&2; exit 1; }
wkt=/usr/include
[[ -f $wkt/google/protobuf/struct.proto ]] || { echo "generate: google/protobuf/*.proto missing: apt-get install libprotobuf-dev" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lf/a2a/v1"; cp "$SPEC/a2a.proto" "$tmp/lf/a2a/v1/a2a.proto"
# The spec's go_package names Google's import path; ours is aimdesk's.
m="Mlf/a2a/v1/a2a.proto=aimdesk/app/a2a/a2apb;a2apb"
protoc -I "$tmp" -I "$SPEC/third_party" -I "$wkt" \
	--go_out="$tmp" --go_opt=paths=source_relative,"$m" \
	--go-grpc_out="$tmp" --go-grpc_opt=paths=source_relative,"$m" \
	"$tmp/lf/a2a/v1/a2a.proto"
mkdir -p "$OUT"
cp "$tmp/lf/a2a/v1/a2a.pb.go" "$tmp/lf/a2a/v1/a2a_grpc.pb.go" "$OUT/"
echo "generate: $OUT/a2a.pb.go $OUT/a2a_grpc.pb.go (protoc $(protoc --version | cut -d' ' -f2), protoc-gen-go $PROTOC_GEN_GO_VERSION, protoc-gen-go-grpc $PROTOC_GEN_GO_GRPC_VERSION)"
