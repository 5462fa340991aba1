package devagent

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
)

// pending sends text and returns the interrupted task with its requirement.
func pending(t *testing.T, c *a2a.Client, text string, want a2a.TaskState) (*a2a.Task, *aim.Requirement) {
	t.Helper()
	task := send(t, c, text, nil)
	if task.Status.State != want {
		t.Fatalf("state %s, want %s", task.Status.State, want)
	}
	req, err := aim.FindRequirement(task.Status.Message)
	if err != nil {
		t.Fatal(err)
	}
	return task, req
}

func answerMsg(taskID string, parts ...a2a.Part) a2a.Message {
	return a2a.Message{MessageID: uuid.NewString(), Role: a2a.RoleUser, TaskID: taskID, Parts: parts}
}

func decision(t *testing.T, d aim.Decision) a2a.Part {
	t.Helper()
	p, err := a2a.DataPart(aim.ConfirmationAnswer{Decision: d}, "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func continueReq(task *a2a.Task, req *aim.Requirement, parts ...a2a.Part) *a2a.ContinueTaskRequest {
	return &a2a.ContinueTaskRequest{
		ID: task.ID, RequirementID: req.RequirementID, ExpectedVersion: req.Version,
		ActionDigest: req.ActionDigest, Message: answerMsg(task.ID, parts...),
	}
}

func TestInputRequired(t *testing.T) {
	a := newAgent(t, fast())
	t.Run("ContinueTask", func(t *testing.T) {
		task, req := pending(t, a.v1, "ask", a2a.TaskStateInputRequired)
		if req.Kind != aim.KindInput || req.Version != 1 || len(req.InputSchema) == 0 {
			t.Errorf("requirement %+v", req)
		}
		if err := req.VerifyDigest(); err != nil {
			t.Error(err)
		}
		resp, err := a.v1.ContinueTask(ctxT(t), continueReq(task, req, a2a.TextPart("Ada")))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Task.Status.State != a2a.TaskStateCompleted || !strings.Contains(messageText(resp.Task.Status.Message), "Ada") {
			t.Errorf("task %s: %q", resp.Task.Status.State, messageText(resp.Task.Status.Message))
		}
	})
	t.Run("data answer", func(t *testing.T) {
		task, req := pending(t, a.v1, "ask", a2a.TaskStateInputRequired)
		p, _ := a2a.DataPart(map[string]string{"name": "Grace"}, "")
		resp, err := a.v1.ContinueTask(ctxT(t), continueReq(task, req, p))
		if err != nil || !strings.Contains(messageText(resp.Task.Status.Message), "Grace") {
			t.Errorf("resp %+v, %v", resp, err)
		}
	})
	t.Run("v0.3 plain message with taskId", func(t *testing.T) {
		task := send(t, a.v03, "ask", nil)
		if task.Status.State != a2a.TaskStateInputRequired {
			t.Fatalf("state %s", task.Status.State)
		}
		m := answerMsg(task.ID, a2a.TextPart("Linus"))
		resp, err := a.v03.SendMessage(ctxT(t), &a2a.SendMessageRequest{Message: m})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Task == nil || resp.Task.Status.State != a2a.TaskStateCompleted || !strings.Contains(messageText(resp.Task.Status.Message), "Linus") {
			t.Errorf("resp %+v", resp.Task)
		}
		_, err = a.v03.SendMessage(ctxT(t), &a2a.SendMessageRequest{Message: answerMsg(task.ID, a2a.TextPart("again"))})
		wantCode(t, err, a2a.CodeUnsupportedOperation)
	})
	t.Run("v0.3 streamed answer", func(t *testing.T) {
		task := send(t, a.v03, "ask", nil)
		evs := collect(t, a.v03.SendStreamingMessage(ctxT(t), &a2a.SendMessageRequest{Message: answerMsg(task.ID, a2a.TextPart("Ken"))}))
		last := evs[len(evs)-1].StatusUpdate
		if evs[0].Task == nil || last == nil || last.Status.State != a2a.TaskStateCompleted || !last.Final {
			t.Errorf("first %s, last %+v", evs[0].Kind(), last)
		}
	})
}

// TestV03CannotApprove: a v0.3 message cannot name the requirement's
// version or the action's digest, so it may not answer a confirmation
// (approve or reject, plain or streamed); the task keeps waiting and
// ContinueTask still works.
func TestV03CannotApprove(t *testing.T) {
	a := newAgent(t, fast())
	task := send(t, a.v03, "confirm", nil)
	if !task.Status.State.Interrupted() {
		t.Fatalf("state %s", task.Status.State)
	}
	for _, text := range []string{"approve", "reject"} {
		_, err := a.v03.SendMessage(ctxT(t), &a2a.SendMessageRequest{Message: answerMsg(task.ID, a2a.TextPart(text))})
		if rpc := wantCode(t, err, a2a.CodeUnsupportedOperation); !strings.Contains(rpc.Message, "ContinueTask") {
			t.Errorf("message %q does not say how to answer", rpc.Message)
		}
	}
	p, _ := a2a.DataPart(map[string]string{"decision": "approve"}, "")
	for ev, err := range a.v03.SendStreamingMessage(ctxT(t), &a2a.SendMessageRequest{Message: answerMsg(task.ID, p)}) {
		if err == nil {
			t.Fatalf("streamed approval accepted: %s", ev.Kind())
		}
		wantCode(t, err, a2a.CodeUnsupportedOperation)
	}
	got, err := a.v1.GetTask(ctxT(t), &a2a.GetTaskRequest{ID: task.ID})
	if err != nil || !got.Status.State.Interrupted() {
		t.Fatalf("after refused answers: %v %v", got, err)
	}
	req, err := aim.FindRequirement(got.Status.Message)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := a.v1.ContinueTask(ctxT(t), continueReq(got, req, decision(t, aim.DecisionApprove)))
	if err != nil || resp.Task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("ContinueTask after: %+v %v", resp, err)
	}
}

