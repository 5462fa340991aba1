package devagent

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"aimdesk/app/a2a"
	"aimdesk/app/a2a/rest"
)

// PathREST is the base of the HTTP+JSON interface (A2A v1.0 §11).
const PathREST = "/a2a/rest"

// restWriter answers a method in the HTTP+JSON binding: results as bare
// ProtoJSON, errors as google.rpc.Status (rest.EncodeError), streams as
// SSE of bare StreamResponse objects.
type restWriter struct {
	http.ResponseWriter
}

func (w *restWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *restWriter) sse() bool { return true }

func (w *restWriter) result(raw []byte) {
	w.Header().Set("Content-Type", rest.ContentType)
	_, _ = w.Write(raw)
}

func (w *restWriter) fail(e *a2a.RPCError) {
	status, b := rest.EncodeError(e)
	w.Header().Set("Content-Type", rest.ContentType)
	w.WriteHeader(status)
	_, _ = w.Write(b) // #nosec G705 -- a JSON error body served as application/json, never HTML
}

func (w *restWriter) event([]byte) error { return nil } // unused: sse() is true

// restRoute is a parsed HTTP+JSON request: the method and its params as
// the JSON-RPC binding would carry them.
type restRoute struct {
	method string
	fields map[string]any // from the path and the query
	body   bool           // the request has a JSON body (body "*")
}

// matchREST maps the path segments under PathREST and the verb to a
// method, per the google.api.http options of a2a.proto. Path fields go
// into fields.
func matchREST(verb string, segs []string) *restRoute {
	switch {
	case len(segs) == 1:
		return matchRESTTop(verb, segs[0])
	case len(segs) == 2 && segs[0] == "tasks":
		return matchRESTTask(verb, segs[1])
	case len(segs) == 3 && segs[0] == "tasks" && segs[2] == "pushNotificationConfigs":
		return matchRESTPushList(verb, segs[1])
	case len(segs) == 4 && segs[0] == "tasks" && segs[2] == "pushNotificationConfigs":
		return matchRESTPush(verb, segs[1], segs[3])
	}
	return nil
}

// newRESTRoute is the route of method m with the path fields kv (name,
// escaped value, ...); nil if a value does not unescape.
func newRESTRoute(m string, body bool, kv ...string) *restRoute {
	f := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		v, err := url.PathUnescape(kv[i+1])
		if err != nil {
			return nil
		}
		f[kv[i]] = v
	}
	return &restRoute{method: m, fields: f, body: body}
}

// matchRESTTop matches /message:send, /message:stream, /tasks and
// /extendedAgentCard.
func matchRESTTop(verb, seg string) *restRoute {
	switch {
	case verb == http.MethodPost && seg == "message:send":
		return newRESTRoute("SendMessage", true)
	case verb == http.MethodPost && seg == "message:stream":
		return newRESTRoute("SendStreamingMessage", true)
	case verb == http.MethodGet && seg == "tasks":
		return newRESTRoute("ListTasks", false)
	case verb == http.MethodGet && seg == "extendedAgentCard":
		return newRESTRoute("GetExtendedAgentCard", false)
	}
	return nil
}

// matchRESTTask matches /tasks/{id} and its custom verbs.
func matchRESTTask(verb, seg string) *restRoute {
	id, custom, hasCustom := cutCustomVerb(seg)
	switch {
	case !hasCustom && verb == http.MethodGet:
		return newRESTRoute("GetTask", false, "id", id)
	case custom == "cancel" && verb == http.MethodPost:
		return newRESTRoute("CancelTask", true, "id", id)
	// a2a.proto routes :subscribe as GET; §11.3.2 of the text says POST: take both.
	case custom == "subscribe" && (verb == http.MethodGet || verb == http.MethodPost):
		return newRESTRoute("SubscribeToTask", false, "id", id)
	}
	return nil
}

// matchRESTPushList matches /tasks/{taskId}/pushNotificationConfigs.
func matchRESTPushList(verb, taskID string) *restRoute {
	switch verb {
	case http.MethodPost:
		return newRESTRoute("CreateTaskPushNotificationConfig", true, "taskId", taskID)
	case http.MethodGet:
		return newRESTRoute("ListTaskPushNotificationConfigs", false, "taskId", taskID)
	}
	return nil
}

// matchRESTPush matches /tasks/{taskId}/pushNotificationConfigs/{id}.
func matchRESTPush(verb, taskID, id string) *restRoute {
	switch verb {
	case http.MethodGet:
		return newRESTRoute("GetTaskPushNotificationConfig", false, "taskId", taskID, "id", id)
	case http.MethodDelete:
		return newRESTRoute("DeleteTaskPushNotificationConfig", false, "taskId", taskID, "id", id)
	}
	return nil
}

