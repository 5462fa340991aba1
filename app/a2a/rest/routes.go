package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"aimdesk/app/a2a"
)

// Route is one HTTP request of a method: verb, path (under the interface
// URL, tenant prefix included), query and body.
type Route struct {
	Verb  string
	Path  string
	Query url.Values
	Body  []byte // nil for GET and DELETE
}

// seg escapes one path segment ({id=*} matches exactly one). A colon is
// escaped too, so an id cannot end in what reads as a custom verb
// (":cancel").
func seg(s string) string { return strings.ReplaceAll(url.PathEscape(s), ":", "%3A") }

func prefix(tenant string) string {
	if tenant == "" {
		return ""
	}
	return "/" + seg(tenant)
}

func setInt(q url.Values, name string, v *int) {
	if v != nil {
		q.Set(name, strconv.Itoa(*v))
	}
}

// RouteFor builds the request of a v1.0 method with its (tenant-filled)
// params, per the google.api.http options of a2a.proto.
func RouteFor(method string, params any) (*Route, error) {
	q := url.Values{}
	switch p := params.(type) {
	case *a2a.SendMessageRequest:
		verb := "/message:send"
		if method == "SendStreamingMessage" {
			verb = "/message:stream"
		} else if method != "SendMessage" {
			break
		}
		body := *p
		body.Tenant = ""
		b, err := json.Marshal(&body)
		return &Route{Verb: http.MethodPost, Path: prefix(p.Tenant) + verb, Body: b}, err
	case *a2a.GetTaskRequest:
		if p.ID == "" {
			return nil, fmt.Errorf("%w: id is required", a2a.ErrInvalidParams)
		}
		setInt(q, "historyLength", p.HistoryLength)
		return &Route{Verb: http.MethodGet, Path: prefix(p.Tenant) + "/tasks/" + seg(p.ID), Query: q}, nil
	case *a2a.ListTasksRequest:
		if p.ContextID != "" {
			q.Set("contextId", p.ContextID)
		}
		if p.Status != "" {
			q.Set("status", string(p.Status))
		}
		setInt(q, "pageSize", p.PageSize)
		if p.PageToken != "" {
			q.Set("pageToken", p.PageToken)
		}
		setInt(q, "historyLength", p.HistoryLength)
		if p.StatusTimestampAfter != nil {
			q.Set("statusTimestampAfter", p.StatusTimestampAfter.UTC().Format(time.RFC3339Nano))
		}
		if p.IncludeArtifacts {
			q.Set("includeArtifacts", "true")
		}
		return &Route{Verb: http.MethodGet, Path: prefix(p.Tenant) + "/tasks", Query: q}, nil
	case *a2a.CancelTaskRequest:
		if p.ID == "" {
			return nil, fmt.Errorf("%w: id is required", a2a.ErrInvalidParams)
		}
		b, err := json.Marshal(struct {
			Metadata a2a.Metadata `json:"metadata,omitempty"`
		}{p.Metadata})
		return &Route{Verb: http.MethodPost, Path: prefix(p.Tenant) + "/tasks/" + seg(p.ID) + ":cancel", Body: b}, err
	case *a2a.SubscribeToTaskRequest:
		if p.ID == "" {
			return nil, fmt.Errorf("%w: id is required", a2a.ErrInvalidParams)
		}
		return &Route{Verb: http.MethodGet, Path: prefix(p.Tenant) + "/tasks/" + seg(p.ID) + ":subscribe"}, nil
	case *a2a.TaskPushNotificationConfig:
		if p.TaskID == "" {
			return nil, fmt.Errorf("%w: taskId is required", a2a.ErrInvalidParams)
		}
		body := *p
		body.Tenant, body.TaskID = "", ""
		b, err := json.Marshal(&body)
		return &Route{Verb: http.MethodPost, Path: prefix(p.Tenant) + "/tasks/" + seg(p.TaskID) + "/pushNotificationConfigs", Body: b}, err
	case *a2a.TaskPushNotificationConfigRequest:
		if p.TaskID == "" || p.ID == "" {
			return nil, fmt.Errorf("%w: taskId and id are required", a2a.ErrInvalidParams)
		}
		verb := http.MethodGet
		if method == "DeleteTaskPushNotificationConfig" {
			verb = http.MethodDelete
		}
		return &Route{Verb: verb, Path: prefix(p.Tenant) + "/tasks/" + seg(p.TaskID) + "/pushNotificationConfigs/" + seg(p.ID)}, nil
	case *a2a.ListTaskPushNotificationConfigsRequest:
		if p.TaskID == "" {
			return nil, fmt.Errorf("%w: taskId is required", a2a.ErrInvalidParams)
		}
		setInt(q, "pageSize", p.PageSize)
		if p.PageToken != "" {
			q.Set("pageToken", p.PageToken)
		}
		return &Route{Verb: http.MethodGet, Path: prefix(p.Tenant) + "/tasks/" + seg(p.TaskID) + "/pushNotificationConfigs", Query: q}, nil
	case *a2a.GetExtendedAgentCardRequest:
		return &Route{Verb: http.MethodGet, Path: prefix(p.Tenant) + "/extendedAgentCard"}, nil
	}
	return nil, fmt.Errorf("%w: %s", a2a.ErrNotSupportedByBinding, method)
}

// URL joins the interface URL and the route.
func (r *Route) URL(base string) string {
	u := strings.TrimSuffix(base, "/") + r.Path
	if len(r.Query) > 0 {
		u += "?" + r.Query.Encode()
	}
	return u
}

// String is "VERB /path?query", for the console.
func (r *Route) String() string {
	s := r.Verb + " " + r.Path
	if len(r.Query) > 0 {
		s += "?" + r.Query.Encode()
	}
	return s
}
