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

func setString(q url.Values, name, v string) {
	if v != "" {
		q.Set(name, v)
	}
}

// errRequired is the error of params that lack what the path needs.
func errRequired(what string) error {
	return fmt.Errorf("%w: %s", a2a.ErrInvalidParams, what)
}

// RouteFor builds the request of a v1.0 method with its (tenant-filled)
// params, per the google.api.http options of a2a.proto.
func RouteFor(method string, params any) (*Route, error) {
	switch p := params.(type) {
	case *a2a.SendMessageRequest:
		if r, ok, err := sendRoute(method, p); ok {
			return r, err
		}
	case *a2a.GetTaskRequest:
		return getTaskRoute(p)
	case *a2a.ListTasksRequest:
		return listTasksRoute(p), nil
	case *a2a.CancelTaskRequest:
		return cancelTaskRoute(p)
	case *a2a.SubscribeToTaskRequest:
		if p.ID == "" {
			return nil, errRequired("id is required")
		}
		return &Route{Verb: http.MethodGet, Path: prefix(p.Tenant) + "/tasks/" + seg(p.ID) + ":subscribe"}, nil
	case *a2a.TaskPushNotificationConfig:
		return setPushConfigRoute(p)
	case *a2a.TaskPushNotificationConfigRequest:
		return pushConfigRoute(method, p)
	case *a2a.ListTaskPushNotificationConfigsRequest:
		return listPushConfigsRoute(p)
	case *a2a.GetExtendedAgentCardRequest:
		return &Route{Verb: http.MethodGet, Path: prefix(p.Tenant) + "/extendedAgentCard"}, nil
	}
	return nil, fmt.Errorf("%w: %s", a2a.ErrNotSupportedByBinding, method)
}

// sendRoute is the route of SendMessage and SendStreamingMessage; false
// for another method with these params.
func sendRoute(method string, p *a2a.SendMessageRequest) (*Route, bool, error) {
	verb := "/message:send"
	switch method {
	case "SendMessage":
	case "SendStreamingMessage":
		verb = "/message:stream"
	default:
		return nil, false, nil
	}
	body := *p
	body.Tenant = ""
	b, err := json.Marshal(&body)
	return &Route{Verb: http.MethodPost, Path: prefix(p.Tenant) + verb, Body: b}, true, err
}

func getTaskRoute(p *a2a.GetTaskRequest) (*Route, error) {
	if p.ID == "" {
		return nil, errRequired("id is required")
	}
	q := url.Values{}
	setInt(q, "historyLength", p.HistoryLength)
	return &Route{Verb: http.MethodGet, Path: prefix(p.Tenant) + "/tasks/" + seg(p.ID), Query: q}, nil
}

func listTasksRoute(p *a2a.ListTasksRequest) *Route {
	q := url.Values{}
	setString(q, "contextId", p.ContextID)
	setString(q, "status", string(p.Status))
	setInt(q, "pageSize", p.PageSize)
	setString(q, "pageToken", p.PageToken)
	setInt(q, "historyLength", p.HistoryLength)
	if p.StatusTimestampAfter != nil {
		q.Set("statusTimestampAfter", p.StatusTimestampAfter.UTC().Format(time.RFC3339Nano))
	}
	if p.IncludeArtifacts {
		q.Set("includeArtifacts", "true")
	}
	return &Route{Verb: http.MethodGet, Path: prefix(p.Tenant) + "/tasks", Query: q}
}

func cancelTaskRoute(p *a2a.CancelTaskRequest) (*Route, error) {
	if p.ID == "" {
		return nil, errRequired("id is required")
	}
	b, err := json.Marshal(struct {
		Metadata a2a.Metadata `json:"metadata,omitempty"`
	}{p.Metadata})
	return &Route{Verb: http.MethodPost, Path: prefix(p.Tenant) + "/tasks/" + seg(p.ID) + ":cancel", Body: b}, err
}

func setPushConfigRoute(p *a2a.TaskPushNotificationConfig) (*Route, error) {
	if p.TaskID == "" {
		return nil, errRequired("taskId is required")
	}
	body := *p
	body.Tenant, body.TaskID = "", ""
	b, err := json.Marshal(&body)
	return &Route{Verb: http.MethodPost, Path: prefix(p.Tenant) + "/tasks/" + seg(p.TaskID) + "/pushNotificationConfigs", Body: b}, err
}

func pushConfigRoute(method string, p *a2a.TaskPushNotificationConfigRequest) (*Route, error) {
	if p.TaskID == "" || p.ID == "" {
		return nil, errRequired("taskId and id are required")
	}
	verb := http.MethodGet
	if method == "DeleteTaskPushNotificationConfig" {
		verb = http.MethodDelete
	}
	return &Route{Verb: verb, Path: prefix(p.Tenant) + "/tasks/" + seg(p.TaskID) + "/pushNotificationConfigs/" + seg(p.ID)}, nil
}

func listPushConfigsRoute(p *a2a.ListTaskPushNotificationConfigsRequest) (*Route, error) {
	if p.TaskID == "" {
		return nil, errRequired("taskId is required")
	}
	q := url.Values{}
	setInt(q, "pageSize", p.PageSize)
	setString(q, "pageToken", p.PageToken)
	return &Route{Verb: http.MethodGet, Path: prefix(p.Tenant) + "/tasks/" + seg(p.TaskID) + "/pushNotificationConfigs", Query: q}, nil
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
