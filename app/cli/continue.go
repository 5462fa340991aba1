package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
)

// pending is a task's open requirement as read once: what is shown is what
// is answered.
type pending struct {
	task *a2a.Task
	req  *aim.Requirement
	raw  json.RawMessage // the requirement's data part, exactly as received
	// computed is the digest of the action computed here ("" if it cannot
	// be); problem says why approving is refused ("" if it is not).
	computed, problem string
}

// readPending reads the task once and checks its requirement the way the
// app's approval dialog does: the digest recomputed over the exact bytes,
// and the JSON refused when it can be read two ways (repeated keys, also
// case-variant ones, invalid UTF-8, lone surrogates, integers past 2^53).
func readPending(ctx context.Context, c *a2a.Client, taskID string) (*pending, error) {
	t, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: taskID})
	if err != nil {
		return nil, err
	}
	p := &pending{task: t}
	if !t.Status.State.Interrupted() {
		return p, nil
	}
	r, err := aim.FindRequirement(t.Status.Message)
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", taskID, err)
	}
	p.req = r
	for _, part := range t.Status.Message.Parts {
		if part.Kind == a2a.PartData && part.MediaType == aim.RequirementMediaType {
			p.raw = part.Data
			break
		}
	}
	if r.Kind != aim.KindConfirmation {
		return p, nil
	}
	p.computed, _ = aim.Digest(r.Action)
	switch {
	case aim.CheckUnambiguous(p.raw) != nil:
		p.problem = "the request can be read two ways: " + aim.CheckUnambiguous(p.raw).Error()
	case r.VerifyDigest() != nil:
		p.problem = "the action does not match its digest: " + r.VerifyDigest().Error()
	case r.Expired(time.Now()):
		p.problem = "the request expired at " + r.ExpiresAt.Local().Format(time.DateTime)
	}
	return p, nil
}

// show prints the request as the approval dialog shows it: who asks, the
// title, risk and summary, the action exactly as sent, both digests and the
// verdict. Agent text is printed with control characters escaped, so it
// cannot move the cursor or recolour the terminal to hide part of itself.
func (p *pending) show(w io.Writer) {
	r := p.req
	fmt.Fprintf(w, "Task %s asks you to confirm:\n", termSafe(p.task.ID, false))
	fmt.Fprintf(w, "  Title:    %s\n", termSafe(r.Title, false))
	risk := string(r.Risk)
	if risk == "" {
		risk = "not stated (treated as high)"
	}
	fmt.Fprintf(w, "  Risk:     %s\n", termSafe(risk, false))
	fmt.Fprintf(w, "  Version:  %d   request %s\n", r.Version, termSafe(r.RequirementID, false))
	if r.ExpiresAt != nil {
		fmt.Fprintf(w, "  Expires:  %s\n", r.ExpiresAt.Local().Format(time.DateTime))
	}
	if r.Summary != "" {
		fmt.Fprintf(w, "  Summary:  %s\n", indentLines(termSafe(r.Summary, true), "            "))
	}
	var action bytes.Buffer
	if json.Indent(&action, r.Action, "    ", "  ") != nil {
		action.Reset()
		action.Write(r.Action)
	}
	fmt.Fprintf(w, "  Action (exactly as the agent sent it):\n    %s\n", termSafe(action.String(), true))
	fmt.Fprintf(w, "  Digest sent by the agent: %s\n", termSafe(r.ActionDigest, false))
	computed := p.computed
	if computed == "" {
		computed = "(cannot be computed)"
	}
	fmt.Fprintf(w, "  Digest computed here:     %s\n", computed)
	if p.problem != "" {
		fmt.Fprintf(w, "  REFUSED: %s\n", termSafe(p.problem, false))
	} else {
		fmt.Fprintln(w, "  Verified: the digest matches the action shown.")
	}
}

