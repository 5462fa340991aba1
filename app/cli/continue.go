package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
)

// continueTask answers an AIM task's pending requirement with ContinueTask:
// for an input, the text is the answer; for a confirmation, the text must
// be "approve" or "reject", and approving is refused when the action's
// digest does not match what the agent sent or the request expired.
func (e *env) continueTask(ctx context.Context, c *a2a.Client, taskID string, msg a2a.Message) int {
	t, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: taskID})
	if err != nil {
		return e.fail(err)
	}
	if !t.Status.State.Interrupted() {
		fmt.Fprintf(e.stderr, "aimdesk: task %s is %s, not waiting for an answer\n", taskID, t.Status.State.Label())
		return ExitFailed
	}
	r, err := aim.FindRequirement(t.Status.Message)
	if err != nil {
		return e.fail(fmt.Errorf("task %s: %w", taskID, err))
	}
	if r.Expired(time.Now()) {
		fmt.Fprintf(e.stderr, "aimdesk: the request %q expired at %s; ask the agent again\n", r.Title, r.ExpiresAt.Local().Format(time.DateTime))
		return ExitFailed
	}
	text := strings.TrimSpace(msg.Parts[0].Text)
	if r.Kind == aim.KindConfirmation {
		decision := aim.Decision(strings.ToLower(text))
		if decision != aim.DecisionApprove && decision != aim.DecisionReject {
			fmt.Fprintf(e.stderr, "aimdesk: task %s asks you to confirm %q (risk %s): answer \"approve\" or \"reject\"\n", taskID, r.Title, r.Risk)
			return ExitUsage
		}
		if err := r.VerifyDigest(); err != nil && decision == aim.DecisionApprove {
			return e.fail(fmt.Errorf("refusing to approve: %w", err))
		}
		p, err := a2a.DataPart(aim.ConfirmationAnswer{Decision: decision}, "application/json")
		if err != nil {
			return e.fail(err)
		}
		msg.Parts = []a2a.Part{p}
	}
	msg.TaskID, msg.ContextID = taskID, t.ContextID
	resp, err := c.ContinueTask(ctx, &a2a.ContinueTaskRequest{
		ID: taskID, RequirementID: r.RequirementID,
		ExpectedVersion: r.Version, ActionDigest: r.ActionDigest, Message: msg,
	})
	if errors.Is(err, a2a.ErrVersionMismatch) {
		fmt.Fprintln(e.stderr, "aimdesk: the agent changed its request since you read it; run the command again to see the new one")
		return ExitFailed
	}
	if err != nil {
		return e.fail(err)
	}
	if e.json {
		e.printJSON(resp)
	} else if resp.Task != nil {
		printTask(e.stdout, resp.Task)
	} else if resp.Message != nil {
		printMessage(e.stdout, resp.Message)
	}
	if resp.Task != nil {
		return taskExit(resp.Task.Status.State)
	}
	return ExitOK
}