// cutCustomVerb splits "id:verb" at the last colon (google.api.http's
// custom verb); an id may itself contain colons.
func cutCustomVerb(s string) (id, verb string, ok bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, "", false
	}
	switch s[i+1:] {
	case "cancel", "subscribe":
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

// queryFields are the query parameters each GET method takes, with their
// JSON kinds (A2A v1.0 §11.5: camelCase names, numbers and booleans as
// decimal and lowercase strings).
var queryFields = map[string]map[string]byte{
	"GetTask": {"historyLength": 'n'},
	"ListTasks": {
		"contextId": 's', "status": 's', "pageSize": 'n', "pageToken": 's', "historyLength": 'n',
		"statusTimestampAfter": 's', "includeArtifacts": 'b',
	},
	"ListTaskPushNotificationConfigs": {"pageSize": 'n', "pageToken": 's'},
}

// serveREST serves the HTTP+JSON interface by turning each request into
// the call the JSON-RPC interface would get, so both behave the same.
func (h *Handler) serveREST(w http.ResponseWriter, r *http.Request) {
	rw := &restWriter{ResponseWriter: w}
	sub := strings.TrimPrefix(r.URL.EscapedPath(), PathREST)
	// Segments stay escaped while matching, so an escaped colon in an id
	// is not a custom verb; matchREST unescapes the values it takes.
	segs := strings.Split(strings.Trim(sub, "/"), "/")
	route := matchTenantREST(r.Method, segs)
	if route == nil {
		rw.fail(rpcErrorf(a2a.CodeMethodNotFound, "no A2A method at %s %s", r.Method, r.URL.Path))
		return
	}
	params, rerr := restBody(r, route)
	if rerr == nil {
		rerr = route.addQuery(r.URL.Query())
	}
	if rerr != nil {
		rw.fail(rerr)
		return
	}
	for k, v := range route.fields {
		b, _ := json.Marshal(v)
		params[k] = b
	}
	p, err := json.Marshal(params)
	if err != nil {
		rw.fail(rpcErrorf(a2a.CodeInternalError, "encode params: %v", err))
		return
	}
	if r.Header.Get("A2A-Version") == "" && r.URL.Query().Get("A2A-Version") != "" {
		r.Header.Set("A2A-Version", r.URL.Query().Get("A2A-Version"))
	}
	h.serveMethod(rw, r, newCall(route.method, p))
}

// matchTenantREST matches a request's path segments with or without a
// tenant first (/{tenant}/…), which goes into the route's fields.
func matchTenantREST(verb string, segs []string) *restRoute {
	route := matchREST(verb, segs)
	if route != nil || len(segs) <= 1 {
		return route
	}
	if route = matchREST(verb, segs[1:]); route != nil {
		tenant, err := url.PathUnescape(segs[0])
		if err != nil {
			return nil
		}
		route.fields["tenant"] = tenant
	}
	return route
}

// restBody reads the JSON object of a route that takes a body; empty
// params for one without, or with an empty body.
func restBody(r *http.Request, route *restRoute) (map[string]json.RawMessage, *a2a.RPCError) {
	params := map[string]json.RawMessage{}
	if !route.body {
		return params, nil
	}
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := json.Unmarshal(body, &params); err != nil {
			return nil, rpcErrorf(a2a.CodeParseError, "the request body is not a JSON object: %v", err)
		}
	}
	return params, nil
}

// addQuery adds the query parameters the route's method takes to its
// fields, typed per queryFields (the last value of a repeated one).
func (route *restRoute) addQuery(query url.Values) *a2a.RPCError {
	kinds := queryFields[route.method]
	for name, vals := range query {
		if name == "A2A-Version" {
			continue
		}
		kind, ok := kinds[name]
		if !ok {
			return rpcErrorf(a2a.CodeInvalidParams, "unknown query parameter %q for %s", name, route.method)
		}
		v, err := queryValue(kind, name, vals[len(vals)-1])
		if err != nil {
			return err
		}
		route.fields[name] = v
	}
	return nil
}

// queryValue is a query parameter's value as its JSON kind: 'n' an
// integer, 'b' a boolean, else a string.
func queryValue(kind byte, name, v string) (any, *a2a.RPCError) {
	switch kind {
	case 'n':
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return nil, rpcErrorf(a2a.CodeInvalidParams, "query parameter %s=%q is not an integer", name, v)
		}
		return n, nil
	case 'b':
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, rpcErrorf(a2a.CodeInvalidParams, "query parameter %s=%q is not true or false", name, v)
		}
		return b, nil
	}
	return v, nil
}

// readBody reads a request body within maxRequestBytes.
func readBody(r *http.Request) ([]byte, *a2a.RPCError) {
	body, err := readLimited(r)
	if err != nil {
		return nil, rpcErrorf(a2a.CodeParseError, "could not read the request body: %v", err)
	}
	if len(body) > maxRequestBytes {
		return nil, rpcErrorf(a2a.CodeInvalidRequest, "the request is over %d bytes", maxRequestBytes)
	}
	return body, nil
}

// newCall builds the call another binding's request stands for, with the
// JSON-RPC request the AIM schema validates.
func newCall(method string, params json.RawMessage) *call {
	m, _ := json.Marshal(method)
	body := make([]byte, 0, len(params)+len(m)+40)
	body = append(body, `{"jsonrpc":"2.0","id":1,"method":`...)
	body = append(body, m...)
	body = append(body, `,"params":`...)
	body = append(body, params...)
	body = append(body, '}')
	return &call{id: json.RawMessage("1"), method: method, params: params, body: body, plainAnswers: true}
}
