//go:build cgo && !noapm && !apm1

package apm

// webrtc-audio-processing 0.3 (the default build).

// #cgo pkg-config: webrtc-audio-processing
// #cgo CXXFLAGS: -std=c++14
import "C"
