package a2a

import (
	"encoding/json"
	"time"
)

// Role is who sent a message, with the v1.0 wire spelling.
type Role string

// Roles.
const (
	RoleUnspecified Role = "ROLE_UNSPECIFIED"
	RoleUser        Role = "ROLE_USER"
	RoleAgent       Role = "ROLE_AGENT"
)

func (r Role) String() string { return string(r) }

// TaskState is a task's lifecycle state, with the v1.0 wire spelling.
// Unknown values are kept as received.
type TaskState string

// Task states.
const (
	TaskStateUnspecified   TaskState = "TASK_STATE_UNSPECIFIED"
	TaskStateSubmitted     TaskState = "TASK_STATE_SUBMITTED"
	TaskStateWorking       TaskState = "TASK_STATE_WORKING"
	TaskStateCompleted     TaskState = "TASK_STATE_COMPLETED"
	TaskStateFailed        TaskState = "TASK_STATE_FAILED"
	TaskStateCanceled      TaskState = "TASK_STATE_CANCELED"
	TaskStateInputRequired TaskState = "TASK_STATE_INPUT_REQUIRED"
	TaskStateRejected      TaskState = "TASK_STATE_REJECTED"
	TaskStateAuthRequired  TaskState = "TASK_STATE_AUTH_REQUIRED"
)

func (s TaskState) String() string { return string(s) }

// Terminal reports whether no further change can happen to a task in state s.
func (s TaskState) Terminal() bool {
	switch s {
	case TaskStateCompleted, TaskStateFailed, TaskStateCanceled, TaskStateRejected:
		return true
	}
	return false
}

// Interrupted reports whether the task waits for the user.
func (s TaskState) Interrupted() bool {
	return s == TaskStateInputRequired || s == TaskStateAuthRequired
}

// Label is a short human word for the state, for the UI and the CLI.
func (s TaskState) Label() string {
	switch s {
	case TaskStateSubmitted:
		return "submitted"
	case TaskStateWorking:
		return "working"
	case TaskStateCompleted:
		return "completed"
	case TaskStateFailed:
		return "failed"
	case TaskStateCanceled:
		return "canceled"
	case TaskStateInputRequired:
		return "input required"
	case TaskStateRejected:
		return "rejected"
	case TaskStateAuthRequired:
		return "auth required"
	case "", TaskStateUnspecified:
		return "unknown"
	}
	return string(s)
}

// Metadata is a JSON object whose values are decoded on demand.
type Metadata map[string]json.RawMessage

// Message is one unit of communication between a client and an agent.
type Message struct {
	MessageID        string   `json:"messageId"`
	ContextID        string   `json:"contextId,omitempty"`
	TaskID           string   `json:"taskId,omitempty"`
	Role             Role     `json:"role"`
	Parts            []Part   `json:"parts"`
	Metadata         Metadata `json:"metadata,omitempty"`
	Extensions       []string `json:"extensions,omitempty"`
	ReferenceTaskIDs []string `json:"referenceTaskIds,omitempty"`
}

// TaskStatus is a task's state, with an optional message and time.
type TaskStatus struct {
	State     TaskState  `json:"state"`
	Message   *Message   `json:"message,omitempty"`
	Timestamp *time.Time `json:"timestamp,omitempty"`
}

// Task is A2A's unit of work.
type Task struct {
	ID        string     `json:"id"`
	ContextID string     `json:"contextId,omitempty"`
	Status    TaskStatus `json:"status"`
	Artifacts []Artifact `json:"artifacts,omitempty"`
	History   []Message  `json:"history,omitempty"`
	Metadata  Metadata   `json:"metadata,omitempty"`
}

// Artifact is an output of a task.
type Artifact struct {
	ArtifactID  string   `json:"artifactId"`
	Name        string   `json:"name,omitempty"`
	Description string   `json:"description,omitempty"`
	Parts       []Part   `json:"parts"`
	Metadata    Metadata `json:"metadata,omitempty"`
	Extensions  []string `json:"extensions,omitempty"`
}

// TaskStatusUpdateEvent tells that a task's status changed.
type TaskStatusUpdateEvent struct {
	TaskID    string     `json:"taskId"`
	ContextID string     `json:"contextId"`
	Status    TaskStatus `json:"status"`
	Metadata  Metadata   `json:"metadata,omitempty"`
	// Final is v0.3's end-of-stream flag; v1.0 ends a stream with a terminal
	// or interrupted state instead. Kept so v0.3 maps losslessly.
	Final bool `json:"final,omitempty"`
}

// TaskArtifactUpdateEvent carries a new artifact or a chunk of one.
type TaskArtifactUpdateEvent struct {
	TaskID    string   `json:"taskId"`
	ContextID string   `json:"contextId"`
	Artifact  Artifact `json:"artifact"`
	Append    bool     `json:"append,omitempty"`
	LastChunk bool     `json:"lastChunk,omitempty"`
	Metadata  Metadata `json:"metadata,omitempty"`
}

// SendMessageConfiguration tunes a SendMessage request.
type SendMessageConfiguration struct {
	AcceptedOutputModes        []string                    `json:"acceptedOutputModes,omitempty"`
	TaskPushNotificationConfig *TaskPushNotificationConfig `json:"taskPushNotificationConfig,omitempty"`
	HistoryLength              *int                        `json:"historyLength,omitempty"`
	ReturnImmediately          bool                        `json:"returnImmediately,omitempty"`
}

