package devagent

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
)

// operationWords start an input.text that makes the agent propose an
// operation needing the user's confirmation.
var operationWords = []string{"confirm", "delete", "approve", "note", "save", "operation"}

// interact applies one SendInteraction (its payload already checked).
func (s *rtSession) interact(in aim.Interaction) (*aim.InteractionResult, error) {
	payload, err := in.Decode()
	if err != nil {
		return nil, rpcErrorf(a2a.CodeInvalidParams, "%v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return nil, s.errEndedLocked()
	}
	if k := in.Type.Kind(); k != "" && !s.sess.Granted.HasInteraction(k) {
		return nil, rpcErrorf(a2a.CodeUnsupportedOperation, "the session did not grant %s interactions, which %s needs", k, in.Type)
	}
	epoch := s.sess.SessionEpoch
	switch p := payload.(type) {
	case *aim.TextPayload:
		s.eventLocked(aim.WireEvent{Event: aim.EventTranscript, Role: aim.RoleUser, Text: p.Text, Final: true})
		word, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(p.Text)), " ")
		if slices.Contains(operationWords, strings.Trim(word, ".,!?")) {
			op, err := s.proposeLocked(p.Text)
			if err != nil {
				return nil, err
			}
			s.tell(brainMsg{kind: msgSay, epoch: epoch, text: "I would like to save a note of this call. Please review and confirm it."})
			return &aim.InteractionResult{OperationID: op.OperationID}, nil
		}
		s.tell(brainMsg{kind: msgText, epoch: epoch, text: p.Text})
	case *aim.SelectPayload:
		if !s.sess.Granted.HasSource(p.Source) {
			return nil, rpcErrorf(a2a.CodeUnsupportedOperation, "the session did not grant the %s", describe(p.Source))
		}
		text := fmt.Sprintf("You pointed at a %d×%d region at (%d, %d) of your %s.", p.Width, p.Height, p.X, p.Y, describe(p.Source))
		if p.Note != "" {
			text += " You wrote: " + p.Note
		}
		s.tell(brainMsg{kind: msgSay, epoch: epoch, text: text})
	case *aim.InterruptPayload:
		s.tell(brainMsg{kind: msgInterrupt, epoch: epoch})
	case *aim.ConfirmPayload:
		return s.confirmLocked(p)
	case *aim.CancelPayload:
		return s.cancelOpLocked(p)
	default:
		return s.mediaLocked(in.Type, payload)
	}
	return &aim.InteractionResult{}, nil
}

// mediaLocked applies the media.* interactions.
func (s *rtSession) mediaLocked(t aim.InteractionType, payload any) (*aim.InteractionResult, error) {
	switch p := payload.(type) {
	case *aim.MediaRequestPayload:
		return s.offerLocked(p)
	case *aim.MediaDecidePayload:
		return s.decideLocked(p)
	case *aim.MediaPreparePayload:
		if err := s.mayShareLocked(p.Source); err != nil {
			return nil, err
		}
		s.prepared[p.Source] = p.TrackName
		if s.room != nil {
			s.room.Ignore(p.Source, false)
		}
	case *aim.MediaSourcePayload:
		if !s.sess.Granted.HasSource(p.Source) {
			return nil, rpcErrorf(a2a.CodeUnsupportedOperation, "the session did not grant the %s", describe(p.Source))
		}
		text := fmt.Sprintf("You stopped sharing your %s.", describe(p.Source))
		if t == aim.MediaRevoke {
			s.revokeLocked(p.Source)
			text = fmt.Sprintf("Understood: I will not look at your %s again in this session.", describe(p.Source))
		} else {
			delete(s.prepared, p.Source)
		}
		s.tell(brainMsg{kind: msgSay, epoch: s.sess.SessionEpoch, text: text})
	}
	return &aim.InteractionResult{}, nil
}

