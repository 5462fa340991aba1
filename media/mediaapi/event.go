package mediaapi

import (
	"slices"
	"time"
)

// ConnState is the state of a call's connection to the room.
type ConnState string

// Connection states.
const (
	ConnConnecting   ConnState = "connecting"
	ConnConnected    ConnState = "connected"
	ConnReconnecting ConnState = "reconnecting" // the SDK resumes/restarts, or the app reconnects after a server leave
	ConnDisconnected ConnState = "disconnected" // final: left, or reconnection gave up
)

// String implements fmt.Stringer.
func (s ConnState) String() string { return string(s) }

// ConnInfo describes the connection.
type ConnInfo struct {
	State    ConnState
	Reason   string // why it is reconnecting or disconnected; "" otherwise
	Attempt  int    // app-driven reconnect attempt (0 when not reconnecting that way)
	Room     string
	Identity string // our participant identity
	// Quality is our connection's quality as the server rates it:
	// QualityExcellent, QualityGood, QualityPoor, QualityLost; "" until
	// the server's first rating.
	Quality ConnQuality
}

// ConnQuality is LiveKit's rating of a participant's connection.
type ConnQuality string

// Connection qualities (livekit.ConnectionQuality in lower case).
const (
	QualityExcellent ConnQuality = "excellent"
	QualityGood      ConnQuality = "good"
	QualityPoor      ConnQuality = "poor"
	QualityLost      ConnQuality = "lost"
)

// Levels are meter positions 0..1 (dBFS from -60 to 0, smoothed).
type Levels struct {
	Mic   float64 // our microphone, as captured (even when muted)
	Agent float64 // the remote audio being played (the agent's voice)
}

// MicState is the state of our microphone.
type MicState struct {
	Published  bool
	Muted      bool // muted by the user (others see the track muted)
	PushToTalk bool // push-to-talk mode
	Talking    bool // audio is being sent right now (not muted, PTT pressed, not ducked)
	Ducked     bool // half-duplex: the agent is speaking, we send silence
	Source     string
	DeviceID   string
}

// VideoState is the state of our camera or screen share.
type VideoState struct {
	Published bool
	DeviceID  string
	Width     int // size of the frames sent
	Height    int
}

// LocalTracks is everything we publish.
type LocalTracks struct {
	Mic    MicState
	Camera VideoState
	Screen VideoState
}

// TrackKind is "audio" or "video".
type TrackKind string

// Track kinds.
const (
	KindAudio TrackKind = "audio"
	KindVideo TrackKind = "video"
)

// TrackSource is the LiveKit track source in lower case ("microphone",
// "camera", "screen_share", "screen_share_audio", "unknown"); other values
// are kept as they come.
type TrackSource string

// Track sources.
const (
	SourceMicrophone       TrackSource = "microphone"
	SourceCamera           TrackSource = "camera"
	SourceScreenShare      TrackSource = "screen_share"
	SourceScreenShareAudio TrackSource = "screen_share_audio"
	SourceUnknown          TrackSource = "unknown"
)

// RemoteTrack is a track published by another participant.
type RemoteTrack struct {
	SID        string
	Name       string
	Kind       TrackKind
	Source     TrackSource
	Muted      bool
	Subscribed bool
}

// AgentStateAttribute is the attribute LiveKit agents publish their state in.
const AgentStateAttribute = "lk.agent.state"

// Participant is another participant of the room.
type Participant struct {
	Identity   string
	Name       string
	SID        string
	Kind       string // "standard", "agent", "ingress", "egress", "sip", ...
	Attributes map[string]string
	AgentState string // Attributes["lk.agent.state"]: "initializing", "listening", "thinking", "speaking"
	Speaking   bool
	Tracks     []RemoteTrack
	Quality    ConnQuality // its connection's quality; "" until rated
}

// Duplex is the echo-handling state, with a sentence for the UI.
type Duplex struct {
	Mode       HalfDuplexMode
	HalfDuplex bool // the microphone is ducked while the agent speaks
	Headset    bool // the output device looks like a headset
	// EchoCanceller names the echo canceller processing the microphone,
	// e.g. "WebRTC APM 0.3 (AEC)"; "" when there is none (a build with the
	// tag noapm, the synthetic tone as microphone, or it failed to start).
	EchoCanceller string
	Reason        string // e.g. "Full duplex with echo cancellation (WebRTC APM 0.3 (AEC)): …"
}

