package lkroom

import (
	"errors"
	"math/rand/v2"
	"sync"

	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"
)

// AudioLevelURI is the RFC 6464 client-to-mixer audio level extension.
const AudioLevelURI = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"

// ErrNotBound means the track has not been negotiated yet.
var ErrNotBound = errors.New("lkroom: microphone track not bound")

// MicWriter writes the microphone's Opus frames to an lksdk LocalTrack as
// RTP packets it builds itself, each with the RFC 6464 audio-level header
// extension (level and voice-activity bit), the caller's timestamp and the
// marker bit on the first packet of a talkspurt.
//
// It does not use LocalTrack.WriteSample: its SampleWriteOptions carry
// only the level (the voice bit is always 0), its packetizer marks every
// packet, and it derives timestamps from wall-clock or duration, not from
// the capture clock. WriteRTP passes our header through; the SSRC and
// payload type are filled in by pion, NACK and RTCP by the SDK's
// interceptors as for any other packet.
type MicWriter struct {
	lt *lksdk.LocalTrack

	mu      sync.Mutex
	levelID uint8 // negotiated id of the audio-level extension; 0: not negotiated
	bound   bool
	seq     uint16
}

// NewMicWriter returns a writer for lt (an Opus LocalTrack not yet published).
func NewMicWriter(lt *lksdk.LocalTrack) *MicWriter {
	return &MicWriter{lt: lt, seq: uint16(rand.Uint32())} // #nosec G115 G404 -- random 16-bit start, no crypto needed
}

// Bind reads the negotiated header extensions of the track's sender on pc
// (the room's publisher PeerConnection). Call it from the track's OnBind.
func (w *MicWriter) Bind(pc *webrtc.PeerConnection) {
	id := uint8(0)
	if pc != nil {
		id = AudioLevelExtensionID(pc, w.lt)
	}
	w.mu.Lock()
	w.levelID, w.bound = id, true
	w.mu.Unlock()
}

// AudioLevelExtensionID is the id negotiated on pc for the audio-level
// extension of the sender of track (0 if none).
func AudioLevelExtensionID(pc *webrtc.PeerConnection, track webrtc.TrackLocal) uint8 {
	for _, tr := range pc.GetTransceivers() {
		s := tr.Sender()
		if s == nil || s.Track() != track {
			continue
		}
		for _, ext := range s.GetParameters().HeaderExtensions {
			if ext.URI == AudioLevelURI && ext.ID > 0 && ext.ID < 256 {
				return uint8(ext.ID)
			}
		}
	}
	return 0
}

// WriteOpus sends one Opus packet. ts is its RTP timestamp (48 kHz),
// level its RFC 6464 level (0..127, -dBov), voice the voice-activity bit.
func (w *MicWriter) WriteOpus(payload []byte, ts uint32, level uint8, voice, marker bool) error {
	w.mu.Lock()
	if !w.bound {
		w.mu.Unlock()
		return ErrNotBound
	}
	pkt, err := BuildAudioPacket(w.seq, w.levelID, payload, ts, level, voice, marker)
	if err != nil {
		w.mu.Unlock()
		return err
	}
	w.seq++
	w.mu.Unlock()
	return w.lt.WriteRTP(pkt, nil)
}

// BuildAudioPacket builds the RTP packet for WriteOpus (levelID 0: no
// extension).
func BuildAudioPacket(seq uint16, levelID uint8, payload []byte, ts uint32, level uint8, voice, marker bool) (*rtp.Packet, error) {
	pkt := &rtp.Packet{
		Header: rtp.Header{
			Version:        2,
			Marker:         marker,
			SequenceNumber: seq,
			Timestamp:      ts,
		},
		Payload: payload,
	}
	if levelID != 0 {
		ext, err := rtp.AudioLevelExtension{Level: min(level, 127), Voice: voice}.Marshal()
		if err != nil {
			return nil, err
		}
		if err := pkt.Header.SetExtension(levelID, ext); err != nil {
			return nil, err
		}
	}
	return pkt, nil
}
