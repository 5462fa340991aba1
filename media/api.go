package media

// The engine's API types live in package mediaapi, which links none of the
// media stacks (LiveKit, WebRTC, codecs), so that the app can be built
// without them and load the engine from its plugin (docs/architecture.md,
// "The plugin"). Here they keep their old names.

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"aimdesk/media/mediaapi"
	"aimdesk/media/screen"
	"aimdesk/media/screenpreset"
)

// Types of the API (package mediaapi).
type (
	AudioBackend     = mediaapi.AudioBackend
	HalfDuplexMode   = mediaapi.HalfDuplexMode
	Config           = mediaapi.Config
	JoinParams       = mediaapi.JoinParams
	MicOptions       = mediaapi.MicOptions
	SpeakerOptions   = mediaapi.SpeakerOptions
	CameraOptions    = mediaapi.CameraOptions
	ScreenCapture    = mediaapi.ScreenCapture
	ScreenPreset     = mediaapi.ScreenPreset
	ScreenOptions    = mediaapi.ScreenOptions
	DeviceKind       = mediaapi.DeviceKind
	Device           = mediaapi.Device
	Devices          = mediaapi.Devices
	Capabilities     = mediaapi.Capabilities
	ConnState        = mediaapi.ConnState
	ConnInfo         = mediaapi.ConnInfo
	ConnQuality      = mediaapi.ConnQuality
	Levels           = mediaapi.Levels
	MicState         = mediaapi.MicState
	VideoState       = mediaapi.VideoState
	LocalTracks      = mediaapi.LocalTracks
	TrackKind        = mediaapi.TrackKind
	TrackSource      = mediaapi.TrackSource
	RemoteTrack      = mediaapi.RemoteTrack
	Participant      = mediaapi.Participant
	Duplex           = mediaapi.Duplex
	AudioStatus      = mediaapi.AudioStatus
	CallStats        = mediaapi.CallStats
	Event            = mediaapi.Event
	RemoteFrame      = mediaapi.RemoteFrame
	RemoteVideoStats = mediaapi.RemoteVideoStats
	Transcription    = mediaapi.Transcription
	TextRoute        = mediaapi.TextRoute
	SendOther        = mediaapi.SendOther
)

// Constants of the API (package mediaapi).
const (
	BackendAuto            = mediaapi.BackendAuto
	BackendPulse           = mediaapi.BackendPulse
	BackendALSA            = mediaapi.BackendALSA
	BackendJACK            = mediaapi.BackendJACK
	BackendNull            = mediaapi.BackendNull
	HalfDuplexAuto         = mediaapi.HalfDuplexAuto
	HalfDuplexOn           = mediaapi.HalfDuplexOn
	HalfDuplexOff          = mediaapi.HalfDuplexOff
	ScreenCaptureAuto      = mediaapi.ScreenCaptureAuto
	ScreenCaptureX11       = mediaapi.ScreenCaptureX11
	ScreenCapturePortal    = mediaapi.ScreenCapturePortal
	DeviceMic              = mediaapi.DeviceMic
	DeviceSpeaker          = mediaapi.DeviceSpeaker
	DeviceCamera           = mediaapi.DeviceCamera
	DeviceScreen           = mediaapi.DeviceScreen
	ConnConnecting         = mediaapi.ConnConnecting
	ConnConnected          = mediaapi.ConnConnected
	ConnReconnecting       = mediaapi.ConnReconnecting
	ConnDisconnected       = mediaapi.ConnDisconnected
	QualityExcellent       = mediaapi.QualityExcellent
	QualityGood            = mediaapi.QualityGood
	QualityPoor            = mediaapi.QualityPoor
	QualityLost            = mediaapi.QualityLost
	KindAudio              = mediaapi.KindAudio
	KindVideo              = mediaapi.KindVideo
	SourceMicrophone       = mediaapi.SourceMicrophone
	SourceCamera           = mediaapi.SourceCamera
	SourceScreenShare      = mediaapi.SourceScreenShare
	SourceScreenShareAudio = mediaapi.SourceScreenShareAudio
	SourceUnknown          = mediaapi.SourceUnknown
	AgentStateAttribute    = mediaapi.AgentStateAttribute
	ScreenPreviewInterval  = mediaapi.ScreenPreviewInterval
	ScreenPreviewWidth     = mediaapi.ScreenPreviewWidth
	RemoteVideoFPS         = mediaapi.RemoteVideoFPS
	TopicTranscription     = mediaapi.TopicTranscription
	TopicChat              = mediaapi.TopicChat
	AttrTranscriptionFinal = mediaapi.AttrTranscriptionFinal
	AttrSegmentID          = mediaapi.AttrSegmentID
	AttrTranscribedTrackID = mediaapi.AttrTranscribedTrackID
	RouteLiveKitChat       = mediaapi.RouteLiveKitChat
	RouteOther             = mediaapi.RouteOther
)

