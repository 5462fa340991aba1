package devagent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
)

// This file holds the task operations both interfaces share; v1.go and
// v03.go only decode params and encode results.

// started is a new task whose skill has not begun yet (so a stream can
// subscribe first), or a direct reply.
type started struct {
	e     *entry
	reply *a2a.Message
	go_   func()
}

// start routes a new message: skills that answer with a Message reply at
// once; the others get a task in TASK_STATE_SUBMITTED, started by go_.
func (h *Handler) start(m *a2a.Message) (*started, error) {
	if h.ctx.Err() != nil {
		return nil, ErrClosed
	}
	sk, arg := route(m)
	if sk.reply != nil {
		return &started{reply: sk.reply(h, m, arg)}, nil
	}
	taskID := uuid.NewString()
	contextID := m.ContextID
	if contextID == "" {
		contextID = uuid.NewString()
	}
	stored := *m
	stored.TaskID, stored.ContextID = taskID, contextID
	ctx, cancel := context.WithCancel(h.ctx)
	e, err := h.store.create(taskID, contextID, &stored, cancel)
	if err != nil {
		cancel()
		return nil, err
	}
	r := &run{h: h, e: e, ctx: ctx, taskID: taskID, contextID: contextID}
	return &started{e: e, go_: func() { go h.runSkill(r, sk, &stored, arg) }}, nil
}

// acceptPlain answers a task's pending requirement with a plain message
// (no ContinueTask). Over A2A 1.0 only an input requirement may be
// answered so: an approval needs ContinueTask's digest and version checks.
func (h *Handler) acceptPlain(e *entry, m *a2a.Message, v03 bool) error {
	if !v03 {
		e.mu.Lock()
		confirm := e.pending != nil && e.pending.Kind == aim.KindConfirmation
		e.mu.Unlock()
		if confirm {
			return rpcErrorf(a2a.CodeUnsupportedOperation,
				"task %s waits for an approval, which only ContinueTask (JSON-RPC, AIM) can answer", e.task.ID)
		}
	}
	return h.accept(e, m, nil)
}

// continueCheck is what ContinueTask asserts about the pending requirement.
type continueCheck struct {
	requirementID string
	version       int64
	digest        string
}

// accept hands an answer to the task's waiting skill. chk is nil for v0.3
// clients, which answer with a plain message and cannot name the version or
// digest: they may answer input requirements but not confirmations. On
// success the task is back in TASK_STATE_WORKING.
func (h *Handler) accept(e *entry, m *a2a.Message, chk *continueCheck) error {
	if hook := h.cfg.Hooks.BeforeContinue; hook != nil {
		// No pending requirement is not an error here: the checks below
		// answer it.
		_ = h.ChangePlan(e.task.ID, hook)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	t := &e.task
	if m.ContextID != "" && m.ContextID != t.ContextID {
		return rpcErrorf(a2a.CodeInvalidParams, "message.contextId %q is not the task's contextId %q", m.ContextID, t.ContextID)
	}
	req := e.pending
	now := time.Now()
	if err := e.checkAnswerableLocked(req, chk, now); err != nil {
		return err
	}
	ans, err := parseAnswer(req, m)
	if err != nil {
		return err
	}
	stored := *m
	stored.TaskID, stored.ContextID = t.ID, t.ContextID
	e.appendHistoryLocked(stored)
	ts := now.UTC()
	st := a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &ts}
	e.applyStatusLocked(st)
	e.pending = nil
	e.fanoutLocked(&a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: t.ID, ContextID: t.ContextID, Status: st}})
	select {
	case e.answers <- ans:
	default: // cannot happen: pending is cleared before a second answer
	}
	return nil
}

