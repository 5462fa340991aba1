package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
	"aimdesk/app/store"
	"aimdesk/app/trust"
)

// ApprovalState is where an approval request stands.
type ApprovalState string

// Approval states.
const (
	ApprovalPending    ApprovalState = "pending"
	ApprovalSending    ApprovalState = "sending"
	ApprovalApproved   ApprovalState = "approved"
	ApprovalRejected   ApprovalState = "rejected"
	ApprovalExpired    ApprovalState = "expired"
	ApprovalFailed     ApprovalState = "failed"
	ApprovalSuperseded ApprovalState = "superseded" // the agent changed its plan; a newer request replaced it
)

// Sentinels of deciding.
var (
	// ErrPlanChanged: the agent moved the requirement on (-32010); the new
	// request is in Approvals and must be decided again.
	ErrPlanChanged = errors.New("app: the agent changed its request; review it again")
	// ErrNotApprovable: the request cannot be approved (digest mismatch,
	// ambiguous JSON, expired); rejecting is still possible.
	ErrNotApprovable = errors.New("app: this request cannot be approved")
	// ErrUnknownApproval: no such approval request.
	ErrUnknownApproval = errors.New("app: no such approval request")
)

// Approval is an agent's request to confirm an operation, as the core
// verified it. The approval dialog is built only from these: nothing an
// agent renders (A2UI, Markdown) can create one.
type Approval struct {
	ID             string // unique per requirement version
	AgentID        string
	AgentName      string // from the agent's card
	AgentHost      string // host of the agent's endpoint
	CardSignatures int    // signatures on the card
	// CardTrust is the verdict on the card's signatures (verified with a
	// key id, unsigned, invalid), checked when the request arrived; its
	// Status is "" when it could not be checked (no secret store, no card).
	CardTrust      trust.Result
	TaskID         string
	ConversationID string
	Requirement    aim.Requirement
	// DigestOK: actionDigest equals SHA-256 of the RFC 8785 form of the
	// action exactly as received, and the requirement's JSON is unambiguous.
	DigestOK bool
	// Computed is the digest the app computed ("" when it could not).
	Computed string
	// Problem says why the request cannot be approved ("" when it can).
	Problem string
	State   ApprovalState
	// Changed says what differs from the request it replaced, after the
	// agent changed its plan.
	Changed    string
	ReceivedAt time.Time
	DecidedAt  time.Time
	Outcome    string
}

// Approvable reports whether Approve may be pressed now.
func (a *Approval) Approvable(now time.Time) bool {
	return a.State == ApprovalPending && a.DigestOK && a.Problem == "" && !a.Requirement.Expired(now)
}

func approvalID(agentID, taskID string, r *aim.Requirement) string {
	return fmt.Sprintf("%s/%s/%s/%d", agentID, taskID, r.RequirementID, r.Version)
}

// raiseApproval records a confirmation requirement found in a task's status
// message. Called from the stream path for auth-required and input-required
// states.
func (c *Core) raiseApproval(agentID, convID, taskID string, msg *a2a.Message) {
	if msg == nil {
		return
	}
	var raw json.RawMessage
	for _, p := range msg.Parts {
		if p.Kind == a2a.PartData && p.MediaType == aim.RequirementMediaType {
			raw = p.Data
			break
		}
	}
	if raw == nil {
		return
	}
	r, err := aim.FindRequirement(msg)
	ap := Approval{AgentID: agentID, TaskID: taskID, ConversationID: convID, State: ApprovalPending, ReceivedAt: c.now()}
	if err != nil {
		// A malformed requirement is still shown, so the user can reject it.
		// Its id comes from its bytes, so an agent that repeats it (or
		// streams it on every event) raises it once, not once per event.
		ap.Problem = err.Error()
		sum := sha256.Sum256(raw)
		ap.Requirement = aim.Requirement{RequirementID: "malformed-" + hex.EncodeToString(sum[:12]), Kind: aim.KindConfirmation, Title: "A malformed request"}
	} else {
		if r.Kind != aim.KindConfirmation {
			return // inputs are answered in the conversation
		}
		ap.Requirement = *r
		ap.Computed, _ = aim.Digest(r.Action)
		switch {
		case aim.CheckUnambiguous(raw) != nil:
			ap.Problem = "The agent's request can be read two ways: " + aim.CheckUnambiguous(raw).Error() + ". aimdesk refuses to approve it."
		case r.VerifyDigest() != nil:
			ap.Problem = "The action does not match its digest: " + r.VerifyDigest().Error() + ". aimdesk refuses to approve it."
		default:
			ap.DigestOK = true
		}
	}
	ap.ID = approvalID(agentID, taskID, &ap.Requirement)
	c.addApproval(&ap, func(old *Approval) bool { return old.AgentID == agentID && old.TaskID == taskID })
}