// mayShareLocked checks that the user may publish src: granted, not
// revoked, and allowed by a media request.
func (s *rtSession) mayShareLocked(src aim.MediaSource) error {
	switch {
	case !s.sess.Granted.HasSource(src):
		return rpcErrorf(a2a.CodeUnsupportedOperation, "the session did not grant the %s", describe(src))
	case s.revoked[src]:
		return rpcErrorf(a2a.CodeUnsupportedOperation, "you revoked the %s for the rest of this session", describe(src))
	}
	for _, r := range s.sess.MediaRequests {
		if r.Source == src && r.State == aim.MediaAllowed {
			return nil
		}
	}
	return rpcErrorf(a2a.CodeUnsupportedOperation, "sharing the %s was not allowed: answer the agent's request (media.decide) or offer it (media.request) first", describe(src))
}

// offerLocked handles media.request: the user offers a source, which is
// allowed for the session at once.
func (s *rtSession) offerLocked(p *aim.MediaRequestPayload) (*aim.InteractionResult, error) {
	if !s.sess.Granted.HasSource(p.Source) {
		return nil, rpcErrorf(a2a.CodeUnsupportedOperation, "the session did not grant the %s", describe(p.Source))
	}
	if s.revoked[p.Source] {
		return nil, rpcErrorf(a2a.CodeUnsupportedOperation, "you revoked the %s for the rest of this session", describe(p.Source))
	}
	r := aim.MediaRequest{RequestID: uuid.NewString(), Source: p.Source, Reason: p.Reason, State: aim.MediaAllowed, Scope: aim.ScopeSession}
	s.sess.MediaRequests = append(s.sess.MediaRequests, r)
	s.sessionUpdatedLocked()
	s.tell(brainMsg{kind: msgSay, epoch: s.sess.SessionEpoch, text: fmt.Sprintf("Thank you: share your %s when you are ready.", describe(p.Source))})
	return &aim.InteractionResult{RequestID: r.RequestID}, nil
}

// decideLocked handles media.decide: the user's answer to media.requested.
func (s *rtSession) decideLocked(p *aim.MediaDecidePayload) (*aim.InteractionResult, error) {
	r := s.sess.MediaRequest(p.RequestID)
	switch {
	case r == nil:
		return nil, rpcErrorf(a2a.CodeInvalidParams, "session %s has no media request %s", s.sess.SessionID, p.RequestID)
	case r.State != aim.MediaPending:
		return nil, s.mismatchLocked("media request %s is %s, not pending", p.RequestID, r.State)
	}
	r.Scope = p.Scope
	text := fmt.Sprintf("OK, I will not look at your %s.", describe(r.Source))
	if p.Decision == aim.MediaAllow {
		r.State = aim.MediaAllowed
		text = fmt.Sprintf("Thank you: share your %s when you are ready.", describe(r.Source))
	} else {
		r.State = aim.MediaDenied
	}
	s.sessionUpdatedLocked()
	s.tell(brainMsg{kind: msgSay, epoch: s.sess.SessionEpoch, text: text})
	return &aim.InteractionResult{RequestID: r.RequestID}, nil
}

// revokeLocked withdraws a source for the rest of the session.
func (s *rtSession) revokeLocked(src aim.MediaSource) {
	s.revoked[src] = true
	delete(s.prepared, src)
	for i := range s.sess.MediaRequests {
		if r := &s.sess.MediaRequests[i]; r.Source == src && r.State != aim.MediaDenied {
			r.State = aim.MediaRevoked
		}
	}
	if s.room != nil {
		s.room.Ignore(src, true)
	}
	s.sessionUpdatedLocked()
}

// requestMediaLocked is the agent asking to see a source (media.requested).
// It returns "" when the source cannot be asked for (not granted, revoked,
// or already asked).
func (s *rtSession) requestMediaLocked(src aim.MediaSource, reason string) string {
	if s.ended || !s.sess.Granted.HasSource(src) || s.revoked[src] {
		return ""
	}
	for _, r := range s.sess.MediaRequests {
		if r.Source == src && (r.State == aim.MediaPending || r.State == aim.MediaAllowed) {
			return ""
		}
	}
	r := aim.MediaRequest{RequestID: uuid.NewString(), Source: src, Reason: reason, State: aim.MediaPending}
	s.sess.MediaRequests = append(s.sess.MediaRequests, r)
	s.eventLocked(aim.WireEvent{Event: aim.EventMediaRequested, Request: &r})
	return r.RequestID
}

