package a2a

import (
	"context"
	"iter"
)

// SendMessage sends a message and returns the task or message the agent answered with.
func (c *Client) SendMessage(ctx context.Context, req *SendMessageRequest) (*SendMessageResponse, error) {
	var out SendMessageResponse
	if err := c.Call(ctx, "SendMessage", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SendStreamingMessage sends a message and streams the agent's answer.
func (c *Client) SendStreamingMessage(ctx context.Context, req *SendMessageRequest) iter.Seq2[*StreamResponse, error] {
	return c.Stream(ctx, "SendStreamingMessage", req)
}

// ContinueTask answers a task's pending requirement (AIM, v1.0 only).
func (c *Client) ContinueTask(ctx context.Context, req *ContinueTaskRequest) (*SendMessageResponse, error) {
	var out SendMessageResponse
	if err := c.Call(ctx, "ContinueTask", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetTask returns a task's current state.
func (c *Client) GetTask(ctx context.Context, req *GetTaskRequest) (*Task, error) {
	var out Task
	if err := c.Call(ctx, "GetTask", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListTasks lists tasks (v1.0 only).
func (c *Client) ListTasks(ctx context.Context, req *ListTasksRequest) (*ListTasksResponse, error) {
	var out ListTasksResponse
	if err := c.Call(ctx, "ListTasks", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CancelTask asks the agent to cancel a task and returns its new state.
func (c *Client) CancelTask(ctx context.Context, req *CancelTaskRequest) (*Task, error) {
	var out Task
	if err := c.Call(ctx, "CancelTask", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SubscribeToTask streams a running task's events, starting with the Task.
func (c *Client) SubscribeToTask(ctx context.Context, req *SubscribeToTaskRequest) iter.Seq2[*StreamResponse, error] {
	return c.Stream(ctx, "SubscribeToTask", req)
}

// CreateTaskPushNotificationConfig sets a push notification target for a task.
func (c *Client) CreateTaskPushNotificationConfig(ctx context.Context, req *TaskPushNotificationConfig) (*TaskPushNotificationConfig, error) {
	var out TaskPushNotificationConfig
	if err := c.Call(ctx, "CreateTaskPushNotificationConfig", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetTaskPushNotificationConfig returns one push notification config.
func (c *Client) GetTaskPushNotificationConfig(ctx context.Context, req *TaskPushNotificationConfigRequest) (*TaskPushNotificationConfig, error) {
	var out TaskPushNotificationConfig
	if err := c.Call(ctx, "GetTaskPushNotificationConfig", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListTaskPushNotificationConfigs lists a task's push notification configs.
func (c *Client) ListTaskPushNotificationConfigs(ctx context.Context, req *ListTaskPushNotificationConfigsRequest) (*ListTaskPushNotificationConfigsResponse, error) {
	var out ListTaskPushNotificationConfigsResponse
	if err := c.Call(ctx, "ListTaskPushNotificationConfigs", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteTaskPushNotificationConfig removes a push notification config.
func (c *Client) DeleteTaskPushNotificationConfig(ctx context.Context, req *TaskPushNotificationConfigRequest) error {
	return c.Call(ctx, "DeleteTaskPushNotificationConfig", req, nil)
}

// GetExtendedAgentCard returns the card an authenticated client may see.
func (c *Client) GetExtendedAgentCard(ctx context.Context) (*AgentCard, error) {
	var out AgentCard
	if err := c.Call(ctx, "GetExtendedAgentCard", &GetExtendedAgentCardRequest{}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