// addApproval records ap (unless its id is known): it names the agent,
// supersedes the pending requests that sameThread says ap replaces, says
// what changed since the latest of them, arms the expiry timer and tells
// the UI.
func (c *Core) addApproval(ap *Approval, sameThread func(old *Approval) bool) {
	ap.CardTrust = c.cardTrust(ap.AgentID)
	c.mu.Lock()
	if a := c.agents[ap.AgentID]; a != nil {
		ap.AgentName = a.rec.Name
		if a.card != nil {
			ap.AgentName = a.card.Name
			ap.CardSignatures = len(a.card.Signatures)
		}
		if u, err := url.Parse(a.iface.URL); err == nil {
			ap.AgentHost = u.Host
		}
	}
	if _, dup := c.approvals[ap.ID]; dup {
		c.mu.Unlock()
		return
	}
	var prev *Approval
	for _, old := range c.approvals {
		if !sameThread(old) {
			continue
		}
		if old.State == ApprovalPending {
			old.State = ApprovalSuperseded
		}
		if prev == nil || old.ReceivedAt.After(prev.ReceivedAt) {
			prev = old
		}
	}
	if prev != nil && (prev.State == ApprovalSuperseded || prev.State == ApprovalSending) {
		ap.Changed = describeChange(&prev.Requirement, &ap.Requirement)
	}
	c.approvals[ap.ID] = ap
	c.pruneApprovalsLocked(ap.AgentID)
	c.mu.Unlock()
	if exp := ap.Requirement.ExpiresAt; exp != nil {
		id := ap.ID
		time.AfterFunc(max(exp.Sub(c.now()), 0), func() { c.expire(id) })
	}
	c.publishApprovals()
}

// Bounds on the approvals kept in memory: an agent that sends endless new
// requirement ids (malformed or not) must not grow the list without end.
// The audit log in the store keeps every decision; these are the live ones.
const (
	MaxApprovals           = 500 // all agents, decided ones included
	MaxPendingApprovalsPer = 20  // undecided per agent
)

// pruneApprovalsLocked drops the oldest undecided requests of agentID past
// MaxPendingApprovalsPer (superseded by the newer ones: the user decides on
// what the agent asks now), then the oldest requests no longer pending
// while the list is over MaxApprovals.
func (c *Core) pruneApprovalsLocked(agentID string) {
	var pending []*Approval
	for _, a := range c.approvals {
		if a.AgentID == agentID && a.State == ApprovalPending {
			pending = append(pending, a)
		}
	}
	if over := len(pending) - MaxPendingApprovalsPer; over > 0 {
		sort.Slice(pending, func(i, j int) bool { return pending[i].ReceivedAt.Before(pending[j].ReceivedAt) })
		for _, a := range pending[:over] {
			a.State, a.Outcome = ApprovalSuperseded, "dropped: the agent sent too many requests at once"
		}
	}
	if len(c.approvals) <= MaxApprovals {
		return
	}
	done := make([]*Approval, 0, len(c.approvals))
	for _, a := range c.approvals {
		if a.State != ApprovalPending && a.State != ApprovalSending {
			done = append(done, a)
		}
	}
	sort.Slice(done, func(i, j int) bool { return done[i].ReceivedAt.Before(done[j].ReceivedAt) })
	for _, a := range done[:min(len(done), len(c.approvals)-MaxApprovals)] {
		delete(c.approvals, a.ID)
	}
}