// SendMessageRequest is the params of SendMessage and SendStreamingMessage.
type SendMessageRequest struct {
	Tenant        string                    `json:"tenant,omitempty"`
	Message       Message                   `json:"message"`
	Configuration *SendMessageConfiguration `json:"configuration,omitempty"`
	Metadata      Metadata                  `json:"metadata,omitempty"`
}

// SendMessageResponse is SendMessage's result: exactly one of Task or Message.
type SendMessageResponse struct {
	Task    *Task    `json:"task,omitempty"`
	Message *Message `json:"message,omitempty"`
}

// StreamResponse is one event of a stream: exactly one field is set.
type StreamResponse struct {
	Task           *Task                    `json:"task,omitempty"`
	Message        *Message                 `json:"message,omitempty"`
	StatusUpdate   *TaskStatusUpdateEvent   `json:"statusUpdate,omitempty"`
	ArtifactUpdate *TaskArtifactUpdateEvent `json:"artifactUpdate,omitempty"`
}

// TaskID is the task the event belongs to, or "" for a lone message.
func (e *StreamResponse) TaskID() string {
	switch {
	case e.Task != nil:
		return e.Task.ID
	case e.StatusUpdate != nil:
		return e.StatusUpdate.TaskID
	case e.ArtifactUpdate != nil:
		return e.ArtifactUpdate.TaskID
	case e.Message != nil:
		return e.Message.TaskID
	}
	return ""
}

// Kind names the set field, for logs and the console.
func (e *StreamResponse) Kind() string {
	switch {
	case e.Task != nil:
		return "task"
	case e.Message != nil:
		return "message"
	case e.StatusUpdate != nil:
		return "statusUpdate"
	case e.ArtifactUpdate != nil:
		return "artifactUpdate"
	}
	return "empty"
}

// GetTaskRequest is the params of GetTask.
type GetTaskRequest struct {
	Tenant        string `json:"tenant,omitempty"`
	ID            string `json:"id"`
	HistoryLength *int   `json:"historyLength,omitempty"`
}

// CancelTaskRequest is the params of CancelTask.
type CancelTaskRequest struct {
	Tenant   string   `json:"tenant,omitempty"`
	ID       string   `json:"id"`
	Metadata Metadata `json:"metadata,omitempty"`
}

// SubscribeToTaskRequest is the params of SubscribeToTask.
type SubscribeToTaskRequest struct {
	Tenant string `json:"tenant,omitempty"`
	ID     string `json:"id"`
}

// ListTasksRequest is the params of ListTasks. Zero fields are not sent.
type ListTasksRequest struct {
	Tenant               string     `json:"tenant,omitempty"`
	ContextID            string     `json:"contextId,omitempty"`
	Status               TaskState  `json:"status,omitempty"`
	PageSize             *int       `json:"pageSize,omitempty"`
	PageToken            string     `json:"pageToken,omitempty"`
	HistoryLength        *int       `json:"historyLength,omitempty"`
	StatusTimestampAfter *time.Time `json:"statusTimestampAfter,omitempty"`
	IncludeArtifacts     bool       `json:"includeArtifacts,omitempty"`
}

// ListTasksResponse is ListTasks' result.
type ListTasksResponse struct {
	Tasks         []Task `json:"tasks"`
	NextPageToken string `json:"nextPageToken"`
	PageSize      int    `json:"pageSize"`
	TotalSize     int    `json:"totalSize"`
}

// ContinueTaskRequest is the params of the AIM method ContinueTask
// (docs/aim-extension.md §1).
type ContinueTaskRequest struct {
	ID              string  `json:"id"`
	RequirementID   string  `json:"requirementId"`
	ExpectedVersion int64   `json:"expectedVersion"`
	ActionDigest    string  `json:"actionDigest"`
	Message         Message `json:"message"`
	HistoryLength   *int    `json:"historyLength,omitempty"`
}

// AuthenticationInfo is push-notification authentication.
type AuthenticationInfo struct {
	Scheme      string `json:"scheme"`
	Credentials string `json:"credentials,omitempty"`
}

// TaskPushNotificationConfig is a push notification target for a task.
type TaskPushNotificationConfig struct {
	Tenant         string              `json:"tenant,omitempty"`
	ID             string              `json:"id,omitempty"`
	TaskID         string              `json:"taskId,omitempty"`
	URL            string              `json:"url"`
	Token          string              `json:"token,omitempty"`
	Authentication *AuthenticationInfo `json:"authentication,omitempty"`
}

// TaskPushNotificationConfigRequest is the params of Get and Delete
// TaskPushNotificationConfig.
type TaskPushNotificationConfigRequest struct {
	Tenant string `json:"tenant,omitempty"`
	TaskID string `json:"taskId"`
	ID     string `json:"id"`
}

// ListTaskPushNotificationConfigsRequest is the params of
// ListTaskPushNotificationConfigs.
type ListTaskPushNotificationConfigsRequest struct {
	Tenant    string `json:"tenant,omitempty"`
	TaskID    string `json:"taskId"`
	PageSize  *int   `json:"pageSize,omitempty"`
	PageToken string `json:"pageToken,omitempty"`
}

// ListTaskPushNotificationConfigsResponse is its result.
type ListTaskPushNotificationConfigsResponse struct {
	Configs       []TaskPushNotificationConfig `json:"configs"`
	NextPageToken string                       `json:"nextPageToken,omitempty"`
}

// GetExtendedAgentCardRequest is the params of GetExtendedAgentCard.
type GetExtendedAgentCardRequest struct {
	Tenant string `json:"tenant,omitempty"`
}
