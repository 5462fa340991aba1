package devagent

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
)

// The agent's behaviour in a realtime session runs on one goroutine per
// session (brain), fed by commands and by the media room's events through
// the session's inbox. It speaks (agent.state speaking + transcript + audio
// in the room), thinks, asks for the screen, reports what it sees, plays
// back what it hears (the parrot), and stops speaking on response.interrupt
// or when the user starts speaking over it (barge-in, the same path).

type brainKind int

const (
	msgJoined       brainKind = iota // an endpoint joined for the first time in the epoch
	msgText                          // input.text to answer
	msgSay                           // something to say
	msgInterrupt                     // response.interrupt
	msgRunOperation                  // a confirmed operation to carry out
	msgRoom                          // an event of the media room
	msgEpoch                         // the room restarted
	msgSpoken                        // an utterance ended
	msgReply                         // time to answer a turn the user spoke
)

// parrotDelay is how long the agent waits after a turn ended (which the
// VAD says after 500 ms without voice) before it plays the turn back: the
// reply starts about a second after the user's last word.
const parrotDelay = 500 * time.Millisecond

type brainMsg struct {
	kind        brainKind
	epoch       int64
	text        string
	endpointID  string
	operationID string
	room        RoomEvent
	utterance   int
	reply       int
}

// tell enqueues a message for the brain without blocking; when the inbox
// is full (the agent is hopelessly behind) the message is dropped.
func (s *rtSession) tell(m brainMsg) {
	select {
	case s.inbox <- m:
	default:
		s.h.logf("devagent: realtime %s: the agent's inbox is full; dropped a message", s.sess.SessionID)
	}
}

// brain is the behaviour loop; it ends with the session.
type brainState struct {
	utterance int                // id of the current utterance
	stop      context.CancelFunc // stops the current utterance
	speaking  bool
	heard     bool                     // "I hear you" said in this epoch
	seen      map[aim.MediaSource]bool // "I see your …" said in this epoch
	epoch     int64
	replies   int       // turns heard
	reply     int       // id of the turn waiting to be played back (0: none)
	heardTurn RoomEvent // that turn
}

func (s *rtSession) brain() {
	b := &brainState{seen: map[aim.MediaSource]bool{}, epoch: 1}
	defer func() {
		if b.stop != nil {
			b.stop()
		}
	}()
	for {
		select {
		case <-s.ctx.Done():
			return
		case m := <-s.inbox:
			s.think(b, m)
		}
	}
}

func (s *rtSession) think(b *brainState, m brainMsg) {
	if m.kind != msgSpoken && m.epoch < b.epoch {
		return // from a room that has been replaced
	}
	switch m.kind {
	case msgEpoch:
		b.epoch, b.heard = m.epoch, false
		b.seen = map[aim.MediaSource]bool{}
		b.reply = 0
		s.silence(b)
	case msgJoined:
		s.greet(b, m.endpointID)
	case msgText:
		s.answer(b, m.text)
	case msgSay:
		s.say(b, m.text)
	case msgInterrupt:
		s.interrupt(b, "(interrupted)")
	case msgRunOperation:
		if s.runOperation(m.operationID) {
			s.say(b, "Done: I saved the note.")
		}
	case msgSpoken:
		s.spoken(b, m.utterance)
	case msgRoom:
		s.roomEvent(b, m.room)
	case msgReply:
		if m.reply == b.reply && b.reply != 0 {
			b.reply = 0
			s.parrot(b, b.heardTurn)
		}
	}
}

// spoken: utterance id played to its end; unless another one replaced it,
// the agent listens again.
func (s *rtSession) spoken(b *brainState, id int) {
	if id == b.utterance && b.speaking {
		b.speaking, b.stop = false, nil
		s.setState(aim.AgentListening)
	}
}

// greet welcomes a newly joined endpoint and asks for its screen when the
// session granted it and the endpoint has one.
func (s *rtSession) greet(b *brainState, endpointID string) {
	s.say(b, "Hello! I am the reference agent. Talk to me, type, or share your screen.")
	s.mu.Lock()
	defer s.mu.Unlock()
	if ep := s.sess.Endpoint(endpointID); ep != nil && ep.Capabilities.Screen {
		s.requestMediaLocked(aim.SourceScreen, "So that I can see what you are working on")
	}
}

