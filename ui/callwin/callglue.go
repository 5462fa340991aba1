package callwin

// The glue between the call window and what it drives: the media engine
// (package media) and the realtime control plane (app/aim through the
// core). The window sees both through the small interfaces below, so that
// it can be tested with the real engine and agent and, for goldens, with
// fakes.

import (
	"context"
	"errors"
	"image"
	"slices"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/aim"
	"aimdesk/media/mediaapi"
	"aimdesk/ui/errtext"
)

// callEngine is what the call window needs of the media engine: all of
// mediaapi.Engine (the app's comes from Env.MediaEngine).
type callEngine = mediaapi.Engine

// callMedia is what the call window needs of a media call (*media.Call).
type callMedia = mediaapi.Call

// screenPreviewer is a media call that can show the screen frames it
// sends (*media.Call: thumbnails of the frames it encodes, at most 4 a
// second). The call window's pointing area shows them; without it, a plain
// area of the frame's shape.
type screenPreviewer interface {
	ScreenPreview(ctx context.Context, fn func(image.Image)) error
}

// callSession is one realtime session (*aim.RealtimeSession).
type callSession interface {
	ID() string
	TaskID() string
	Snapshot() aim.Session
	Resyncs() int
	Events(ctx context.Context) <-chan aim.Event
	WaitSubscribed(ctx context.Context) error
	RegisterEndpoint(ctx context.Context, key string, caps aim.EndpointCapabilities) (string, error)
	Join(ctx context.Context) (*aim.LiveKitGrant, error)
	Send(ctx context.Context, in aim.Interaction) (*aim.Command, error)
	End(ctx context.Context, reason string) (*aim.Command, error)
}

// callControl starts sessions and lets the core see their events (which
// raises the approvals of operations).
type callControl interface {
	EndpointKey(ctx context.Context) (string, error)
	Create(ctx context.Context, agentID string, o aim.CreateOptions) (callSession, error)
	// Observe shows an event to the core; convID is the conversation that
	// keeps the call's transcript ("" when none), which approvals raised
	// during the call belong to.
	Observe(agentID, convID string, s callSession, ev aim.Event)
}

// coreControl is callControl over the core.
type coreControl struct{ core *app.Core }

func (c coreControl) EndpointKey(ctx context.Context) (string, error) {
	return c.core.RealtimeEndpointKey(ctx)
}

func (c coreControl) Create(ctx context.Context, agentID string, o aim.CreateOptions) (callSession, error) {
	rc, err := c.core.RealtimeClient(agentID)
	if err != nil {
		return nil, err
	}
	s, err := rc.Create(ctx, o)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (c coreControl) Observe(agentID, convID string, s callSession, ev aim.Event) {
	if rs, ok := s.(*aim.RealtimeSession); ok {
		c.core.ObserveRealtime(agentID, convID, rs, ev)
	}
}

// Support says whether a call can be started with a, and why not (a
// sentence for the user).
func Support(a app.Agent) (bool, string) {
	switch {
	case a.Card == nil:
		return false, "aimdesk has not read this agent's card yet."
	case !aim.SupportsRealtime(a.Card):
		return false, "This agent offers no calls: its card does not declare realtime sessions (" + aim.RealtimeExtension + ")."
	case a.Interface.ProtocolVersion == a2a.Version03:
		return false, "Calls need A2A 1.0; aimdesk talks to this agent over A2A 0.3."
	case a.Status == app.AgentOffline:
		return false, "The agent is offline."
	}
	return true, ""
}

// mergeMediaEvent folds the newer media delta n into e.
func mergeMediaEvent(e, n mediaapi.Event) mediaapi.Event {
	e.Merge(n)
	return e
}

// agentParticipant returns the agent among the room's participants: kind
// "agent", or else one that publishes lk.agent.state.
func agentParticipant(ps []mediaapi.Participant) (mediaapi.Participant, bool) {
	for _, p := range ps {
		if p.Kind == "agent" {
			return p, true
		}
	}
	for _, p := range ps {
		if p.AgentState != "" {
			return p, true
		}
	}
	return mediaapi.Participant{}, false
}

// allowedRequest reports whether the session lets the user publish src:
// a media request for it is allowed and not used up (a "once" permission
// is used up when its share stops).
func allowedRequest(s *aim.Session, src aim.MediaSource, used map[string]bool) bool {
	return slices.ContainsFunc(s.MediaRequests, func(r aim.MediaRequest) bool {
		return r.Source == src && r.State == aim.MediaAllowed && !used[r.RequestID]
	})
}

// pendingRequest returns the agent's oldest media request still waiting
// for the user's answer.
func pendingRequest(s *aim.Session) *aim.MediaRequest {
	for i := range s.MediaRequests {
		if s.MediaRequests[i].State == aim.MediaPending {
			r := s.MediaRequests[i]
			return &r
		}
	}
	return nil
}

// trackName is the name media publishes a source's track under (media.prepare).
func trackName(src aim.MediaSource) string {
	if src == aim.SourceCamera {
		return "camera"
	}
	return "screen"
}

// sourceWord names a source in sentences.
func sourceWord(src aim.MediaSource) string {
	if src == aim.SourceCamera {
		return "camera"
	}
	return "screen"
}

// callErrText is an error in words for the call window.
func callErrText(err error) string {
	var pce *aim.PendingCommandError
	switch {
	case errors.Is(err, mediaapi.ErrScreenCancelled):
		return "You closed your desktop's screen picker: nothing is shared."
	case errors.Is(err, mediaapi.ErrNoScreen):
		return "No screen to share (screen sharing needs an X11 display, or the desktop's screen-cast portal on Wayland)."
	case errors.Is(err, mediaapi.ErrNoCamera):
		return "No camera found."
	case errors.Is(err, mediaapi.ErrNotConnected):
		return "The call is not connected right now; try again in a moment."
	case errors.Is(err, aim.ErrSessionEnded):
		return "The call has ended."
	case errors.As(err, &pce):
		return "The agent did not answer in time; it may or may not have received it."
	}
	return errtext.Sentence(err)
}