func (c *Core) expire(id string) {
	c.mu.Lock()
	ap := c.approvals[id]
	if ap == nil || ap.State != ApprovalPending {
		c.mu.Unlock()
		return
	}
	ap.State, ap.Outcome = ApprovalExpired, "expired before a decision"
	c.mu.Unlock()
	c.publishApprovals()
}

// describeChange says in words what the agent changed in its request.
func describeChange(old, cur *aim.Requirement) string {
	var ch []string
	if old.Version != cur.Version {
		ch = append(ch, fmt.Sprintf("version %d → %d", old.Version, cur.Version))
	}
	if old.Title != cur.Title {
		ch = append(ch, fmt.Sprintf("title %q → %q", old.Title, cur.Title))
	}
	if old.Risk != cur.Risk {
		ch = append(ch, fmt.Sprintf("risk %s → %s", old.Risk, cur.Risk))
	}
	if old.ActionDigest != cur.ActionDigest {
		ch = append(ch, "the action itself changed")
	}
	if old.Summary != cur.Summary {
		ch = append(ch, "the summary changed")
	}
	if len(ch) == 0 {
		return "The agent re-issued the same request."
	}
	return "The agent changed its request: " + strings.Join(ch, "; ") + "."
}

func (c *Core) approvalListLocked() []Approval {
	out := make([]Approval, 0, len(c.approvals))
	for _, a := range c.approvals {
		out = append(out, *a)
	}
	sort.Slice(out, func(i, j int) bool {
		pi, pj := out[i].State == ApprovalPending, out[j].State == ApprovalPending
		if pi != pj {
			return pi
		}
		return out[i].ReceivedAt.After(out[j].ReceivedAt)
	})
	return out
}

func (c *Core) publishApprovals() {
	c.mu.Lock()
	list := c.approvalListLocked()
	c.mu.Unlock()
	c.publish(Event{Approvals: list})
}

// Approvals returns every approval request of this session, pending first.
func (c *Core) Approvals() []Approval {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.approvalListLocked()
}

// Approval returns one approval request.
func (c *Core) Approval(id string) (Approval, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.approvals[id]
	if a == nil {
		return Approval{}, ErrUnknownApproval
	}
	return *a, nil
}

// PendingApprovals counts the requests waiting for a decision.
func (c *Core) PendingApprovals() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, a := range c.approvals {
		if a.State == ApprovalPending {
			n++
		}
	}
	return n
}

// Decide answers an approval request with ContinueTask carrying the
// requirement's id, version and digest exactly as received. Approving is
// refused unless the digest verified and the request has not expired. On
// -32010 the task is read again, the new request replaces this one, and
// ErrPlanChanged is returned: the app never raises the version itself.
// Every decision is written to the audit log with its outcome.
func (c *Core) Decide(ctx context.Context, id string, decision aim.Decision, comment string) error {
	if IsRealtimeApproval(id) {
		return c.DecideOperation(ctx, id, decision, comment)
	}
	return c.decide(ctx, id, decision, "", func(ap *Approval) (string, ApprovalState, error) {
		return c.sendDecision(ctx, ap, decision, comment)
	})
}

