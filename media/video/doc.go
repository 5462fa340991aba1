// Package video captures the screen (mediadevices' X11 driver) and the
// camera (V4L2), scales and throttles the frames, encodes them to VP8 with
// libvpx through mediadevices' NewEncodedReader, and writes the frames to an
// lksdk LocalTrack created with WithRTCPHandler, so PLI and FIR from the SFU
// reach the encoder's ForceKeyFrame. (Publishing a mediadevices track
// directly would make two readers compete for RTCP, and keyframe requests
// would get lost.)
//
// # Concurrency
//
// A [Publisher] owns one pump goroutine, started when its track is first
// bound (the SDK silently drops writes before that). The track it writes to
// can be replaced (after an app-driven reconnect) without stopping the
// encoder.
package video