// checkAnswerableLocked checks that req, the task's pending requirement,
// can take an answer now: pending, not expired, and for ContinueTask (chk
// not nil) the requirement, version and action digest the client names.
func (e *entry) checkAnswerableLocked(req *aim.Requirement, chk *continueCheck, now time.Time) error {
	t := &e.task
	switch {
	case req == nil || !t.Status.State.Interrupted():
		if chk == nil {
			return fmt.Errorf("%w: task %s is %s", ErrNoPendingRequirement, t.ID, t.Status.State.Label())
		}
		return e.mismatchLocked("requirement %s is not pending: the task is %s", chk.requirementID, t.Status.State.Label())
	case chk == nil && req.Kind == aim.KindConfirmation:
		// A v0.3 message cannot name the requirement, its version or the
		// action's digest, so it could approve an action the user never
		// saw (the plan may have changed since): confirmations are
		// answered with ContinueTask only.
		return rpcErrorf(a2a.CodeUnsupportedOperation,
			"requirement %s is a confirmation: answer it with ContinueTask over A2A 1.0, which checks the action's version and digest; a v0.3 message cannot", req.RequirementID)
	case chk != nil && req.RequirementID != chk.requirementID:
		return e.mismatchLocked("requirement %s is not pending: the task waits for requirement %s", chk.requirementID, req.RequirementID)
	case req.Expired(now):
		if chk == nil {
			return rpcErrorf(a2a.CodeVersionMismatch, "the requirement expired at %s", req.ExpiresAt.Format(time.RFC3339))
		}
		return e.mismatchLocked("requirement %s expired at %s", req.RequirementID, req.ExpiresAt.Format(time.RFC3339))
	case chk != nil && req.Version != chk.version:
		return e.mismatchLocked("the plan changed: requirement %s is at version %d, you expected version %d; read the task and ask the user again",
			req.RequirementID, req.Version, chk.version)
	case chk != nil && req.ActionDigest != chk.digest:
		return rpcError(a2a.CodeInvalidParams, fmt.Sprintf("actionDigest %s is not the digest of the pending action (%s)", chk.digest, req.ActionDigest),
			map[string]string{"expected": req.ActionDigest, "got": chk.digest})
	}
	return nil
}

// mismatchLocked is the -32010 error with the current task in error.data.
func (e *entry) mismatchLocked(format string, args ...any) error {
	raw, err := e.encodeLocked(view{})
	if err != nil {
		return err
	}
	return rpcError(a2a.CodeVersionMismatch, fmt.Sprintf(format, args...), raw)
}

// parseAnswer reads the answer to req from m's parts.
func parseAnswer(req *aim.Requirement, m *a2a.Message) (answer, error) {
	ans := answer{requirement: *req, text: messageText(m)}
	for _, p := range m.Parts {
		if p.Kind == a2a.PartData {
			ans.data = p.Data
			break
		}
	}
	if req.Kind != aim.KindConfirmation {
		if ans.text == "" && len(ans.data) == 0 {
			return ans, rpcErrorf(a2a.CodeInvalidParams, "the answer has neither text nor data")
		}
		return ans, nil
	}
	var c aim.ConfirmationAnswer
	if len(ans.data) > 0 && json.Unmarshal(ans.data, &c) == nil {
		ans.decision = c.Decision
	} else {
		switch strings.ToLower(strings.Trim(ans.text, " .!")) {
		case "approve", "approved", "yes", "ok":
			ans.decision = aim.DecisionApprove
		case "reject", "rejected", "no":
			ans.decision = aim.DecisionReject
		}
	}
	if ans.decision != aim.DecisionApprove && ans.decision != aim.DecisionReject {
		return ans, rpcErrorf(a2a.CodeInvalidParams, `answer a confirmation with a data part {"decision": "approve"} or {"decision": "reject"}`)
	}
	return ans, nil
}

