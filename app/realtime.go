package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
)

// This file connects realtime sessions (app/aim, docs/aim-extension.md §2)
// to the core: the install's endpoint key, a realtime client per agent, and
// the approval of realtime operations through the same Approval records,
// checks and audit log as ContinueTask requirements (approvals.go).

// keyRealtimeEndpoint is the settings key of the install's clientEndpointKey.
const keyRealtimeEndpoint = "realtime_endpoint_key"

// realtimeApprovalPrefix starts the Approval.ID of a realtime operation:
// "realtime/<sessionId>/<operationId>/<requirementId>/<version>".
const realtimeApprovalPrefix = "realtime/"

// ErrNotRealtimeApproval: the approval is not about a realtime operation.
var ErrNotRealtimeApproval = errors.New("app: this approval is not about a realtime operation")

// RealtimeEndpointKey returns this install's clientEndpointKey: a random
// UUID made on first use and kept in the settings table, so that
// registering again after a restart returns the same endpoint. It is not
// derived from the machine or the user, and Clear (a new install) forgets it.
func (c *Core) RealtimeEndpointKey(ctx context.Context) (string, error) {
	v, ok, err := c.st.Setting(ctx, keyRealtimeEndpoint)
	if err != nil {
		return "", fmt.Errorf("app: endpoint key: %w", err)
	}
	if ok && v != "" {
		return v, nil
	}
	v = uuid.NewString()
	if err := c.st.PutSetting(ctx, keyRealtimeEndpoint, v); err != nil {
		return "", fmt.Errorf("app: endpoint key: %w", err)
	}
	return v, nil
}

// RealtimeClient returns a realtime client for an agent whose card declares
// the realtime extension with the livekit-webrtc-v1 binding, or
// aim.ErrNotRealtime.
func (c *Core) RealtimeClient(agentID string) (*aim.RealtimeClient, error) {
	client, a, err := c.client(agentID)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	card := a.card
	c.mu.Unlock()
	if !aim.SupportsRealtime(card) || client.Interface.ProtocolVersion == a2a.Version03 {
		return nil, aim.ErrNotRealtime
	}
	return &aim.RealtimeClient{A2A: client, TranscriptHistory: aim.KeepsTranscripts(card)}, nil
}

func realtimeApprovalID(sessionID, operationID string, r *aim.Requirement) string {
	return fmt.Sprintf("%s%s/%s/%s/%d", realtimeApprovalPrefix, sessionID, operationID, r.RequirementID, r.Version)
}

