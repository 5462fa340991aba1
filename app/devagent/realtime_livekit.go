package devagent

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/livekit/protocol/auth"
	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/rtp/codecs"
	"github.com/pion/webrtc/v4"

	"aimdesk/app/aim"
)

// AgentStateAttribute is the participant attribute LiveKit agents use to
// show what they do ("listening", "thinking", "speaking").
const AgentStateAttribute = "lk.agent.state"

// Track analysis.
const (
	// measureFor is how long a video track is watched before reporting
	// its size and frame rate.
	measureFor = 2 * time.Second
	// vp8ClockRate is the RTP clock of VP8.
	vp8ClockRate = 90000
	// audioGap: when no audio packet came for this long (a muted or gated
	// microphone sends nothing), the ear counts silent frames, so that a
	// turn still ends. It is well above network jitter: late packets must
	// not be mistaken for silence.
	audioGap = 250 * time.Millisecond
)

// endpointGrant mints the LiveKit credentials of a user endpoint: it may
// join the room, subscribe, and publish its microphone and the granted
// video sources only.
func (h *Handler) endpointGrant(room, identity string, sources []aim.MediaSource) (*aim.LiveKitGrant, error) {
	lk := h.cfg.LiveKit
	g := &auth.VideoGrant{RoomJoin: true, Room: room}
	g.SetCanPublish(true)
	g.SetCanSubscribe(true)
	g.SetCanPublishData(true)
	srcs := []livekit.TrackSource{livekit.TrackSource_MICROPHONE}
	for _, s := range sources {
		switch s {
		case aim.SourceCamera:
			srcs = append(srcs, livekit.TrackSource_CAMERA)
		case aim.SourceScreen:
			srcs = append(srcs, livekit.TrackSource_SCREEN_SHARE)
		}
	}
	g.SetCanPublishSources(srcs)
	ttl := lk.tokenTTL()
	expires := time.Now().UTC().Add(ttl).Truncate(time.Second)
	tok, err := auth.NewAccessToken(lk.APIKey, lk.APISecret).SetVideoGrant(g).SetIdentity(identity).
		SetName("aimdesk").SetValidFor(ttl).ToJWT()
	if err != nil {
		return nil, err
	}
	return &aim.LiveKitGrant{URL: lk.URL, Token: tok, Room: room, Identity: identity, ExpiresAt: expires}, nil
}