// RequestMedia makes the agent ask the user to share a source, as it does
// by itself after the first endpoint joins. It returns the request id.
func (h *Handler) RequestMedia(sessionID string, src aim.MediaSource, reason string) (string, error) {
	s, err := h.rt.get(sessionID)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.requestMediaLocked(src, reason)
	if id == "" {
		return "", rpcErrorf(a2a.CodeUnsupportedOperation, "the agent cannot ask for the %s now (not granted, revoked or already asked)", describe(src))
	}
	return id, nil
}

// noteAction is the operation the agent proposes: saving a note.
type noteAction struct {
	Operation string `json:"operation"`
	SessionID string `json:"sessionId"`
	Title     string `json:"title"`
	Text      string `json:"text"`
	Note      string `json:"note"`
}

// proposeLocked creates an operation awaiting confirmation.
func (s *rtSession) proposeLocked(userText string) (*aim.Operation, error) {
	action := noteAction{
		Operation: "notes.create", SessionID: s.sess.SessionID, Title: "Notes of the realtime call",
		Text: userText, Note: "demo only: the note is not stored anywhere",
	}
	ttl := s.h.cfg.Hooks.RequirementTTL
	req, err := newRequirement(aim.KindConfirmation, "Save a note of this call",
		"Save a note titled **Notes of the realtime call** with the text you just said.", aim.RiskMedium, action, ttl)
	if err != nil {
		return nil, err
	}
	s.h.tamper(s.sess.TaskID, req)
	op := &aim.Operation{OperationID: uuid.NewString(), SessionID: s.sess.SessionID, State: aim.OperationAwaitingConfirmation, Requirement: req}
	s.ops[op.OperationID] = op
	s.sess.PendingOperations = append(s.sess.PendingOperations, op.OperationID)
	if req.ExpiresAt != nil {
		id := op.OperationID
		s.opTimers[id] = time.AfterFunc(time.Until(*req.ExpiresAt), func() { s.expire(id) })
	}
	s.opUpdatedLocked(op)
	return op, nil
}

// ProposeOperation makes the agent propose an operation needing approval
// (as it does for an input.text starting with "confirm", "note" or
// "save"). It returns the operation id.
func (h *Handler) ProposeOperation(sessionID, text string) (string, error) {
	s, err := h.rt.get(sessionID)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return "", s.errEndedLocked()
	}
	op, err := s.proposeLocked(text)
	if err != nil {
		return "", err
	}
	return op.OperationID, nil
}

// ChangeOperation lets edit change a pending operation's requirement ("the
// plan changed"), e.g. bump its Version; the agent publishes the change as
// operation.updated and an operation.confirm for the old version gets -32010.
func (h *Handler) ChangeOperation(sessionID, operationID string, edit func(r *aim.Requirement)) error {
	s, err := h.rt.get(sessionID)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	op := s.ops[operationID]
	if op == nil || op.State != aim.OperationAwaitingConfirmation {
		return rpcErrorf(a2a.CodeInvalidParams, "operation %s is not awaiting confirmation", operationID)
	}
	next := *op.Requirement
	edit(&next)
	op.Requirement = &next
	s.opUpdatedLocked(op)
	return nil
}

func (s *rtSession) opUpdatedLocked(op *aim.Operation) {
	c := *op
	s.eventLocked(aim.WireEvent{Event: aim.EventOperationUpdated, Operation: &c})
}

// settleOpLocked moves an operation to a final state and out of pending.
func (s *rtSession) settleOpLocked(op *aim.Operation, state aim.OperationState) {
	op.State = state
	s.sess.PendingOperations = slices.DeleteFunc(s.sess.PendingOperations, func(id string) bool { return id == op.OperationID })
	if t := s.opTimers[op.OperationID]; t != nil {
		t.Stop()
		delete(s.opTimers, op.OperationID)
	}
	s.opUpdatedLocked(op)
}

func (s *rtSession) expire(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if op := s.ops[id]; op != nil && op.State == aim.OperationAwaitingConfirmation && !s.ended {
		s.settleOpLocked(op, aim.OperationExpired)
	}
}

