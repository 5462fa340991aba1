//go:build cgo && !noapm && !apm1

package apm

// webrtc-audio-processing 0.3 (the default build).

// #cgo pkg-config: webrtc-audio-processing
// #cgo CXXFLAGS: -std=c++14
import "C"

// aec3 reports whether the library's echo canceller is AEC3 (1.x): the
// 0.3-only switches of Config are ignored, and tests hold it to its own
// bounds where it differs.
const aec3 = false
