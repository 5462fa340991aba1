package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/google/uuid"

	"aimdesk/app/a2a"
)

func cmdCard(ctx context.Context, e *env, args []string) int {
	pos, ok := e.flags("card", args, 1, nil)
	if !ok {
		return ExitUsage
	}
	c, rc, err := e.connect(ctx, pos[0])
	if err != nil {
		return e.fail(err)
	}
	defer c.Close()
	if e.json {
		e.printJSON(rc.Card)
		return ExitOK
	}
	printCard(e.stdout, rc, c.Interface)
	return ExitOK
}

func cmdSend(ctx context.Context, e *env, args []string) int {
	var stream bool
	var taskID, contextID, digest string
	pos, ok := e.flags("send", args, 2, func(fs *flag.FlagSet) {
		fs.BoolVar(&stream, "stream", false, "stream the answer as it is written")
		fs.StringVar(&taskID, "task", "", "answer this task (input it asked for)")
		fs.StringVar(&digest, "digest", "", "approve only if the request's action has this digest (sha256:…)")
		fs.StringVar(&contextID, "context", "", "continue this conversation")
	})
	if !ok {
		return ExitUsage
	}
	c, rc, err := e.connect(ctx, pos[0])
	if err != nil {
		return e.fail(err)
	}
	defer c.Close()
	msg := a2a.Message{MessageID: uuid.NewString(), Role: a2a.RoleUser, ContextID: contextID, Parts: []a2a.Part{a2a.TextPart(pos[1])}}
	if taskID != "" {
		if c.AIM && c.Binding() == a2a.BindingJSONRPC { // no ContinueTask over HTTP+JSON and gRPC
			return e.continueTask(ctx, c, taskID, msg, digest)
		}
		msg.TaskID = taskID
	}
	req := &a2a.SendMessageRequest{Message: msg}
	if stream && rc.Card.Streams() {
		return e.printStream(c.SendStreamingMessage(ctx, req))
	}
	if stream {
		fmt.Fprintln(e.stderr, "aimdesk: the agent does not stream; waiting for the whole answer")
	}
	resp, err := c.SendMessage(ctx, req)
	if err != nil {
		return e.fail(err)
	}
	if e.json {
		e.printJSON(resp)
	} else if resp.Message != nil {
		printMessage(e.stdout, resp.Message)
	} else if resp.Task != nil {
		printTask(e.stdout, resp.Task)
	}
	if resp.Task != nil {
		return taskExit(resp.Task.Status.State)
	}
	return ExitOK
}

// printStream prints events as they arrive: artifact text flows to stdout,
// state changes go on their own lines. It returns the exit code for the
// task's last state.
func (e *env) printStream(seq func(func(*a2a.StreamResponse, error) bool)) int {
	var last a2a.TaskState
	out := &streamPrinter{w: e.stdout}
	for ev, err := range seq {
		if err != nil {
			out.endLine()
			return e.fail(err)
		}
		if e.json {
			e.printJSON(ev)
		}
		if st, ok := eventState(ev); ok {
			last = st
		}
		if !e.json {
			out.event(ev)
		}
	}
	out.endLine()
	return taskExit(last)
}

// eventState is the task state a stream event reports, if any.
func eventState(ev *a2a.StreamResponse) (a2a.TaskState, bool) {
	switch {
	case ev.Task != nil:
		return ev.Task.Status.State, true
	case ev.Message != nil:
		return "", false
	case ev.StatusUpdate != nil:
		return ev.StatusUpdate.Status.State, true
	}
	return "", false
}

// streamPrinter prints stream events as text; artifact text runs on
// without line breaks of its own.
type streamPrinter struct {
	w       io.Writer
	midLine bool // the last text printed did not end its line
}

// endLine ends a line of artifact text left open.
func (p *streamPrinter) endLine() {
	if p.midLine {
		fmt.Fprintln(p.w)
		p.midLine = false
	}
}

func (p *streamPrinter) event(ev *a2a.StreamResponse) {
	switch {
	case ev.Task != nil:
		fmt.Fprintf(p.w, "task %s  %s\n", ev.Task.ID, ev.Task.Status.State.Label())
	case ev.Message != nil:
		printMessage(p.w, ev.Message)
	case ev.StatusUpdate != nil:
		p.endLine()
		fmt.Fprintf(p.w, "[%s]\n", ev.StatusUpdate.Status.State.Label())
		if m := ev.StatusUpdate.Status.Message; m != nil {
			printParts(p.w, "  ", m.Parts)
		}
	case ev.ArtifactUpdate != nil:
		for _, part := range ev.ArtifactUpdate.Artifact.Parts {
			if part.Kind == a2a.PartText {
				fmt.Fprint(p.w, part.Text)
				p.midLine = !strings.HasSuffix(part.Text, "\n")
			} else {
				p.endLine()
				fmt.Fprintln(p.w, partSummary(part))
			}
		}
	}
}

