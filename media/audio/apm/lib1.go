//go:build cgo && !noapm && apm1

package apm

// webrtc-audio-processing-1 (build tag apm1; AEC3). Its headers need C++17
// (abseil).

// #cgo pkg-config: webrtc-audio-processing-1
// #cgo CXXFLAGS: -std=c++17 -DAIMDESK_APM1
import "C"

// aec3 reports whether the library's echo canceller is AEC3 (1.x): the
// 0.3-only switches of Config are ignored, and tests hold it to its own
// bounds where it differs.
const aec3 = true
