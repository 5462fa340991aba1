package a2a

import (
	"encoding/json"
	"fmt"
)

// v0.3 request params that differ from v1.0.
type (
	taskQueryParamsV03 struct {
		ID            string   `json:"id"`
		HistoryLength *int     `json:"historyLength,omitempty"`
		Metadata      Metadata `json:"metadata,omitempty"`
	}
	taskIDParamsV03 struct {
		ID       string   `json:"id"`
		Metadata Metadata `json:"metadata,omitempty"`
	}
	pushConfigParamsV03 struct {
		ID                       string `json:"id"`
		PushNotificationConfigID string `json:"pushNotificationConfigId,omitempty"`
	}
)

// paramsToV03 rewrites a v1.0 request's params into the v0.3 shape.
func paramsToV03(method string, params any) (any, error) {
	switch p := params.(type) {
	case *SendMessageRequest:
		return SendRequestToV03(p)
	case *GetTaskRequest:
		return &taskQueryParamsV03{ID: p.ID, HistoryLength: p.HistoryLength}, nil
	case *CancelTaskRequest:
		return &taskIDParamsV03{ID: p.ID, Metadata: p.Metadata}, nil
	case *SubscribeToTaskRequest:
		return &taskIDParamsV03{ID: p.ID}, nil
	case *TaskPushNotificationConfig:
		return &TaskPushConfigV03{TaskID: p.TaskID, PushNotificationConfig: *pushToV03(p)}, nil
	case *TaskPushNotificationConfigRequest:
		return &pushConfigParamsV03{ID: p.TaskID, PushNotificationConfigID: p.ID}, nil
	case *ListTaskPushNotificationConfigsRequest:
		return &taskIDParamsV03{ID: p.TaskID}, nil
	case *GetExtendedAgentCardRequest:
		return struct{}{}, nil
	}
	return nil, fmt.Errorf("no v0.3 form for %T params of %s", params, method)
}

// resultFromV03 decodes a v0.3 result into the v1.0 type result points to.
func resultFromV03(method string, raw json.RawMessage, result any) error {
	switch out := result.(type) {
	case *SendMessageResponse:
		return sendResultFromV03(method, raw, out)
	case *Task:
		return taskResultFromV03(raw, out)
	case *TaskPushNotificationConfig:
		t, err := decodeV03[TaskPushConfigV03](raw)
		if err != nil {
			return err
		}
		*out = pushFromV03(t.TaskID, t.PushNotificationConfig)
		return nil
	case *ListTaskPushNotificationConfigsResponse:
		list, err := decodeV03[[]TaskPushConfigV03](raw)
		if err != nil {
			return err
		}
		out.Configs = out.Configs[:0]
		for _, t := range list {
			out.Configs = append(out.Configs, pushFromV03(t.TaskID, t.PushNotificationConfig))
		}
		return nil
	case *AgentCard:
		card, err := ParseAgentCard(raw)
		if err != nil {
			return err
		}
		*out = *card
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("%w: %w", ErrBadResponse, err)
	}
	return nil
}

// decodeV03 decodes a v0.3 result as a T; errors wrap ErrBadResponse.
func decodeV03[T any](raw json.RawMessage) (T, error) {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, fmt.Errorf("%w: %w", ErrBadResponse, err)
	}
	return v, nil
}

// sendResultFromV03 maps a v0.3 SendMessage result, a task or a message.
func sendResultFromV03(method string, raw json.RawMessage, out *SendMessageResponse) error {
	e, err := decodeV03[EventV03](raw)
	if err != nil {
		return err
	}
	ev, err := EventFromV03(&e)
	if err != nil {
		return err
	}
	if ev.Task == nil && ev.Message == nil {
		return fmt.Errorf("%w: %s result is a %s", ErrBadResponse, method, e.Kind)
	}
	*out = SendMessageResponse{Task: ev.Task, Message: ev.Message}
	return nil
}

func taskResultFromV03(raw json.RawMessage, out *Task) error {
	t, err := decodeV03[TaskV03](raw)
	if err != nil {
		return err
	}
	v, err := TaskFromV03(&t)
	if err != nil {
		return err
	}
	*out = *v
	return nil
}
