//go:build !cgo || nomedia

package devagent

import (
	"errors"

	lksdk "github.com/livekit/server-sdk-go/v2"
)

// VideoEnabled reports whether the agent can publish its synthetic video:
// not in this build (no cgo, or -tags nomedia: no VP8 encoder).
const VideoEnabled = false

type synthVideo struct{}

func newVideoTrack() (*synthVideo, error) {
	return nil, errors.New("devagent: no VP8 encoder in this build (cgo and libvpx needed)")
}

func (*synthVideo) Track() *lksdk.LocalTrack { return nil }
func (*synthVideo) Close() error             { return nil }