// answer replies to input.text after thinking a moment: "bye" ends the
// session, "screen" asks for the screen, anything else is echoed.
func (s *rtSession) answer(b *brainState, text string) {
	s.setState(aim.AgentThinking)
	if s.h.pause(s.ctx, workPause) != nil {
		return
	}
	word, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(text)), " ")
	switch strings.Trim(word, ".,!?") {
	case "bye", "goodbye":
		s.say(b, "Goodbye!")
		s.waitSpoken(b)
		s.end("the agent said goodbye", a2a.TaskStateCompleted)
	case "screen", "share", "look":
		s.mu.Lock()
		id := s.requestMediaLocked(aim.SourceScreen, "You asked me to look at your screen")
		s.mu.Unlock()
		if id == "" {
			s.say(b, "I cannot ask for your screen now: it was not granted, you revoked it, or I already asked.")
			return
		}
		s.say(b, "Please allow me to see your screen.")
	default:
		s.say(b, "You said: "+text)
	}
}

// roomEvent reacts to what happens in the media room.
func (s *rtSession) roomEvent(b *brainState, ev RoomEvent) {
	switch ev.Kind {
	case RoomSpeechStarted:
		b.reply = 0 // the user goes on: answer the whole turn later
		if b.speaking {
			s.interrupt(b, "(interrupted: you spoke)")
		}
	case RoomHeard:
		b.replies++
		b.reply, b.heardTurn = b.replies, ev
		id, epoch := b.reply, b.epoch
		time.AfterFunc(parrotDelay, func() { s.tell(brainMsg{kind: msgReply, epoch: epoch, reply: id}) })
	case RoomVideo:
		s.mu.Lock()
		revoked := s.revoked[ev.Source]
		s.mu.Unlock()
		if revoked || b.seen[ev.Source] {
			return
		}
		b.seen[ev.Source] = true
		s.say(b, fmt.Sprintf("I see your %s, %d×%d at %s fps.", describe(ev.Source), ev.Width, ev.Height, fpsText(ev.FPS)))
	case RoomParticipantJoined, RoomParticipantLeft:
		s.mu.Lock()
		for i := range s.sess.Endpoints {
			ep := &s.sess.Endpoints[i]
			if endpointIdentity(ep.EndpointID) == ev.Identity && ep.Joined != (ev.Kind == RoomParticipantJoined) {
				ep.Joined = ev.Kind == RoomParticipantJoined
				s.sess.State = aim.SessionReady
				for _, e := range s.sess.Endpoints {
					if e.Joined {
						s.sess.State = aim.SessionActive
					}
				}
				s.sessionUpdatedLocked()
			}
		}
		s.mu.Unlock()
	case RoomLost:
		_ = s.restartRoom("the agent lost the room: " + ev.Reason)
	case RoomChat:
		s.chat(ev)
	}
}

func fpsText(fps float64) string {
	if math.Abs(fps-math.Round(fps)) < 0.05 {
		return fmt.Sprintf("%.0f", fps)
	}
	return fmt.Sprintf("%.1f", fps)
}

// setState publishes agent.state and sets the room's attribute.
func (s *rtSession) setState(st aim.AgentState) {
	s.mu.Lock()
	room := s.room
	s.eventLocked(aim.WireEvent{Event: aim.EventAgentState, State: st})
	s.mu.Unlock()
	if room != nil {
		room.SetState(st)
	}
}

// utteranceLength is how long the agent speaks text.
func (s *rtSession) utteranceLength(text string) time.Duration {
	if d := s.h.cfg.Hooks.StepDelay; d > 0 {
		return d
	}
	return min(max(time.Duration(len(text))*60*time.Millisecond, 800*time.Millisecond), 4*time.Second)
}