// decide checks that approval id may take decision, marks it sending,
// writes the audit entry, runs send (which talks to the agent and returns
// the outcome and the approval's new state) and records the outcome. The
// audit detail is the request's title plus suffix.
func (c *Core) decide(ctx context.Context, id string, decision aim.Decision, suffix string,
	send func(ap *Approval) (string, ApprovalState, error),
) error {
	c.mu.Lock()
	ap := c.approvals[id]
	if ap == nil {
		c.mu.Unlock()
		return ErrUnknownApproval
	}
	if ap.State != ApprovalPending {
		st := ap.State
		c.mu.Unlock()
		return fmt.Errorf("app: this request is already %s", st)
	}
	if decision == aim.DecisionApprove && !ap.Approvable(c.now()) {
		why := ap.Problem
		if why == "" && ap.Requirement.Expired(c.now()) {
			why = "it expired"
		}
		c.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrNotApprovable, why)
	}
	ap.State = ApprovalSending
	snapshot := *ap
	c.mu.Unlock()
	c.publishApprovals()

	entry := store.AuditEntry{
		Time: c.now(), AgentID: snapshot.AgentID, AgentName: snapshot.AgentName, TaskID: snapshot.TaskID,
		RequirementID: snapshot.Requirement.RequirementID, Version: snapshot.Requirement.Version,
		Digest: snapshot.Requirement.ActionDigest, Decision: string(decision), Outcome: "sending", Detail: snapshot.Requirement.Title + suffix,
	}
	if err := c.st.AppendAudit(ctx, &entry); err != nil {
		c.setApproval(id, ApprovalPending, "")
		return fmt.Errorf("app: audit log: %w", err)
	}
	outcome, state, err := send(&snapshot)
	if uerr := c.st.UpdateAuditOutcome(context.WithoutCancel(ctx), entry.ID, outcome, entry.Detail); uerr != nil {
		c.notice(NoticeError, "Could not update the audit log: %v", uerr)
	}
	c.setApproval(id, state, outcome)
	return err
}

func (c *Core) setApproval(id string, st ApprovalState, outcome string) {
	c.mu.Lock()
	if ap := c.approvals[id]; ap != nil {
		ap.State, ap.Outcome = st, outcome
		if st != ApprovalPending {
			ap.DecidedAt = c.now()
		}
	}
	c.mu.Unlock()
	c.publishApprovals()
}

// sendDecision sends ContinueTask and follows the task; it returns the
// outcome for the audit log and the approval's new state.
func (c *Core) sendDecision(ctx context.Context, ap *Approval, decision aim.Decision, comment string) (string, ApprovalState, error) {
	client, _, err := c.client(ap.AgentID)
	if err != nil {
		return "not sent: " + err.Error(), ApprovalPending, err
	}
	part, err := a2a.DataPart(aim.ConfirmationAnswer{Decision: decision, Comment: comment}, "application/json")
	if err != nil {
		return "not sent: " + err.Error(), ApprovalPending, err
	}
	contextID := c.contextIDOf(ctx, ap.ConversationID)
	req := &a2a.ContinueTaskRequest{
		ID: ap.TaskID, RequirementID: ap.Requirement.RequirementID,
		ExpectedVersion: ap.Requirement.Version, ActionDigest: ap.Requirement.ActionDigest,
		Message: a2a.Message{MessageID: uuid.NewString(), Role: a2a.RoleUser, TaskID: ap.TaskID, ContextID: contextID, Parts: []a2a.Part{part}},
	}
	resp, err := client.ContinueTask(ctx, req)
	var rpc *a2a.RPCError
	switch {
	case errors.As(err, &rpc) && rpc.Code == a2a.CodeVersionMismatch:
		c.reprompt(ctx, ap, rpc)
		return "refused by the agent: its request changed (-32010)", ApprovalSuperseded, ErrPlanChanged
	case err != nil:
		var lim *a2a.LimitError
		if errors.As(err, &lim) && decision == aim.DecisionReject {
			// The agent's request breaks the schema (e.g. a malformed
			// digest), so no answer can be sent: reject locally.
			return "rejected here; not sent: " + lim.Reason, ApprovalRejected, nil
		}
		return "failed: " + userError(err), ApprovalPending, err
	}
	outcome := "sent"
	if resp.Task != nil {
		outcome = "task " + resp.Task.Status.State.Label()
		c.followAnswered(ctx, ap, resp.Task)
	}
	if decision == aim.DecisionApprove {
		return outcome, ApprovalApproved, nil
	}
	return outcome, ApprovalRejected, nil
}