// parseRealtimeApprovalID returns the session and operation ids of a
// realtime approval id.
func parseRealtimeApprovalID(id string) (sessionID, operationID string, ok bool) {
	rest, found := strings.CutPrefix(id, realtimeApprovalPrefix)
	if !found {
		return "", "", false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 4 {
		return "", "", false
	}
	if _, err := strconv.ParseInt(parts[3], 10, 64); err != nil {
		return "", "", false
	}
	return parts[0], parts[1], true
}

// IsRealtimeApproval reports whether an approval is about a realtime
// operation (Decide must route it to DecideOperation).
func IsRealtimeApproval(id string) bool {
	_, _, ok := parseRealtimeApprovalID(id)
	return ok
}

// ObserveRealtime lets the core see a realtime session's events (call it
// for every event of aim.RealtimeSession.Events, from the loop that reads
// them). An operation awaiting confirmation raises an Approval, verified
// like any other (the digest over the exact bytes, unambiguous JSON); a
// changed requirement supersedes the pending approval; an operation that
// ended elsewhere closes it.
func (c *Core) ObserveRealtime(agentID, convID string, s *aim.RealtimeSession, ev aim.Event) {
	if ev.Name != aim.EventOperationUpdated || ev.Operation == nil {
		return
	}
	op := ev.Operation
	if op.State == aim.OperationAwaitingConfirmation {
		c.RaiseOperationApproval(agentID, convID, s.ID(), s.TaskID(), op)
		return
	}
	if op.State.Final() {
		c.closeOperationApprovals(agentID, s.ID(), op)
	}
}

// operationApproval builds the Approval of an operation from its
// verification (approvals.go's checks, over the exact bytes received).
func operationApproval(sessionID string, op *aim.Operation) Approval {
	var ap Approval
	chk := aim.VerifyOperation(op)
	if chk.Requirement != nil {
		ap.Requirement, ap.Computed = *chk.Requirement, chk.Computed
	} else {
		ap.Requirement = aim.Requirement{RequirementID: "malformed-" + uuid.NewString(), Kind: aim.KindConfirmation, Title: "A malformed request"}
	}
	switch {
	case uuid.Validate(sessionID) != nil || uuid.Validate(op.OperationID) != nil:
		ap.Problem = "The agent's session or operation id is not a UUID; aimdesk refuses to approve it."
	case chk.Requirement == nil:
		ap.Problem = chk.Err.Error()
	case errors.Is(chk.Err, aim.ErrAmbiguousJSON):
		ap.Problem = "The agent's request can be read two ways: " + chk.Err.Error() + ". aimdesk refuses to approve it."
	case chk.Err != nil:
		ap.Problem = "The action does not match its digest: " + chk.Err.Error() + ". aimdesk refuses to approve it."
	default:
		ap.DigestOK = true
	}
	ap.ID = realtimeApprovalID(sessionID, op.OperationID, &ap.Requirement)
	return ap
}

// RaiseOperationApproval records an Approval for an operation awaiting
// confirmation. The id is unique per requirement version; raising the same
// version again does nothing, and a new version supersedes the pending one.
func (c *Core) RaiseOperationApproval(agentID, convID, sessionID, taskID string, op *aim.Operation) {
	ap := operationApproval(sessionID, op)
	ap.AgentID, ap.TaskID, ap.ConversationID, ap.State, ap.ReceivedAt = agentID, taskID, convID, ApprovalPending, c.now()
	prefix := realtimeApprovalPrefix + sessionID + "/" + op.OperationID + "/"
	c.addApproval(&ap, func(old *Approval) bool { return old.AgentID == agentID && strings.HasPrefix(old.ID, prefix) })
}

// closeOperationApprovals closes the pending approvals of an operation
// that ended without this app's decision (expired, canceled elsewhere).
func (c *Core) closeOperationApprovals(agentID, sessionID string, op *aim.Operation) {
	prefix := realtimeApprovalPrefix + sessionID + "/" + op.OperationID + "/"
	changed := false
	c.mu.Lock()
	for _, ap := range c.approvals {
		if ap.AgentID == agentID && strings.HasPrefix(ap.ID, prefix) && ap.State == ApprovalPending {
			ap.State, ap.Outcome, ap.DecidedAt = ApprovalExpired, "the operation is "+string(op.State), c.now()
			if op.State != aim.OperationExpired {
				ap.State = ApprovalFailed
			}
			changed = true
		}
	}
	c.mu.Unlock()
	if changed {
		c.publishApprovals()
	}
}

// DecideOperation answers a realtime operation's approval: approve sends
// operation.confirm with the requirement's id, version and digest exactly
// as received, reject sends operation.cancel, each under a new commandId;
// then the operation is followed with GetOperation to its end. The rules
// are Decide's: approving needs a verified, unexpired request; every
// decision is audited; on -32010 the current operation is raised again and
// ErrPlanChanged is returned.
func (c *Core) DecideOperation(ctx context.Context, id string, decision aim.Decision, comment string) error {
	sessionID, operationID, ok := parseRealtimeApprovalID(id)
	if !ok {
		return ErrNotRealtimeApproval
	}
	return c.decide(ctx, id, decision, " (realtime operation "+operationID+")", func(ap *Approval) (string, ApprovalState, error) {
		return c.sendOperationDecision(ctx, ap, sessionID, operationID, decision, comment)
	})
}

// sendOperationDecision confirms or cancels the operation and follows it.
func (c *Core) sendOperationDecision(ctx context.Context, ap *Approval, sessionID, operationID string,
	decision aim.Decision, comment string,
) (string, ApprovalState, error) {
	rc, err := c.RealtimeClient(ap.AgentID)
	if err != nil {
		return "not sent: " + err.Error(), ApprovalPending, err
	}
	s, err := rc.Attach(ctx, sessionID)
	if err != nil {
		return "not sent: " + userError(err), ApprovalPending, err
	}
	in := aim.Cancel(operationID, comment)
	if decision == aim.DecisionApprove {
		in = aim.Confirm(operationID, &ap.Requirement)
	}
	cmd, err := s.Send(ctx, in)
	switch {
	case err != nil && cmd != nil && cmd.Error != nil && cmd.Error.Code == a2a.CodeVersionMismatch:
		// The operation moved on (new version, expired, already decided).
		if c.repromptOperation(ctx, ap, s, operationID) {
			return "refused by the agent: its request changed (-32010)", ApprovalSuperseded, ErrPlanChanged
		}
		return "refused by the agent: " + cmd.Error.UserMessage(), ApprovalFailed, cmd.Err()
	case err != nil:
		// Includes a session epoch that kept moving: nothing was decided.
		return "failed: " + userError(err), ApprovalPending, err
	}
	if decision == aim.DecisionReject {
		return "operation canceled", ApprovalRejected, nil
	}
	op, err := s.FollowOperation(ctx, operationID)
	switch {
	case err != nil:
		return "confirmed; following the operation failed: " + userError(err), ApprovalApproved, nil
	case op.State == aim.OperationSucceeded:
		return "operation succeeded", ApprovalApproved, nil
	case op.Error != nil:
		return "operation " + string(op.State) + ": " + op.Error.UserMessage(), ApprovalApproved, nil
	}
	return "operation " + string(op.State), ApprovalApproved, nil
}

// repromptOperation reads the operation again after -32010 and, when it
// waits for a new requirement, raises it in place of ap. It reports whether
// a new approval replaced ap.
func (c *Core) repromptOperation(ctx context.Context, ap *Approval, s *aim.RealtimeSession, operationID string) bool {
	op, err := s.Operation(ctx, operationID)
	if err != nil {
		c.notice(NoticeError, "The agent changed its request, and reading it again failed: %s", userError(err))
		return false
	}
	if op.State != aim.OperationAwaitingConfirmation {
		c.notice(NoticeInfo, "The operation is %s now; nothing to approve.", op.State)
		return false
	}
	if chk := aim.VerifyOperation(op); chk.Requirement != nil && realtimeApprovalID(s.ID(), operationID, chk.Requirement) == ap.ID {
		return false // the same request: nothing to re-ask
	}
	c.setApproval(ap.ID, ApprovalSuperseded, "the agent changed its request")
	c.RaiseOperationApproval(ap.AgentID, ap.ConversationID, s.ID(), s.TaskID(), op)
	return true
}