// parrot answers a turn the user spoke with the user's own voice: its
// transcript line is "I hear you." the first time in an epoch, then
// "(your words, played back)".
func (s *rtSession) parrot(b *brainState, turn RoomEvent) {
	text := "(your words, played back)"
	if !b.heard {
		b.heard = true
		text = "I hear you."
	}
	if turn.Clip == nil {
		// no decoder: the synthetic voice, as long as the turn
		s.speak(b, text, nil, max(turn.Speech, s.utteranceLength(text)))
		return
	}
	s.speak(b, text, turn.Clip, 0)
}

// say speaks text with the synthetic voice: speaking, a final transcript
// line, audio in the room, then listening (msgSpoken) unless interrupted
// or replaced.
func (s *rtSession) say(b *brainState, text string) {
	s.speak(b, text, nil, s.utteranceLength(text))
}

// speak is say with the audio given: clip when not nil, else d of the
// synthetic voice.
func (s *rtSession) speak(b *brainState, text string, clip []int16, d time.Duration) {
	if b.stop != nil {
		b.stop()
	}
	b.utterance++
	b.speaking = true
	id := b.utterance
	ctx, stop := context.WithCancel(s.ctx)
	b.stop = stop
	s.setState(aim.AgentSpeaking)
	s.mu.Lock()
	room := s.room
	s.eventLocked(aim.WireEvent{Event: aim.EventTranscript, Role: aim.RoleAgent, Text: text, Final: true})
	s.mu.Unlock()
	if tr, ok := room.(transcriber); ok {
		spoken := d
		if clip != nil {
			spoken = time.Duration(len(clip)) * time.Second / voiceRate
		}
		go tr.Transcribe(ctx, text, spoken)
	}
	go func() {
		switch {
		case room != nil && clip != nil:
			_ = room.Play(ctx, clip)
		case room != nil:
			_ = room.Speak(ctx, d)
		case clip != nil:
			_ = sleepCtx(ctx, time.Duration(len(clip))*time.Second/voiceRate)
		default:
			_ = sleepCtx(ctx, d)
		}
		if ctx.Err() == nil {
			s.tell(brainMsg{kind: msgSpoken, utterance: id})
		}
	}()
}

// interrupt is barge-in, by response.interrupt or by the user's voice:
// the agent stops speaking at once (its queued audio is dropped), goes
// back to listening and, when it was speaking, notes the interruption as
// a transcript line (note, e.g. "(interrupted)").
func (s *rtSession) interrupt(b *brainState, note string) {
	if s.silence(b) {
		s.mu.Lock()
		s.eventLocked(aim.WireEvent{Event: aim.EventTranscript, Role: aim.RoleAgent, Text: note, Final: true})
		s.mu.Unlock()
	}
}

// silence stops speaking at once and reports whether the agent was
// speaking.
func (s *rtSession) silence(b *brainState) bool {
	if b.stop != nil {
		b.stop()
		b.stop = nil
	}
	if !b.speaking {
		return false
	}
	b.speaking = false
	s.setState(aim.AgentListening)
	return true
}

// waitSpoken waits until the current utterance ended.
func (s *rtSession) waitSpoken(b *brainState) {
	for b.speaking {
		select {
		case <-s.ctx.Done():
			return
		case m := <-s.inbox:
			if m.kind == msgSpoken || m.kind == msgInterrupt {
				s.think(b, m)
			}
		}
	}
}

// chat takes typed text from lk.chat as input.text, from the session's
// own endpoints only (as LiveKit Agents read only the linked participant).
func (s *rtSession) chat(ev RoomEvent) {
	s.mu.Lock()
	mine := false
	for _, ep := range s.sess.Endpoints {
		mine = mine || endpointIdentity(ep.EndpointID) == ev.Identity
	}
	s.mu.Unlock()
	if !mine {
		s.h.logf("devagent: realtime %s: ignored lk.chat from %q, not an endpoint of the session", s.sess.SessionID, ev.Identity)
		return
	}
	if _, err := s.interact(aim.Text(ev.Text)); err != nil {
		s.h.logf("devagent: realtime %s: lk.chat: %v", s.sess.SessionID, err)
	}
}