// ChangePlan lets edit change a task's pending requirement ("the plan
// changed"), for example by bumping its Version or replacing its Action.
// When edit changed anything, the agent publishes the new requirement in a
// status update; a ContinueTask for the old version then gets -32010.
// Tests call it directly or through Hooks.BeforeContinue.
func (h *Handler) ChangePlan(taskID string, edit func(taskID string, r *aim.Requirement)) error {
	e, err := h.store.get(taskID)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pending == nil {
		return fmt.Errorf("%w: task %s", ErrNoPendingRequirement, taskID)
	}
	old := *e.pending
	next := old
	edit(taskID, &next)
	if next.Version == old.Version && string(next.Action) == string(old.Action) && next.ActionDigest == old.ActionDigest &&
		timeEqual(next.ExpiresAt, old.ExpiresAt) {
		return nil
	}
	part, err := next.Part()
	if err != nil {
		return err
	}
	t := &e.task
	ts := time.Now().UTC()
	st := a2a.TaskStatus{
		State: t.Status.State, Timestamp: &ts,
		Message: agentMessage(t.ID, t.ContextID, a2a.TextPart("The plan changed: please review it again."), part),
	}
	e.applyStatusLocked(st)
	e.pending = &next
	e.fanoutLocked(&a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: t.ID, ContextID: t.ContextID, Status: st}})
	return nil
}

// cancelTask moves a task to TASK_STATE_CANCELED and stops its skill.
func (h *Handler) cancelTask(e *entry) error {
	e.mu.Lock()
	t := &e.task
	if t.Status.State.Terminal() {
		err := rpcErrorf(a2a.CodeTaskNotCancelable, "task %s is already %s and cannot be canceled", t.ID, t.Status.State.Label())
		e.mu.Unlock()
		return err
	}
	ts := time.Now().UTC()
	st := a2a.TaskStatus{
		State: a2a.TaskStateCanceled, Timestamp: &ts,
		Message: agentMessage(t.ID, t.ContextID, a2a.TextPart("Canceled at your request.")),
	}
	e.applyStatusLocked(st)
	e.pending = nil
	e.fanoutLocked(&a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: t.ID, ContextID: t.ContextID, Status: st}})
	e.mu.Unlock()
	e.cancel()
	return nil
}

// maxPushConfigs bounds the push notification configs kept per task.
const maxPushConfigs = 10

// errNoPush answers every push notification config method while the card
// says pushNotifications: false.
func errNoPush() error {
	return rpcErrorf(a2a.CodePushNotificationNotSupported, "this agent does not support push notifications (its card says pushNotifications: false)")
}

// setPush stores a push notification config (never delivered).
func (h *Handler) setPush(c a2a.TaskPushNotificationConfig) (a2a.TaskPushNotificationConfig, error) {
	if !h.cfg.PushConfigs {
		return c, errNoPush()
	}
	if c.TaskID == "" || c.URL == "" {
		return c, rpcErrorf(a2a.CodeInvalidParams, "a push notification config needs taskId and url")
	}
	e, err := h.store.get(c.TaskID)
	if err != nil {
		return c, err
	}
	if c.ID == "" {
		c.ID = uuid.NewString()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range e.push {
		if e.push[i].ID == c.ID {
			e.push[i] = c
			return c, nil
		}
	}
	if len(e.push) >= maxPushConfigs {
		return c, rpcErrorf(a2a.CodeInvalidParams, "a task keeps at most %d push notification configs", maxPushConfigs)
	}
	e.push = append(e.push, c)
	return c, nil
}

// pushConfigs returns a task's configs, or the one with id when id != "".
func (h *Handler) pushConfigs(taskID, id string) ([]a2a.TaskPushNotificationConfig, error) {
	if !h.cfg.PushConfigs {
		return nil, errNoPush()
	}
	e, err := h.store.get(taskID)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if id == "" {
		return append([]a2a.TaskPushNotificationConfig{}, e.push...), nil
	}
	for _, c := range e.push {
		if c.ID == id {
			return []a2a.TaskPushNotificationConfig{c}, nil
		}
	}
	return nil, rpcErrorf(a2a.CodeInvalidParams, "task %s has no push notification config %q", taskID, id)
}

func (h *Handler) deletePush(taskID, id string) error {
	if !h.cfg.PushConfigs {
		return errNoPush()
	}
	e, err := h.store.get(taskID)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, c := range e.push {
		if c.ID == id {
			e.push = append(e.push[:i], e.push[i+1:]...)
			return nil
		}
	}
	return rpcErrorf(a2a.CodeInvalidParams, "task %s has no push notification config %q", taskID, id)
}

func timeEqual(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}
