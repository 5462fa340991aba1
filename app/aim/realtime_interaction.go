package aim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// InteractionType is SendInteraction's type, with the wire spelling.
type InteractionType string

// The ten interaction types of §2.
const (
	InputText         InteractionType = "input.text"
	VisualSelect      InteractionType = "visual.select"
	ResponseInterrupt InteractionType = "response.interrupt"
	OperationConfirm  InteractionType = "operation.confirm"
	OperationCancel   InteractionType = "operation.cancel"
	MediaRequestType  InteractionType = "media.request"
	MediaDecide       InteractionType = "media.decide"
	MediaPrepare      InteractionType = "media.prepare"
	MediaStop         InteractionType = "media.stop"
	MediaRevoke       InteractionType = "media.revoke"
)

// InteractionTypes lists the ten types in the order of §2's table.
var InteractionTypes = []InteractionType{
	InputText, VisualSelect, ResponseInterrupt, OperationConfirm,
	OperationCancel, MediaRequestType, MediaDecide, MediaPrepare, MediaStop, MediaRevoke,
}

func (t InteractionType) String() string { return string(t) }

// Kind is the interaction kind a session must grant for t, or "" when t
// needs none (response.interrupt and the media.* types, which are bound
// to the granted sources instead).
func (t InteractionType) Kind() InteractionKind {
	switch t {
	case InputText:
		return InteractionText
	case VisualSelect:
		return InteractionPointer
	case OperationConfirm, OperationCancel:
		return InteractionConfirmation
	}
	return ""
}

// MediaDecision answers the agent's media request.
type MediaDecision string

// Media decisions.
const (
	MediaAllow MediaDecision = "allow"
	MediaDeny  MediaDecision = "deny"
)

func (d MediaDecision) String() string { return string(d) }

// MediaScope is how long a media decision holds.
type MediaScope string

// Media scopes.
const (
	ScopeOnce    MediaScope = "once"
	ScopeSession MediaScope = "session"
)

func (s MediaScope) String() string { return string(s) }

// Payloads of the interaction types.

// TextPayload is input.text's payload.
type TextPayload struct {
	Text string `json:"text"`
}

// SelectPayload is visual.select's payload: a region in pixels of the
// shared frame.
type SelectPayload struct {
	Source MediaSource `json:"source"`
	X      int         `json:"x"`
	Y      int         `json:"y"`
	Width  int         `json:"width"`
	Height int         `json:"height"`
	Note   string      `json:"note,omitempty"`
}

// InterruptPayload is response.interrupt's (empty) payload.
type InterruptPayload struct{}

// ConfirmPayload is operation.confirm's payload: the requirement's id,
// version and digest exactly as received.
type ConfirmPayload struct {
	OperationID     string `json:"operationId"`
	RequirementID   string `json:"requirementId"`
	ExpectedVersion int64  `json:"expectedVersion"`
	ActionDigest    string `json:"actionDigest"`
}

// CancelPayload is operation.cancel's payload.
type CancelPayload struct {
	OperationID string `json:"operationId"`
	Reason      string `json:"reason,omitempty"`
}

// MediaRequestPayload is media.request's payload: the user offers a source.
type MediaRequestPayload struct {
	Source MediaSource `json:"source"`
	Reason string      `json:"reason,omitempty"`
}

// MediaDecidePayload is media.decide's payload.
type MediaDecidePayload struct {
	RequestID string        `json:"requestId"`
	Decision  MediaDecision `json:"decision"`
	Scope     MediaScope    `json:"scope"`
}

// MediaPreparePayload is media.prepare's payload: the track about to be published.
type MediaPreparePayload struct {
	Source    MediaSource `json:"source"`
	TrackName string      `json:"trackName"`
}

// MediaSourcePayload is the payload of media.stop and media.revoke.
type MediaSourcePayload struct {
	Source MediaSource `json:"source"`
}

// Interaction is one SendInteraction: a type and its payload. Build it
// with the functions below; Decode checks one received from the wire.
type Interaction struct {
	Type    InteractionType
	Payload json.RawMessage
}

func interaction(t InteractionType, payload any) Interaction {
	b, err := json.Marshal(payload)
	if err != nil { // the payload types always encode
		panic("aim: encode interaction payload: " + err.Error())
	}
	return Interaction{Type: t, Payload: b}
}

// Text is input.text: typed text during the call.
func Text(text string) Interaction { return interaction(InputText, TextPayload{Text: text}) }

// Select is visual.select: the user points at a region of a shared frame.
func Select(source MediaSource, x, y, width, height int, note string) Interaction {
	return interaction(VisualSelect, SelectPayload{Source: source, X: x, Y: y, Width: width, Height: height, Note: note})
}

// Interrupt is response.interrupt: barge in, the agent stops speaking.
func Interrupt() Interaction { return interaction(ResponseInterrupt, InterruptPayload{}) }

// Confirm is operation.confirm for op's requirement, with its id, version
// and digest exactly as received. Verify the operation first
// (VerifyOperation): Confirm does not.
func Confirm(operationID string, r *Requirement) Interaction {
	return interaction(OperationConfirm, ConfirmPayload{
		OperationID: operationID, RequirementID: r.RequirementID,
		ExpectedVersion: r.Version, ActionDigest: r.ActionDigest,
	})
}