func TestConfirmation(t *testing.T) {
	bump := func(_ string, r *aim.Requirement) { r.Version++ }
	tests := []struct {
		name  string
		cfg   HandlerConfig
		edit  func(task *a2a.Task, req *a2a.ContinueTaskRequest)
		parts func(t *testing.T) []a2a.Part
		code  int
		check func(t *testing.T, task *a2a.Task, err error)
	}{
		{
			name: "approve completes with a result", parts: func(t *testing.T) []a2a.Part { return []a2a.Part{decision(t, aim.DecisionApprove)} },
			check: func(t *testing.T, task *a2a.Task, err error) {
				if task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) != 1 || task.Artifacts[0].Name != "result" {
					t.Errorf("task %s with %d artifacts", task.Status.State, len(task.Artifacts))
				}
			},
		},
		{
			name: "reject cancels and does nothing", parts: func(t *testing.T) []a2a.Part { return []a2a.Part{decision(t, aim.DecisionReject)} },
			check: func(t *testing.T, task *a2a.Task, err error) {
				if task.Status.State != a2a.TaskStateCanceled || len(task.Artifacts) != 0 ||
					!strings.Contains(messageText(task.Status.Message), "nothing was done") {
					t.Errorf("task %s: %q", task.Status.State, messageText(task.Status.Message))
				}
			},
		},
		{name: "wrong digest", code: a2a.CodeInvalidParams, edit: func(_ *a2a.Task, r *a2a.ContinueTaskRequest) {
			r.ActionDigest = aim.DigestPrefix + strings.Repeat("0", 64)
		}},
		{
			name: "stale version after the plan changed", cfg: HandlerConfig{Hooks: Hooks{BeforeContinue: bump}}, code: a2a.CodeVersionMismatch,
			check: func(t *testing.T, _ *a2a.Task, err error) {
				var rpc *a2a.RPCError
				errors.As(err, &rpc)
				var cur a2a.Task
				if jerr := json.Unmarshal(rpc.Data, &cur); jerr != nil {
					t.Fatalf("error.data is not a task: %v: %s", jerr, rpc.Data)
				}
				req, ferr := aim.FindRequirement(cur.Status.Message)
				if ferr != nil || req.Version != 2 || cur.Status.State != a2a.TaskStateAuthRequired {
					t.Errorf("task in error.data: %s, requirement %+v, %v", cur.Status.State, req, ferr)
				}
			},
		},
		{name: "expected version ahead", code: a2a.CodeVersionMismatch, edit: func(_ *a2a.Task, r *a2a.ContinueTaskRequest) { r.ExpectedVersion = 5 }},
		{name: "expired", cfg: HandlerConfig{Hooks: Hooks{Tamper: TamperExpired}}, code: a2a.CodeVersionMismatch},
		{name: "other requirement", code: a2a.CodeVersionMismatch, edit: func(_ *a2a.Task, r *a2a.ContinueTaskRequest) { r.RequirementID = uuid.NewString() }},
		{name: "unknown task", code: a2a.CodeTaskNotFound, edit: func(_ *a2a.Task, r *a2a.ContinueTaskRequest) {
			r.ID = uuid.NewString()
			r.Message.TaskID = r.ID
		}},
		{name: "message.taskId differs from id", code: a2a.CodeInvalidParams, edit: func(_ *a2a.Task, r *a2a.ContinueTaskRequest) {
			r.Message.TaskID = uuid.NewString()
		}},
		{name: "no decision", code: a2a.CodeInvalidParams, parts: func(t *testing.T) []a2a.Part { return []a2a.Part{a2a.TextPart("maybe")} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Hooks.StepDelay = time.Millisecond
			a := newAgent(t, cfg)
			// A plain client: the AIM client would refuse some of these requests itself.
			c := a.plain(a2a.Version10)
			task, req := pending(t, c, "confirm", a2a.TaskStateAuthRequired)
			if req.Kind != aim.KindConfirmation || req.Risk != aim.RiskHigh || req.Title == "" || req.Summary == "" ||
				req.Version != 1 || req.ExpiresAt == nil {
				t.Errorf("requirement %+v", req)
			}
			parts := []a2a.Part{decision(t, aim.DecisionApprove)}
			if tt.parts != nil {
				parts = tt.parts(t)
			}
			creq := continueReq(task, req, parts...)
			if tt.edit != nil {
				tt.edit(task, creq)
			}
			resp, err := c.ContinueTask(ctxT(t), creq)
			if tt.code != 0 {
				wantCode(t, err, tt.code)
				if tt.check != nil {
					tt.check(t, nil, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, resp.Task, nil)
			_, err = c.ContinueTask(ctxT(t), creq)
			wantCode(t, err, a2a.CodeVersionMismatch) // answered already: no longer pending
		})
	}
}

func TestTamper(t *testing.T) {
	tests := []struct {
		tamper Tamper
		check  func(t *testing.T, r *aim.Requirement)
	}{
		{TamperDigest, func(t *testing.T, r *aim.Requirement) {
			if err := r.VerifyDigest(); !errors.Is(err, aim.ErrDigestMismatch) {
				t.Errorf("VerifyDigest = %v", err)
			}
		}},
		{TamperDuplicateKeys, func(t *testing.T, r *aim.Requirement) {
			if err := r.VerifyDigest(); !errors.Is(err, aim.ErrBadAction) {
				t.Errorf("VerifyDigest = %v (action %s)", err, r.Action)
			}
		}},
		{TamperExpired, func(t *testing.T, r *aim.Requirement) {
			if !r.Expired(time.Now()) {
				t.Errorf("expiresAt %v", r.ExpiresAt)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.tamper.String(), func(t *testing.T) {
			a := newAgent(t, HandlerConfig{Hooks: Hooks{Tamper: tt.tamper}})
			_, req := pending(t, a.v1, "confirm", a2a.TaskStateAuthRequired)
			tt.check(t, req)
		})
	}
	t.Run("Requirement hook and ChangePlan", func(t *testing.T) {
		a := newAgent(t, HandlerConfig{Hooks: Hooks{Requirement: func(_ string, r *aim.Requirement) { r.Title = "scripted" }}})
		task, req := pending(t, a.v1, "confirm", a2a.TaskStateAuthRequired)
		if req.Title != "scripted" {
			t.Errorf("title %q", req.Title)
		}
		if err := a.h.ChangePlan(task.ID, func(_ string, r *aim.Requirement) { r.Version = 7 }); err != nil {
			t.Fatal(err)
		}
		got, err := a.v1.GetTask(ctxT(t), &a2a.GetTaskRequest{ID: task.ID})
		if err != nil {
			t.Fatal(err)
		}
		if r, err := aim.FindRequirement(got.Status.Message); err != nil || r.Version != 7 {
			t.Errorf("after ChangePlan: %+v, %v", r, err)
		}
	})
}