func cmdTasks(ctx context.Context, e *env, args []string) int {
	var state, contextID, pageToken string
	var pageSize int
	var all bool
	pos, ok := e.flags("tasks", args, 1, func(fs *flag.FlagSet) {
		fs.StringVar(&state, "state", "", "only tasks in this state (working, completed, input-required, …)")
		fs.StringVar(&contextID, "context", "", "only tasks of this conversation")
		fs.IntVar(&pageSize, "page-size", 0, "tasks per page (1-100; default: the agent's)")
		fs.StringVar(&pageToken, "page-token", "", "continue from this page token")
		fs.BoolVar(&all, "all", false, "follow nextPageToken to the end")
	})
	if !ok {
		return ExitUsage
	}
	st, err := parseState(state)
	if err != nil {
		fmt.Fprintf(e.stderr, "aimdesk tasks: %v\n", err)
		return ExitUsage
	}
	c, _, err := e.connect(ctx, pos[0])
	if err != nil {
		return e.fail(err)
	}
	defer c.Close()
	req := &a2a.ListTasksRequest{ContextID: contextID, Status: st, PageToken: pageToken}
	if pageSize > 0 {
		req.PageSize = &pageSize
	}
	shown := 0
	for {
		resp, err := c.ListTasks(ctx, req)
		if err != nil {
			return e.fail(err)
		}
		if e.json {
			e.printJSON(resp)
		} else {
			for _, t := range resp.Tasks {
				when := ""
				if t.Status.Timestamp != nil {
					when = t.Status.Timestamp.Local().Format("2006-01-02 15:04:05")
				}
				fmt.Fprintf(e.stdout, "%s  %-14s  %s  %s\n", t.ID, t.Status.State.Label(), when, t.ContextID)
			}
		}
		shown += len(resp.Tasks)
		if !all || resp.NextPageToken == "" {
			if !e.json {
				fmt.Fprintf(e.stdout, "%d of %d tasks", shown, resp.TotalSize)
				if resp.NextPageToken != "" {
					fmt.Fprintf(e.stdout, "; next page: --page-token %s", resp.NextPageToken)
				}
				fmt.Fprintln(e.stdout)
			}
			return ExitOK
		}
		req.PageToken = resp.NextPageToken
	}
}

func cmdGet(ctx context.Context, e *env, args []string) int {
	history := -1
	pos, ok := e.flags("get", args, 2, func(fs *flag.FlagSet) {
		fs.IntVar(&history, "history", -1, "at most this many history messages (default: all)")
	})
	if !ok {
		return ExitUsage
	}
	c, _, err := e.connect(ctx, pos[0])
	if err != nil {
		return e.fail(err)
	}
	defer c.Close()
	req := &a2a.GetTaskRequest{ID: pos[1]}
	if history >= 0 {
		req.HistoryLength = &history
	}
	t, err := c.GetTask(ctx, req)
	if err != nil {
		return e.fail(err)
	}
	if e.json {
		e.printJSON(t)
	} else {
		printTask(e.stdout, t)
	}
	return ExitOK
}

func cmdCancel(ctx context.Context, e *env, args []string) int {
	pos, ok := e.flags("cancel", args, 2, nil)
	if !ok {
		return ExitUsage
	}
	c, _, err := e.connect(ctx, pos[0])
	if err != nil {
		return e.fail(err)
	}
	defer c.Close()
	t, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: pos[1]})
	if err != nil {
		return e.fail(err)
	}
	if e.json {
		e.printJSON(t)
	} else {
		fmt.Fprintf(e.stdout, "task %s  %s\n", t.ID, t.Status.State.Label())
	}
	return ExitOK
}

func cmdSubscribe(ctx context.Context, e *env, args []string) int {
	pos, ok := e.flags("subscribe", args, 2, nil)
	if !ok {
		return ExitUsage
	}
	c, _, err := e.connect(ctx, pos[0])
	if err != nil {
		return e.fail(err)
	}
	defer c.Close()
	return e.printStream(c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: pos[1]}))
}
