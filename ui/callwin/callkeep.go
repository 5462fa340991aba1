package callwin

// The call's kept transcript: when the user chose "keep a transcript"
// before joining (the default comes from the settings; only agents that
// declare transcriptHistory offer it), every final line (the agent's and
// the user's, spoken or typed) is stored, in order, by one goroutine, in
// the conversation the call was started from — the existing direct chat,
// whose context the session continues — or, for a call started from no
// conversation, in a new one ("Call with <agent> <date time>"). Interim
// lines are never stored.

import (
	"context"
	"errors"
	"strings"
	"time"

	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/aim"
)

// callKept is one final transcript line waiting to be stored.
type callKept struct {
	role a2a.Role
	text string
}

// callTranscriptTitle is the kept conversation's title.
func callTranscriptTitle(agent string, at time.Time) string {
	return "Call with " + agent + " " + at.Local().Format("2006-01-02 15:04")
}

// fromConversation returns the conversation the call was started from,
// when it is still there and with this agent (the zero value otherwise).
func (cw *callWindow) fromConversation(ctx context.Context, agentID string) app.Conversation {
	core := cw.env.Core
	if core == nil || cw.convID == "" {
		return app.Conversation{}
	}
	conv, err := core.Conversation(ctx, cw.convID)
	if err != nil || conv.AgentID != agentID {
		return app.Conversation{}
	}
	return conv
}

// startTranscript starts storing the lines queued on keepQ in the
// conversation the call was started from (convID), or, when there is none,
// in a new one ("Call with <agent> <date time>"); the conversation takes
// the session's context when it has none. It returns the conversation's
// id, or "" (and says why) when there is none. It runs on connect's
// goroutine.
func (cw *callWindow) startTranscript(ctx context.Context, agentID, convID, contextID string) string {
	core := cw.env.Core
	fail := func(err error) string {
		cw.env.Do(func() {
			cw.setStatus("The transcript is not kept: "+callErrText(err), widget.WarningImportance, false)
		})
		return ""
	}
	if core == nil {
		return fail(errors.New("no conversation store here"))
	}
	if convID == "" {
		conv, err := core.NewConversation(ctx, agentID)
		if err != nil {
			return fail(err)
		}
		convID = conv.ID
		if err := core.RenameConversation(ctx, convID, callTranscriptTitle(cw.agentName(), time.Now())); err != nil {
			cw.env.Do(func() {
				cw.setStatus("Could not name the transcript's conversation: "+callErrText(err), widget.WarningImportance, false)
			})
		}
	}
	if err := core.AdoptContext(ctx, convID, contextID); err != nil {
		return fail(err)
	}
	go cw.storeTranscript(core, convID)
	return convID
}

// storeTranscript stores the queued lines one after the other until the
// window goes, then the lines still queued.
func (cw *callWindow) storeTranscript(core *app.Core, convID string) {
	failed := false
	store := func(l callKept) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(cw.ctx), callEndTimeout)
		defer cancel()
		if _, err := core.AppendTranscript(ctx, convID, l.role, l.text); err != nil && !failed {
			failed = true
			cw.env.Do(func() {
				cw.setStatus("Could not keep the transcript: "+callErrText(err), widget.WarningImportance, false)
			})
		}
	}
	for {
		select {
		case l := <-cw.keepQ:
			store(l)
		case <-cw.ctx.Done():
			for {
				select {
				case l := <-cw.keepQ:
					store(l)
				default:
					return
				}
			}
		}
	}
}

// keepLine queues a final line for the kept transcript (nothing when the
// user did not choose to keep one). It runs on the Fyne goroutine.
func (cw *callWindow) keepLine(role, text string) {
	if !cw.choices.KeepTranscript || strings.TrimSpace(text) == "" {
		return
	}
	var r a2a.Role
	switch role {
	case aim.RoleUser:
		r = a2a.RoleUser
	case aim.RoleAgent:
		r = a2a.RoleAgent
	default:
		return
	}
	select {
	case cw.keepQ <- callKept{role: r, text: text}:
	default:
		cw.setStatus("The transcript falls behind; a line was not kept.", widget.WarningImportance, false)
	}
}