// contextIDOf is the A2A context of a conversation, "" if there is none.
func (c *Core) contextIDOf(ctx context.Context, conversationID string) string {
	if conversationID == "" {
		return ""
	}
	cs, err := c.conv(ctx, conversationID)
	if err != nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return cs.rec.ContextID
}

// followAnswered takes the task an answered approval returned: in its
// conversation, applied and followed in the background until it ends or
// waits again; without one, recorded.
func (c *Core) followAnswered(ctx context.Context, ap *Approval, task *a2a.Task) {
	if ap.ConversationID == "" {
		c.recordTask(ctx, ap.AgentID, *task, "")
		return
	}
	rp := c.newReply(ap.AgentID, ap.ConversationID)
	c.goBackground(func(bg context.Context) {
		err := c.apply(bg, ap.AgentID, rp, &a2a.StreamResponse{Task: task})
		if err == nil && !task.Status.State.Terminal() && !task.Status.State.Interrupted() {
			err = c.resume(bg, ap.AgentID, rp)
		}
		c.finishReply(bg, ap.AgentID, rp, err)
	})
}

// reprompt reads the task the agent returned with -32010 (or from GetTask)
// and raises its current requirement, replacing ap.
func (c *Core) reprompt(ctx context.Context, ap *Approval, rpc *a2a.RPCError) {
	var t *a2a.Task
	for _, d := range rpc.DataObjects() {
		var cand a2a.Task
		if json.Unmarshal(d, &cand) == nil && cand.ID != "" {
			t = &cand
			break
		}
		var wrapped struct {
			Task *a2a.Task `json:"task"`
		}
		if json.Unmarshal(d, &wrapped) == nil && wrapped.Task != nil {
			t = wrapped.Task
			break
		}
	}
	if t == nil {
		var err error
		if t, err = c.GetTask(ctx, ap.AgentID, ap.TaskID); err != nil {
			c.notice(NoticeError, "The agent changed its request, and reading it again failed: %s", userError(err))
			return
		}
	}
	c.setApproval(ap.ID, ApprovalSuperseded, "the agent changed its request")
	if t.Status.State.Interrupted() {
		c.raiseApproval(ap.AgentID, ap.ConversationID, ap.TaskID, t.Status.Message)
	} else {
		c.notice(NoticeInfo, "The task is %s now; nothing to approve.", t.Status.State.Label())
	}
}

// Audit searches the audit log, newest first.
func (c *Core) Audit(ctx context.Context, query string, limit int) ([]store.AuditEntry, error) {
	return c.st.Audit(ctx, query, limit)
}

// ExportAudit writes every audit entry as a JSON array.
func (c *Core) ExportAudit(ctx context.Context, w io.Writer) error {
	entries, err := c.st.Audit(ctx, "", 0)
	if err != nil {
		return fmt.Errorf("app: audit export: %w", err)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if entries == nil {
		entries = []store.AuditEntry{}
	}
	return enc.Encode(entries)
}

// cardTrustTimeout bounds fetching a card's key set for an approval.
const cardTrustTimeout = 3 * time.Second

// cardTrust is the trust verdict of the agent's card: the one already
// known (from the agent view), else checked now within cardTrustTimeout.
func (c *Core) cardTrust(agentID string) trust.Result {
	s, err := c.signin()
	if err != nil {
		return trust.Result{}
	}
	s.mu.Lock()
	res, ok := s.trust[agentID]
	s.mu.Unlock()
	if ok {
		return res
	}
	ctx, cancel := context.WithTimeout(context.Background(), cardTrustTimeout)
	defer cancel()
	res, err = c.CheckAgentTrust(ctx, agentID)
	if err != nil {
		return trust.Result{}
	}
	return res
}