// Cancel is operation.cancel: reject or cancel an operation.
func Cancel(operationID, reason string) Interaction {
	return interaction(OperationCancel, CancelPayload{OperationID: operationID, Reason: reason})
}

// RequestMedia is media.request: the user offers to share a source.
func RequestMedia(source MediaSource, reason string) Interaction {
	return interaction(MediaRequestType, MediaRequestPayload{Source: source, Reason: reason})
}

// DecideMedia is media.decide: the user's answer to the agent's request.
func DecideMedia(requestID string, decision MediaDecision, scope MediaScope) Interaction {
	return interaction(MediaDecide, MediaDecidePayload{RequestID: requestID, Decision: decision, Scope: scope})
}

// PrepareMedia is media.prepare: the client is about to publish trackName.
func PrepareMedia(source MediaSource, trackName string) Interaction {
	return interaction(MediaPrepare, MediaPreparePayload{Source: source, TrackName: trackName})
}

// StopMedia is media.stop: the client stopped publishing the source.
func StopMedia(source MediaSource) Interaction {
	return interaction(MediaStop, MediaSourcePayload{Source: source})
}

// RevokeMedia is media.revoke: permission withdrawn for the rest of the session.
func RevokeMedia(source MediaSource) Interaction {
	return interaction(MediaRevoke, MediaSourcePayload{Source: source})
}

// Decode checks the interaction and returns its typed payload (one of the
// *Payload types above, as a pointer). Unknown fields, missing required
// fields and out-of-range values are ErrBadInteraction (wrapped). Both the
// client (before sending) and the reference agent use it.
func (i Interaction) Decode() (any, error) {
	var v any
	switch i.Type {
	case InputText:
		v = &TextPayload{}
	case VisualSelect:
		v = &SelectPayload{}
	case ResponseInterrupt:
		v = &InterruptPayload{}
	case OperationConfirm:
		v = &ConfirmPayload{}
	case OperationCancel:
		v = &CancelPayload{}
	case MediaRequestType:
		v = &MediaRequestPayload{}
	case MediaDecide:
		v = &MediaDecidePayload{}
	case MediaPrepare:
		v = &MediaPreparePayload{}
	case MediaStop, MediaRevoke:
		v = &MediaSourcePayload{}
	default:
		return nil, fmt.Errorf("%w: unknown type %q", ErrBadInteraction, i.Type)
	}
	dec := json.NewDecoder(bytes.NewReader(i.Payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return nil, fmt.Errorf("%w: %s payload: %w", ErrBadInteraction, i.Type, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: %s payload is followed by more JSON", ErrBadInteraction, i.Type)
	}
	if err := checkPayload(v); err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrBadInteraction, i.Type, err)
	}
	return v, nil
}

func checkSource(s MediaSource) error {
	if s != SourceCamera && s != SourceScreen {
		return fmt.Errorf("source must be %q or %q, not %q", SourceCamera, SourceScreen, s)
	}
	return nil
}

// checker is a payload that checks its own fields.
type checker interface{ check() error }

func checkPayload(v any) error {
	if c, ok := v.(checker); ok {
		return c.check()
	}
	return nil
}

func (p *TextPayload) check() error {
	if strings.TrimSpace(p.Text) == "" {
		return fmt.Errorf("text is empty")
	}
	return nil
}

func (p *SelectPayload) check() error {
	if err := checkSource(p.Source); err != nil {
		return err
	}
	if p.X < 0 || p.Y < 0 || p.Width <= 0 || p.Height <= 0 {
		return fmt.Errorf("the region %d,%d %d×%d is empty or negative", p.X, p.Y, p.Width, p.Height)
	}
	return nil
}

func (p *ConfirmPayload) check() error {
	switch {
	case p.OperationID == "" || p.RequirementID == "":
		return fmt.Errorf("operationId and requirementId are required")
	case p.ExpectedVersion < 0:
		return fmt.Errorf("expectedVersion is negative")
	case !strings.HasPrefix(p.ActionDigest, DigestPrefix) || len(p.ActionDigest) != len(DigestPrefix)+64:
		return fmt.Errorf("actionDigest must be sha256:<64 hex>")
	}
	return nil
}

func (p *CancelPayload) check() error {
	if p.OperationID == "" {
		return fmt.Errorf("operationId is required")
	}
	return nil
}

func (p *MediaRequestPayload) check() error { return checkSource(p.Source) }

func (p *MediaDecidePayload) check() error {
	switch {
	case p.RequestID == "":
		return fmt.Errorf("requestId is required")
	case p.Decision != MediaAllow && p.Decision != MediaDeny:
		return fmt.Errorf("decision must be %q or %q", MediaAllow, MediaDeny)
	case p.Scope != ScopeOnce && p.Scope != ScopeSession:
		return fmt.Errorf("scope must be %q or %q", ScopeOnce, ScopeSession)
	}
	return nil
}

func (p *MediaPreparePayload) check() error {
	if err := checkSource(p.Source); err != nil {
		return err
	}
	if p.TrackName == "" {
		return fmt.Errorf("trackName is required")
	}
	return nil
}

func (p *MediaSourcePayload) check() error { return checkSource(p.Source) }
