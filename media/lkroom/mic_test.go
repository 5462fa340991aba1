package lkroom

import (
	"testing"

	"github.com/pion/rtp"
)

func TestBuildAudioPacket(t *testing.T) {
	tests := []struct {
		name    string
		id      uint8
		level   uint8
		voice   bool
		marker  bool
		wantExt bool
	}{
		{"tone with voice, talkspurt start", 1, 15, true, true, true},
		{"silence", 3, 127, false, false, true},
		{"level out of range is clamped", 2, 200, false, false, true},
		{"extension not negotiated", 0, 15, true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pkt, err := BuildAudioPacket(65535, tt.id, []byte{0xfc, 1, 2}, 4242, tt.level, tt.voice, tt.marker)
			if err != nil {
				t.Fatal(err)
			}
			// through the wire format and back
			b, err := pkt.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			var got rtp.Packet
			if err := got.Unmarshal(b); err != nil {
				t.Fatal(err)
			}
			if got.SequenceNumber != 65535 || got.Timestamp != 4242 || got.Marker != tt.marker || string(got.Payload) != "\xfc\x01\x02" {
				t.Errorf("header %+v payload %x", got.Header, got.Payload)
			}
			ext := got.GetExtension(tt.id)
			if !tt.wantExt {
				if got.Extension {
					t.Errorf("extension present: %+v", got.Header)
				}
				return
			}
			var al rtp.AudioLevelExtension
			if err := al.Unmarshal(ext); err != nil {
				t.Fatalf("extension %x: %v", ext, err)
			}
			if al.Level != min(tt.level, 127) || al.Voice != tt.voice {
				t.Errorf("audio level %+v, want level %d voice %v", al, min(tt.level, 127), tt.voice)
			}
			if got.ExtensionProfile != 0xBEDE {
				t.Errorf("profile %#x, want the one-byte header form", got.ExtensionProfile)
			}
		})
	}
}