// Errors of the API (package mediaapi).
var (
	ErrDisabled        = mediaapi.ErrDisabled
	ErrNoAudioDevice   = mediaapi.ErrNoAudioDevice
	ErrNoSoundSystem   = mediaapi.ErrNoSoundSystem
	ErrNoCamera        = mediaapi.ErrNoCamera
	ErrNoScreen        = mediaapi.ErrNoScreen
	ErrScreenCancelled = mediaapi.ErrScreenCancelled
	ErrClosed          = mediaapi.ErrClosed
	ErrNotConnected    = mediaapi.ErrNotConnected
	ErrUnknownTrack    = mediaapi.ErrUnknownTrack
	ErrNoTextRoute     = mediaapi.ErrNoTextRoute
)

// ScreenPresets lists the screen-share presets, for a settings choice.
func ScreenPresets() []ScreenPreset { return mediaapi.ScreenPresets() }

// DefaultScreenPreset is mediaapi.DefaultScreenPreset.
func DefaultScreenPreset(uplinkBitRate int) ScreenPreset {
	return mediaapi.DefaultScreenPreset(uplinkBitRate)
}

// ChatReader is mediaapi.ChatReader.
func ChatReader(ps []Participant) (identity string, ok bool) { return mediaapi.ChatReader(ps) }

// tokenFile is where the portal's restore token is kept.
func tokenFile(c Config) screen.TokenFile {
	switch c.ScreenTokenFile {
	case "":
		return screen.DefaultTokenFile()
	case "-":
		return screen.TokenFile{}
	}
	return screen.TokenFile{Path: c.ScreenTokenFile}
}

// screenWithDefaults fills what o leaves open from the engine's defaults d (only
// when o names no preset of its own: a preset asked for is taken whole,
// with o's own overrides) and then from the preset.
func screenWithDefaults(o, d ScreenOptions) ScreenOptions {
	if o.DisplayID == "" {
		o.DisplayID = d.DisplayID
	}
	if o.Preset == "" {
		if o.UplinkBitRate == 0 {
			o.Preset, o.UplinkBitRate = d.Preset, d.UplinkBitRate
		}
		fillZero(&o, d.MaxWidth, d.MaxHeight, d.FPS, d.BitRate)
	}
	p, ok := screenpreset.ByID(o.Preset)
	if !ok {
		p = screenpreset.Default(o.UplinkBitRate)
		o.Preset = p.ID
	}
	fillZero(&o, p.MaxWidth, p.MaxHeight, p.FPS, p.BitRate)
	return o
}

// fillZero sets the size, rate and bitrate that are still 0.
func fillZero(o *ScreenOptions, w, h int, fps float64, bitRate int) {
	if o.MaxWidth == 0 {
		o.MaxWidth = w
	}
	if o.MaxHeight == 0 {
		o.MaxHeight = h
	}
	if o.FPS == 0 {
		o.FPS = fps
	}
	if o.BitRate == 0 {
		o.BitRate = bitRate
	}
}

// eventEmpty: e changes nothing.
func eventEmpty(e Event) bool {
	return e.Conn == nil && e.Levels == nil && e.Local == nil && e.Participants == nil &&
		e.Duplex == nil && e.Audio == nil && e.Stats == nil && e.Err == nil && len(e.Transcriptions) == 0
}

// cloneParticipants copies ps deeply enough for another goroutine to keep.
func cloneParticipants(ps []Participant) []Participant {
	out := make([]Participant, len(ps))
	for i, p := range ps {
		p.Attributes = maps.Clone(p.Attributes)
		p.Tracks = slices.Clone(p.Tracks)
		out[i] = p
	}
	return out
}

// errNoMic: the sound server has no microphone (only monitors, or nothing).
var errNoMic = fmt.Errorf("%w: no microphone", ErrNoAudioDevice)

// apiEngine is an *Engine as a mediaapi.Engine: Join returns the *Call as
// a mediaapi.Call. Every other method of the engine is promoted, so
// callers' interfaces (the call window's screenCapturer) still find them.
type apiEngine struct{ *Engine }

func (a apiEngine) Join(ctx context.Context, p JoinParams) (mediaapi.Call, error) {
	c, err := a.Engine.Join(ctx, p)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// API returns e as a mediaapi.Engine.
func API(e *Engine) mediaapi.Engine { return apiEngine{e} }

// NewAPI opens the engine (New) as a mediaapi.Engine: the plugin's
// parts.Parts.NewEngine.
func NewAPI(cfg Config) (mediaapi.Engine, error) {
	e, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return API(e), nil
}
