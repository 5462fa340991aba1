package a2a

import (
	"fmt"
	"regexp"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Limits of the AIM request schema (aim-a2a-v1-request.schema.json). The
// client checks them itself so a user gets a sentence naming the field
// instead of a -32602 from the agent.
const (
	AIMMaxParts          = 17
	AIMMaxMessageIDChars = 128
	// AIMMaxRawBase64Chars bounds a raw part's base64 text, which means
	// AIMMaxRawBytes bytes of file content.
	AIMMaxRawBase64Chars = 699052
	AIMMaxRawBytes       = AIMMaxRawBase64Chars / 4 * 3 // 524,289
	AIMMaxMediaTypeChars = 127
	AIMMaxFilenameChars  = 255
	AIMMaxPageSize       = 100
)

// aimMethods are the methods the AIM schema allows.
var aimMethods = map[string]bool{
	"SendMessage": true, "SendStreamingMessage": true, "ContinueTask": true, "GetTask": true,
	"ListTasks": true, "CancelTask": true, "SubscribeToTask": true,
	"aim.realtime.GetSession": true, "aim.realtime.RegisterEndpoint": true, "aim.realtime.JoinSession": true,
	"aim.realtime.EndSession": true, "aim.realtime.SendInteraction": true, "aim.realtime.GetCommand": true,
	"aim.realtime.GetOperation": true,
}

// aimOutputModes are the acceptedOutputModes values the AIM schema allows.
var aimOutputModes = map[string]bool{"text/plain": true, "image/*": true, "application/octet-stream": true}

var digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// CheckAIM checks a v1.0 request against the AIM schema's limits and returns
// a *LimitError naming the first field that breaks one. Params of the
// aim.realtime methods are typed by package aim, which checks them.
func CheckAIM(method string, params any) error {
	if !aimMethods[method] {
		return &LimitError{Field: "method", Reason: fmt.Sprintf("%s is not offered by AIM agents", method)}
	}
	switch p := params.(type) {
	case *SendMessageRequest:
		return checkSend(p)
	case *ContinueTaskRequest:
		return checkContinue(p)
	case *GetTaskRequest:
		return checkTaskParams(p.Tenant, p.ID, p.HistoryLength, nil)
	case *CancelTaskRequest:
		return checkTaskParams(p.Tenant, p.ID, nil, p.Metadata)
	case *SubscribeToTaskRequest:
		return checkTaskParams(p.Tenant, p.ID, nil, nil)
	case *ListTasksRequest:
		return checkList(p)
	}
	return nil
}

func limitf(field, format string, args ...any) error {
	return &LimitError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

func checkUUID(field, s string) error {
	if len(s) != 36 || uuid.Validate(s) != nil {
		return limitf(field, "must be a UUID, got %q", s)
	}
	return nil
}

func checkNonNegative(field string, n *int) error {
	if n != nil && *n < 0 {
		return limitf(field, "must not be negative")
	}
	return nil
}

func checkSend(p *SendMessageRequest) error {
	if p.Tenant != "" {
		return limitf("params.tenant", "AIM agents take no tenant")
	}
	if err := checkMessage("params.message", &p.Message, false); err != nil {
		return err
	}
	if p.Message.TaskID != "" {
		return limitf("params.message.taskId", "must be empty: a new message never continues a task on an AIM agent (use ContinueTask)")
	}
	if c := p.Configuration; c != nil {
		if c.TaskPushNotificationConfig != nil {
			return limitf("params.configuration.taskPushNotificationConfig", "AIM agents take no push notification config")
		}
		for i, m := range c.AcceptedOutputModes {
			if !aimOutputModes[m] {
				return limitf(fmt.Sprintf("params.configuration.acceptedOutputModes[%d]", i), "%q is not one of text/plain, image/*, application/octet-stream", m)
			}
		}
		if err := checkNonNegative("params.configuration.historyLength", c.HistoryLength); err != nil {
			return err
		}
	}
	return nil
}

func checkMessage(field string, m *Message, continuing bool) error {
	if m.Role != RoleUser {
		return limitf(field+".role", "must be ROLE_USER, got %q", m.Role)
	}
	if n := utf8.RuneCountInString(m.MessageID); n < 1 || n > AIMMaxMessageIDChars {
		return limitf(field+".messageId", "must be 1 to %d characters (has %d)", AIMMaxMessageIDChars, n)
	}
	if len(m.ReferenceTaskIDs) > 0 {
		return limitf(field+".referenceTaskIds", "AIM agents take no referenced tasks")
	}
	if n := len(m.Parts); n < 1 || n > AIMMaxParts {
		return limitf(field+".parts", "a message holds 1 to %d parts (has %d)", AIMMaxParts, n)
	}
	for i, p := range m.Parts {
		if err := checkPart(fmt.Sprintf("%s.parts[%d]", field, i), p, continuing); err != nil {
			return err
		}
	}
	return nil
}

func checkPart(field string, p Part, continuing bool) error {
	switch p.Kind {
	case PartText, PartData:
	case PartRaw, PartURL:
		if continuing {
			return limitf(field, "an answer to a task carries text or data only, not files")
		}
		if p.MediaType == "" {
			return limitf(field+".mediaType", "a file needs a media type")
		}
		if p.Kind == PartRaw {
			if len(p.Raw) == 0 {
				return limitf(field+".raw", "the file is empty")
			}
			if n := (len(p.Raw) + 2) / 3 * 4; n > AIMMaxRawBase64Chars {
				return limitf(field+".raw", "the file is %d bytes; AIM agents take at most %d bytes (%d base64 characters)", len(p.Raw), AIMMaxRawBytes, AIMMaxRawBase64Chars)
			}
		}
	default:
		return limitf(field, "unknown part kind %q", p.Kind)
	}
	if n := utf8.RuneCountInString(p.MediaType); n > AIMMaxMediaTypeChars {
		return limitf(field+".mediaType", "at most %d characters (has %d)", AIMMaxMediaTypeChars, n)
	}
	if n := utf8.RuneCountInString(p.Filename); n > AIMMaxFilenameChars {
		return limitf(field+".filename", "at most %d characters (has %d)", AIMMaxFilenameChars, n)
	}
	return nil
}

func checkContinue(p *ContinueTaskRequest) error {
	if err := checkUUID("params.id", p.ID); err != nil {
		return err
	}
	if err := checkUUID("params.requirementId", p.RequirementID); err != nil {
		return err
	}
	if p.ExpectedVersion < 0 {
		return limitf("params.expectedVersion", "must not be negative")
	}
	if !digestPattern.MatchString(p.ActionDigest) {
		return limitf("params.actionDigest", "must be sha256: followed by 64 lowercase hex digits")
	}
	if err := checkMessage("params.message", &p.Message, true); err != nil {
		return err
	}
	if p.Message.TaskID != p.ID {
		return limitf("params.message.taskId", "must equal params.id (%q)", p.ID)
	}
	return checkNonNegative("params.historyLength", p.HistoryLength)
}

func checkTaskParams(tenant, id string, historyLength *int, meta Metadata) error {
	if tenant != "" {
		return limitf("params.tenant", "AIM agents take no tenant")
	}
	if len(meta) > 0 {
		return limitf("params.metadata", "AIM agents take no metadata here")
	}
	if err := checkUUID("params.id", id); err != nil {
		return err
	}
	return checkNonNegative("params.historyLength", historyLength)
}

func checkList(p *ListTasksRequest) error {
	if p.Tenant != "" {
		return limitf("params.tenant", "AIM agents take no tenant")
	}
	if p.PageSize != nil && (*p.PageSize < 1 || *p.PageSize > AIMMaxPageSize) {
		return limitf("params.pageSize", "must be 1 to %d", AIMMaxPageSize)
	}
	if p.Status != "" {
		switch p.Status {
		case TaskStateSubmitted, TaskStateWorking, TaskStateCompleted, TaskStateFailed, TaskStateCanceled,
			TaskStateInputRequired, TaskStateRejected, TaskStateAuthRequired:
		default:
			return limitf("params.status", "%q is not a task state", p.Status)
		}
	}
	return checkNonNegative("params.historyLength", p.HistoryLength)
}