// opMismatchLocked is -32010 with the current operation in error.data.
func (s *rtSession) opMismatchLocked(op *aim.Operation, format string, args ...any) error {
	return rpcError(a2a.CodeVersionMismatch, fmt.Sprintf(format, args...), *op)
}

// confirmLocked applies operation.confirm with the checks of §1.
func (s *rtSession) confirmLocked(p *aim.ConfirmPayload) (*aim.InteractionResult, error) {
	op := s.ops[p.OperationID]
	if op == nil {
		return nil, rpcErrorf(a2a.CodeInvalidParams, "session %s has no operation %s", s.sess.SessionID, p.OperationID)
	}
	r := op.Requirement
	switch {
	case op.State != aim.OperationAwaitingConfirmation:
		return nil, s.opMismatchLocked(op, "operation %s is %s, not awaiting confirmation", op.OperationID, op.State)
	case r.RequirementID != p.RequirementID:
		return nil, s.opMismatchLocked(op, "operation %s waits for requirement %s, not %s", op.OperationID, r.RequirementID, p.RequirementID)
	case r.Expired(time.Now()):
		s.settleOpLocked(op, aim.OperationExpired)
		return nil, s.opMismatchLocked(op, "the requirement expired at %s", r.ExpiresAt.Format(time.RFC3339))
	case r.Version != p.ExpectedVersion:
		return nil, s.opMismatchLocked(op, "the plan changed: requirement %s is at version %d, you expected version %d; read the operation and ask the user again",
			r.RequirementID, r.Version, p.ExpectedVersion)
	case r.ActionDigest != p.ActionDigest:
		return nil, rpcError(a2a.CodeInvalidParams, fmt.Sprintf("actionDigest %s is not the digest of the pending action (%s)", p.ActionDigest, r.ActionDigest),
			map[string]string{"expected": r.ActionDigest, "got": p.ActionDigest})
	}
	op.State = aim.OperationConfirmed
	if t := s.opTimers[op.OperationID]; t != nil {
		t.Stop()
		delete(s.opTimers, op.OperationID)
	}
	s.opUpdatedLocked(op)
	s.tell(brainMsg{kind: msgRunOperation, epoch: s.sess.SessionEpoch, operationID: op.OperationID})
	return &aim.InteractionResult{OperationID: op.OperationID}, nil
}

// cancelOpLocked applies operation.cancel.
func (s *rtSession) cancelOpLocked(p *aim.CancelPayload) (*aim.InteractionResult, error) {
	op := s.ops[p.OperationID]
	if op == nil {
		return nil, rpcErrorf(a2a.CodeInvalidParams, "session %s has no operation %s", s.sess.SessionID, p.OperationID)
	}
	if op.State.Final() {
		return nil, s.opMismatchLocked(op, "operation %s is already %s", op.OperationID, op.State)
	}
	if p.Reason != "" {
		op.Error = rpcErrorf(a2a.CodeTaskNotCancelable, "canceled by the user: %s", p.Reason)
	}
	s.settleOpLocked(op, aim.OperationCanceled)
	s.tell(brainMsg{kind: msgSay, epoch: s.sess.SessionEpoch, text: "OK, I will not save the note."})
	return &aim.InteractionResult{OperationID: op.OperationID}, nil
}

// runOperation carries out a confirmed operation: running, then
// succeeded. It reports whether it succeeded.
func (s *rtSession) runOperation(id string) bool {
	s.mu.Lock()
	op := s.ops[id]
	if op == nil || op.State != aim.OperationConfirmed || s.ended {
		s.mu.Unlock()
		return false
	}
	op.State = aim.OperationRunning
	s.opUpdatedLocked(op)
	s.mu.Unlock()
	if s.h.pause(s.ctx, workPause) != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if op.State != aim.OperationRunning || s.ended {
		return false
	}
	op.Result = []byte(fmt.Sprintf(`{"noteId":%q,"saved":false,"note":"demo only: nothing was stored"}`, uuid.NewString()))
	s.settleOpLocked(op, aim.OperationSucceeded)
	return true
}
