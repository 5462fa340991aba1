package mediaapi

import "image"

// RemoteVideoFPS bounds how often RemoteVideo hands on a frame of one track.
const RemoteVideoFPS = 15

// RemoteFrame is the newest decoded frame of a remote video track.
type RemoteFrame struct {
	TrackSID string
	Identity string // the participant who publishes it
	Source   TrackSource
	// Image is new for every frame: the receiver may keep it.
	Image *image.YCbCr
	// Seq counts the frames decoded on this track (this is the Seq-th).
	Seq uint64
}

// RemoteVideoStats describes what arrives of one remote video track.
type RemoteVideoStats struct {
	Packets uint64 // RTP packets received
	Frames  uint64 // frames decoded
	// KeyFrames counts the key frames decoded (the first after the track
	// is shown again is one: see ViewRemoteVideo).
	KeyFrames uint64
	Errors    uint64 // frames that failed to decode (a keyframe is asked for)
	Enabled   bool   // not disabled by ViewRemoteVideo
	// Width and Height are the size last asked for (0: none asked).
	Width, Height int
}