// AudioStatus says which audio devices work.
type AudioStatus struct {
	Backend  string // the miniaudio backend in use, "" if none
	Capture  bool   // a microphone (or the tone) is capturing
	Playback bool   // the speaker is playing
	// SpeakerID is the output in use ("" = the server's default, followed).
	SpeakerID string
	// TextOnly: no usable microphone and no speaker: the call carries no
	// voice; the UI should offer text only.
	TextOnly bool
	Reason   string // why capture or playback is off
}

// CallStats are the call's voice statistics, refreshed about once a
// second: the receive side of the agent's audio (its jitter-buffered
// playout; counters since the call started) and the send side of our
// microphone.
type CallStats struct {
	Jitter           time.Duration // RFC 3550 interarrival jitter of the agent's audio
	LossPercent      float64       // agent's audio packets that never arrived, % of those sent
	Delay            time.Duration // current playout (jitter buffer) delay
	TargetDelay      time.Duration // the delay the buffer adapts to (20–120 ms)
	Packets          int64         // agent's audio packets received
	Underruns        uint64        // pulls that found nothing to play while the agent's audio was active
	Concealed        uint64        // lost frames concealed (Opus PLC)
	FECRecovered     uint64        // lost frames recovered from in-band FEC
	Late             uint64        // packets that arrived after their playout time
	Duplicates       uint64        // packets received twice
	Inserted         uint64        // frames inserted to grow the delay (jitter, clock drift)
	Dropped          uint64        // frames dropped to shrink the delay (clock drift)
	ConcealedPercent float64       // concealed or inserted frames, % of frames played
	Frames           uint64        // frames played: decoded, FEC-recovered, concealed or inserted
	MaxGap           time.Duration // longest silence in the agent's audio while it was active
	// Send side (RTCP receiver reports about our microphone track).
	RTT               time.Duration
	UplinkLossPercent float64
	// Congestion control: the send-side (GCC) estimate of the uplink from
	// the SFU's transport-wide feedback, bit/s (0 before the first
	// feedback), and the bit rate the video encoders are asked for now
	// (screen and camera together; 0 without video).
	UplinkEstimate     int
	VideoTargetBitRate int
}

// Event is a change of a call's state in the style of tailscale's
// ipn.Notify: nil fields are unchanged. The first event on Events() and
// the result of State() have every field set (Participants non-nil).
type Event struct {
	Conn         *ConnInfo
	Levels       *Levels
	Local        *LocalTracks
	Participants []Participant // the full list whenever it changed; nil = unchanged
	Duplex       *Duplex
	Audio        *AudioStatus
	Stats        *CallStats // about once a second while it changes
	// Transcriptions are lk.transcription text streams received since the
	// last event (LiveKit Agents' transcripts; lktranscription.go), in
	// order. Unlike the other fields they are not state: never in State()
	// or the first event. Coalesced events keep every segment, the latest
	// text of each.
	Transcriptions []Transcription
	// Err is a non-fatal problem to show (device lost, publish failed, ...).
	Err error
}

// Merge folds the newer delta n into e (later values win; errors are
// joined by keeping the latest), for consumers that coalesce events.
func (e *Event) Merge(n Event) {
	if n.Conn != nil {
		e.Conn = n.Conn
	}
	if n.Levels != nil {
		e.Levels = n.Levels
	}
	if n.Local != nil {
		e.Local = n.Local
	}
	if n.Participants != nil {
		e.Participants = n.Participants
	}
	if n.Duplex != nil {
		e.Duplex = n.Duplex
	}
	if n.Audio != nil {
		e.Audio = n.Audio
	}
	if n.Stats != nil {
		e.Stats = n.Stats
	}
	if n.Err != nil {
		e.Err = n.Err
	}
	e.Transcriptions = mergeTranscriptions(e.Transcriptions, n.Transcriptions)
}

// mergeTranscriptions appends b to a; an update of a segment already in
// a replaces it in place (its latest text; final stays final).
func mergeTranscriptions(a, b []Transcription) []Transcription {
	for _, t := range b {
		i := slices.IndexFunc(a, func(o Transcription) bool { return o.SegmentID == t.SegmentID && o.Speaker == t.Speaker })
		if i < 0 {
			a = append(a, t)
			continue
		}
		if a[i].Final && !t.Final {
			continue
		}
		a[i] = t
	}
	return a
}