// httpURL turns the server's ws(s):// URL into the room service's http(s)://.
func httpURL(ws string) (string, error) {
	u, err := url.Parse(ws)
	if err != nil {
		return "", fmt.Errorf("devagent: LiveKit URL %q: %w", ws, err)
	}
	switch u.Scheme {
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	case "http", "https":
	default:
		return "", fmt.Errorf("devagent: LiveKit URL %q: the scheme must be ws, wss, http or https", ws)
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

// liveKitRoom is the agent participant in one session's LiveKit room.
type liveKitRoom struct {
	spec   RoomSpec
	svc    *lksdk.RoomServiceClient
	room   *lksdk.Room
	voice  voiceTrack
	video  *synthVideo // nil unless LiveKitConfig.Video
	events func(RoomEvent)
	logf   func(string, ...any)

	mu      sync.Mutex
	closing bool
	ignored map[aim.MediaSource]bool
	pubs    map[aim.MediaSource][]*lksdk.RemoteTrackPublication
}

// openLiveKitRoom creates the room on the server, joins it as the agent
// (participant kind AGENT, attribute lk.agent.state) and publishes the
// agent's voice as its microphone.
func openLiveKitRoom(ctx context.Context, cfg *LiveKitConfig, spec RoomSpec, events func(RoomEvent), logf func(string, ...any)) (MediaRoom, error) {
	base, err := httpURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	svc := lksdk.NewRoomServiceClient(base, cfg.APIKey, cfg.APISecret)
	if _, err := svc.CreateRoom(ctx, &livekit.CreateRoomRequest{Name: spec.Room, EmptyTimeout: 300, MaxParticipants: 8}); err != nil {
		return nil, fmt.Errorf("create room %s: %w", spec.Room, err)
	}
	r := &liveKitRoom{
		spec: spec, svc: svc, events: events, logf: logf,
		ignored: map[aim.MediaSource]bool{}, pubs: map[aim.MediaSource][]*lksdk.RemoteTrackPublication{},
	}
	g := &auth.VideoGrant{RoomJoin: true, Room: spec.Room}
	g.SetCanPublish(true)
	g.SetCanSubscribe(true)
	g.SetCanPublishData(true)
	g.SetCanUpdateOwnMetadata(true)
	tok, err := auth.NewAccessToken(cfg.APIKey, cfg.APISecret).SetVideoGrant(g).SetIdentity(spec.Identity).
		SetName(AgentName).SetKind(livekit.ParticipantInfo_AGENT).
		SetAttributes(map[string]string{AgentStateAttribute: string(aim.AgentListening)}).
		SetValidFor(24 * time.Hour).ToJWT()
	if err != nil {
		return nil, fmt.Errorf("agent token: %w", err)
	}
	cb := lksdk.NewRoomCallback()
	cb.OnParticipantConnected = func(p *lksdk.RemoteParticipant) {
		events(RoomEvent{Kind: RoomParticipantJoined, Identity: p.Identity()})
	}
	cb.OnParticipantDisconnected = func(p *lksdk.RemoteParticipant) {
		events(RoomEvent{Kind: RoomParticipantLeft, Identity: p.Identity()})
	}
	cb.OnTrackSubscribed = r.onTrack
	cb.OnDisconnectedWithReason = func(reason lksdk.DisconnectionReason) {
		r.mu.Lock()
		closing := r.closing
		r.mu.Unlock()
		if !closing {
			events(RoomEvent{Kind: RoomLost, Reason: string(reason)})
		}
	}
	r.room = lksdk.NewRoom(cb)
	if err := r.room.JoinWithContextAndToken(ctx, cfg.URL, tok, lksdk.WithAutoSubscribe(true),
		lksdk.WithLogger(sdkLogger{logf: logf})); err != nil {
		_ = r.deleteRoom()
		return nil, fmt.Errorf("join room %s as the agent: %w", spec.Room, err)
	}
	voice, err := newVoiceTrack()
	if err != nil {
		r.room.Disconnect()
		_ = r.deleteRoom()
		return nil, fmt.Errorf("agent voice: %w", err)
	}
	r.voice = voice
	if _, err := r.room.LocalParticipant.PublishTrack(voice.Track(), &lksdk.TrackPublicationOptions{
		Name: "agent-voice", Source: livekit.TrackSource_MICROPHONE,
	}); err != nil {
		_ = voice.Close()
		r.room.Disconnect()
		_ = r.deleteRoom()
		return nil, fmt.Errorf("publish the agent's voice: %w", err)
	}
	if cfg.Video {
		r.publishVideo()
	}
	return r, nil
}

// publishVideo publishes the agent's synthetic video as its camera. The
// video is optional: a failure is logged and the session goes on.
func (r *liveKitRoom) publishVideo() {
	v, err := newVideoTrack()
	if err != nil {
		r.logf("devagent: room %s: no video: %v", r.spec.Room, err)
		return
	}
	if _, err := r.room.LocalParticipant.PublishTrack(v.Track(), &lksdk.TrackPublicationOptions{
		Name: AgentVideoTrackName, Source: livekit.TrackSource_CAMERA,
		VideoWidth: AgentVideoWidth, VideoHeight: AgentVideoHeight,
	}); err != nil {
		_ = v.Close()
		r.logf("devagent: room %s: publish the agent's video: %v", r.spec.Room, err)
		return
	}
	r.video = v
}

// SetState sets the lk.agent.state attribute.
func (r *liveKitRoom) SetState(s aim.AgentState) {
	r.room.LocalParticipant.SetAttributes(map[string]string{AgentStateAttribute: string(s)})
}

// Speak plays a voice-like utterance.
func (r *liveKitRoom) Speak(ctx context.Context, d time.Duration) error { return r.voice.Speak(ctx, d) }

// Play plays recorded audio as the agent's voice.
func (r *liveKitRoom) Play(ctx context.Context, pcm []int16) error { return r.voice.Play(ctx, pcm) }

// Ignore unsubscribes from (or subscribes again to) a user source.
func (r *liveKitRoom) Ignore(src aim.MediaSource, ignore bool) {
	r.mu.Lock()
	r.ignored[src] = ignore
	pubs := append([]*lksdk.RemoteTrackPublication(nil), r.pubs[src]...)
	r.mu.Unlock()
	for _, p := range pubs {
		if err := p.SetSubscribed(!ignore); err != nil {
			r.logf("devagent: room %s: subscribe %s = %v: %v", r.spec.Room, src, !ignore, err)
		}
	}
}

// Close leaves the room and deletes it.
func (r *liveKitRoom) Close() error {
	r.mu.Lock()
	if r.closing {
		r.mu.Unlock()
		return nil
	}
	r.closing = true
	r.mu.Unlock()
	_ = r.voice.Close()
	if r.video != nil {
		_ = r.video.Close()
	}
	r.room.Disconnect()
	return r.deleteRoom()
}

func (r *liveKitRoom) deleteRoom() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := r.svc.DeleteRoom(ctx, &livekit.DeleteRoomRequest{Room: r.spec.Room}); err != nil {
		return fmt.Errorf("devagent: delete room %s: %w", r.spec.Room, err)
	}
	return nil
}

func sourceOf(s livekit.TrackSource) (aim.MediaSource, bool) {
	switch s {
	case livekit.TrackSource_SCREEN_SHARE:
		return aim.SourceScreen, true
	case livekit.TrackSource_CAMERA:
		return aim.SourceCamera, true
	}
	return "", false
}

// onTrack starts reading a user track the agent subscribed to (an SDK
// callback: it only starts a goroutine).
func (r *liveKitRoom) onTrack(track *webrtc.TrackRemote, pub *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
	who := rp.Identity()
	if track.Kind() == webrtc.RTPCodecTypeAudio {
		go r.listen(track, who)
		return
	}
	src, ok := sourceOf(pub.Source())
	if !ok {
		go drain(track)
		return
	}
	r.mu.Lock()
	r.pubs[src] = append(r.pubs[src], pub)
	r.mu.Unlock()
	var w, h int
	if ti := pub.TrackInfo(); ti != nil {
		w, h = int(ti.Width), int(ti.Height)
	}
	go r.watch(track, who, src, w, h)
}

func drain(track *webrtc.TrackRemote) {
	for {
		if _, _, err := track.ReadRTP(); err != nil {
			return
		}
	}
}

// listen decodes a user's audio and runs the VAD over it (realtime_vad.go):
// it reports when the user starts speaking (RoomSpeechStarted: barge-in)
// and each turn with its recording when the user stops (RoomHeard).
func (r *liveKitRoom) listen(track *webrtc.TrackRemote, who string) {
	pkts := make(chan []byte, 64)
	go func() {
		defer close(pkts)
		for {
			pkt, _, err := track.ReadRTP()
			if err != nil {
				return
			}
			select {
			case pkts <- pkt.Payload:
			default: // the ear is hopelessly behind: drop, as a jitter buffer would
			}
		}
	}()
	e := newEar()
	var v vad
	var rec turnRecorder
	frame := func(pcm []int16, level float64) {
		ev := v.push(level)
		rec.add(pcm, ev, v.speaking)
		switch ev {
		case vadOnset:
			r.events(RoomEvent{Kind: RoomSpeechStarted, Identity: who})
		case vadTurnEnd:
			clip, d := rec.take()
			if v.voiced >= vadMinTurn {
				r.events(RoomEvent{Kind: RoomHeard, Identity: who, Clip: clip, Speech: d})
			}
		}
	}
	tick := time.NewTicker(vadFrame)
	defer tick.Stop()
	last := time.Now()
	for {
		select {
		case p, ok := <-pkts:
			if !ok {
				return
			}
			last = time.Now()
			pcm, level := e.hear(p)
			frame(pcm, level)
		case now := <-tick.C:
			if now.Sub(last) >= audioGap {
				last = last.Add(vadFrame)
				frame(nil, 0) // counted, not recorded
			}
		}
	}
}

// videoMeter measures a VP8 track: the frame size from key frames and the
// frame rate from RTP timestamps.
type videoMeter struct {
	width, height int
	frames        int
	firstTS       uint32
	lastTS        uint32
	started       bool
}

// add reads one RTP packet; vp8 says the codec is VP8. For VP8 the count
// starts at the first key frame: before it the SFU may send padding
// frames of its own.
func (m *videoMeter) add(ts uint32, payload []byte, vp8 bool) {
	if vp8 {
		var p codecs.VP8Packet
		frame, err := p.Unmarshal(payload)
		// A key frame: frame tag bit 0 clear, then the start code 9d 01 2a
		// and 14-bit width and height (RFC 6386 §9.1).
		if err == nil && p.S == 1 && p.PID == 0 && len(frame) >= 10 &&
			frame[0]&1 == 0 && frame[3] == 0x9d && frame[4] == 0x01 && frame[5] == 0x2a {
			m.width = int(uint16(frame[6])|uint16(frame[7])<<8) & 0x3fff
			m.height = int(uint16(frame[8])|uint16(frame[9])<<8) & 0x3fff
		}
		if m.width == 0 {
			return
		}
	}
	if !m.started || ts != m.lastTS {
		if !m.started {
			m.firstTS, m.started = ts, true
		}
		m.frames++
		m.lastTS = ts
	}
}

// fps is the frame rate over the RTP time seen.
func (m *videoMeter) fps() float64 {
	span := float64(m.lastTS-m.firstTS) / vp8ClockRate
	if m.frames < 2 || span <= 0 {
		return 0
	}
	return float64(m.frames-1) / span
}

// watch reads a user's video and reports its size and frame rate once,
// measured over measureFor from the first key frame (VP8) or the first
// packet (another codec, or no key frame within three times measureFor:
// then the size is the one the publisher declared).
func (r *liveKitRoom) watch(track *webrtc.TrackRemote, who string, src aim.MediaSource, infoW, infoH int) {
	vp8 := strings.EqualFold(track.Codec().MimeType, webrtc.MimeTypeVP8)
	var m videoMeter
	var first, start time.Time
	reported := false
	for {
		pkt, _, err := track.ReadRTP()
		if err != nil {
			return
		}
		if reported {
			continue
		}
		if first.IsZero() {
			first = time.Now()
		}
		if vp8 && !m.started && time.Since(first) > 3*measureFor {
			vp8 = false // no key frame seen: count every frame
		}
		m.add(pkt.Timestamp, pkt.Payload, vp8)
		if start.IsZero() && m.started {
			start = time.Now()
		}
		if start.IsZero() || time.Since(start) < measureFor {
			continue
		}
		w, h := m.width, m.height
		if w == 0 {
			w, h = infoW, infoH
		}
		r.mu.Lock()
		ignored := r.ignored[src]
		r.mu.Unlock()
		if !ignored {
			r.events(RoomEvent{Kind: RoomVideo, Identity: who, Source: src, Width: w, Height: h, FPS: m.fps()})
		}
		reported = true
	}
}

// voiceTrack is the agent's published voice (realtime_voice_*.go).
type voiceTrack interface {
	Track() webrtc.TrackLocal
	// Speak plays d of the synthetic voice.
	Speak(ctx context.Context, d time.Duration) error
	// Play plays recorded 48 kHz mono audio.
	Play(ctx context.Context, pcm []int16) error
	Close() error
}

// errVoiceClosed: Speak after Close.
var errVoiceClosed = errors.New("devagent: the voice track is closed")
