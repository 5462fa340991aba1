package devagent

import (
	"encoding/json"
	"errors"
	"fmt"

	"aimdesk/app/a2a"
)

// Sentinels for failures inside the agent. The JSON-RPC layer maps them to
// A2A error codes (see asRPC).
var (
	// ErrTaskNotFound: no task with that id is kept (never created, or evicted).
	ErrTaskNotFound = errors.New("devagent: task not found")
	// ErrTaskEnded: the task reached a terminal state; it changes no more.
	ErrTaskEnded = errors.New("devagent: the task has already ended")
	// ErrTooManyTasks: every kept task is still running, so none can be evicted.
	ErrTooManyTasks = errors.New("devagent: too many unfinished tasks")
	// ErrNoPendingRequirement: the task waits for no requirement.
	ErrNoPendingRequirement = errors.New("devagent: the task waits for no requirement")
	// ErrSlowSubscriber: a stream reader fell too far behind and was dropped.
	ErrSlowSubscriber = errors.New("devagent: the stream reader fell too far behind")
	// ErrClosed: the handler was closed.
	ErrClosed = errors.New("devagent: the agent is shutting down")
)

// rpcError builds a JSON-RPC error; data, when not nil, is marshalled into
// error.data.
func rpcError(code int, msg string, data any) *a2a.RPCError {
	e := &a2a.RPCError{Code: code, Message: msg}
	if data != nil {
		if raw, ok := data.(json.RawMessage); ok {
			e.Data = raw
		} else if b, err := json.Marshal(data); err == nil {
			e.Data = b
		}
	}
	return e
}

func rpcErrorf(code int, format string, args ...any) *a2a.RPCError {
	return &a2a.RPCError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// asRPC turns any error a method returned into the JSON-RPC error to send.
func asRPC(err error) *a2a.RPCError {
	var rpc *a2a.RPCError
	switch {
	case errors.As(err, &rpc):
		return rpc
	case errors.Is(err, ErrTaskNotFound):
		return rpcErrorf(a2a.CodeTaskNotFound, "%v", trimPrefix(err))
	case errors.Is(err, ErrTaskEnded):
		return rpcErrorf(a2a.CodeTaskNotCancelable, "%v", trimPrefix(err))
	case errors.Is(err, ErrNoPendingRequirement):
		return rpcErrorf(a2a.CodeUnsupportedOperation, "%v", trimPrefix(err))
	}
	return rpcErrorf(a2a.CodeInternalError, "%v", trimPrefix(err))
}

func trimPrefix(err error) string {
	s := err.Error()
	const p = "devagent: "
	if len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}