// continueTask answers an AIM task's pending requirement with ContinueTask:
// for an input, the text is the answer; for a confirmation, the text must
// be "approve" or "reject". The request is read once, shown, and answered
// with that read's requirementId, version and digest; approving is refused
// when the app would refuse it, or when --digest names another action.
// When the agent changed its request meanwhile (-32010), the new one is
// shown and nothing is approved.
func (e *env) continueTask(ctx context.Context, c *a2a.Client, taskID string, msg a2a.Message, wantDigest string) int {
	p, code := e.answerable(ctx, c, taskID)
	if p == nil {
		return code
	}
	r := p.req
	text := strings.TrimSpace(msg.Parts[0].Text)
	if r.Kind == aim.KindConfirmation {
		p.show(e.stderr)
		part, code, ok := e.confirmationAnswer(p, text, wantDigest)
		if !ok {
			return code
		}
		msg.Parts = []a2a.Part{part}
	}
	msg.TaskID, msg.ContextID = taskID, p.task.ContextID
	resp, err := c.ContinueTask(ctx, &a2a.ContinueTaskRequest{
		ID: taskID, RequirementID: r.RequirementID,
		ExpectedVersion: r.Version, ActionDigest: r.ActionDigest, Message: msg,
	})
	if errors.Is(err, a2a.ErrVersionMismatch) {
		e.showChangedRequest(ctx, c, taskID)
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

// answerable reads the task's pending requirement; nil and the exit code
// if there is none or it expired.
func (e *env) answerable(ctx context.Context, c *a2a.Client, taskID string) (*pending, int) {
	p, err := readPending(ctx, c, taskID)
	if err != nil {
		return nil, e.fail(err)
	}
	if p.req == nil {
		fmt.Fprintf(e.stderr, "aimdesk: task %s is %s, not waiting for an answer\n", taskID, p.task.Status.State.Label())
		return nil, ExitFailed
	}
	if r := p.req; r.Expired(time.Now()) {
		fmt.Fprintf(e.stderr, "aimdesk: the request %q expired at %s; ask the agent again\n", termSafe(r.Title, false), r.ExpiresAt.Local().Format(time.DateTime))
		return nil, ExitFailed
	}
	return p, ExitOK
}

// confirmationAnswer turns "approve" or "reject" into the answer part of a
// confirmation; false and the exit code if the text is neither, or if an
// approval is refused (a problem with the request, or not the action
// digest the user named).
func (e *env) confirmationAnswer(p *pending, text, wantDigest string) (a2a.Part, int, bool) {
	r := p.req
	decision := aim.Decision(strings.ToLower(text))
	if decision != aim.DecisionApprove && decision != aim.DecisionReject {
		fmt.Fprintf(e.stderr, "aimdesk: answer \"approve\" or \"reject\"\n")
		return a2a.Part{}, ExitUsage, false
	}
	if decision == aim.DecisionApprove {
		if p.problem != "" {
			return a2a.Part{}, e.fail(fmt.Errorf("refusing to approve: %s", p.problem)), false
		}
		if wantDigest != "" && wantDigest != r.ActionDigest {
			return a2a.Part{}, e.fail(fmt.Errorf("refusing to approve: the request's action is %s, not the %s you named", r.ActionDigest, wantDigest)), false
		}
	}
	part, err := a2a.DataPart(aim.ConfirmationAnswer{Decision: decision}, "application/json")
	if err != nil {
		return a2a.Part{}, e.fail(err), false
	}
	return part, ExitOK, true
}

// showChangedRequest says the agent changed its request since it was read,
// and shows the confirmation it now asks for.
func (e *env) showChangedRequest(ctx context.Context, c *a2a.Client, taskID string) {
	fmt.Fprintln(e.stderr, "aimdesk: the agent changed its request since it was read; nothing was answered.")
	if np, rerr := readPending(ctx, c, taskID); rerr == nil && np.req != nil && np.req.Kind == aim.KindConfirmation {
		fmt.Fprintln(e.stderr, "The request now reads:")
		np.show(e.stderr)
		fmt.Fprintln(e.stderr, "Run the command again to answer this one.")
	}
}

// termSafe escapes what a terminal would act on or hide instead of
// showing: control characters (ESC sequences), bidi overrides, zero-width
// and other format characters, and invalid UTF-8, as \uXXXX. Newlines stay
// when multiline.
func termSafe(s string, multiline bool) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '\n' && multiline:
			b.WriteByte('\n')
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			b.WriteString(`\ufffd`)
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029':
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func indentLines(s, indent string) string { return strings.ReplaceAll(s, "\n", "\n"+indent) }
