package devagent

import (
	"net/http"
	"strings"
	"testing"

	"aimdesk/app/a2a"
)

// Over HTTP+JSON and gRPC there is no ContinueTask: a message with the
// task's id answers an input requirement, and an approval is refused.
func TestAnswerWithoutContinueTask(t *testing.T) {
	a := newAgent(t, fast())
	for _, b := range []string{a2a.BindingHTTPJSON, a2a.BindingGRPC} {
		t.Run(b, func(t *testing.T) {
			c := a.client(b)
			task := send(t, c, "ask", nil)
			if task.Status.State != a2a.TaskStateInputRequired {
				t.Fatalf("state %s", task.Status.State)
			}
			m := userMsg("Ada")
			m.TaskID, m.ContextID = task.ID, task.ContextID
			evs := collect(t, c.SendStreamingMessage(ctxT(t), &a2a.SendMessageRequest{Message: m}))
			last := evs[len(evs)-1]
			if last.StatusUpdate == nil || last.StatusUpdate.Status.State != a2a.TaskStateCompleted || last.StatusUpdate.TaskID != task.ID {
				t.Fatalf("last event %+v", last)
			}
			conf := send(t, c, "confirm", nil)
			m = userMsg("approve")
			m.TaskID = conf.ID
			_, err := c.SendMessage(ctxT(t), &a2a.SendMessageRequest{Message: m})
			wantCode(t, err, a2a.CodeUnsupportedOperation)
		})
	}
}

// The HTTP+JSON interface: routes and query parameters as a2a.proto's
// google.api.http options name them, errors as google.rpc.Status with an
// A2A ErrorInfo.
func TestRESTWire(t *testing.T) {
	a := newAgent(t, fast())
	task := send(t, a.rest, "slow", nil)
	get := func(path string, hdr map[string]string) (*http.Response, string) {
		req, _ := http.NewRequestWithContext(ctxT(t), http.MethodGet, a.srv.URL+PathREST+path, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := a.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return resp, b.String()
	}
	tests := []struct {
		name, path string
		hdr        map[string]string
		status     int
		contains   string
	}{
		{"task with history length", "/tasks/" + task.ID + "?historyLength=1", v1Headers, 200, `"id":"` + task.ID + `"`},
		{"tenant prefix", "/acme/tasks/" + task.ID, v1Headers, 200, `"status"`},
		{"version as a query parameter", "/tasks/" + task.ID + "?A2A-Version=1.0", nil, 200, `"id"`},
		{"list with filters", "/tasks?pageSize=1&status=TASK_STATE_COMPLETED&includeArtifacts=true", v1Headers, 200, `"totalSize"`},
		{"missing task", "/tasks/nope", v1Headers, 404, `"reason":"TASK_NOT_FOUND"`},
		{"no version", "/tasks/" + task.ID, nil, 400, `"reason":"VERSION_NOT_SUPPORTED"`},
		{"bad number", "/tasks?pageSize=many", v1Headers, 400, `"status":"INVALID_ARGUMENT"`},
		{"unknown query parameter", "/tasks?colour=red", v1Headers, 400, "colour"},
		{"no such route", "/nothing/here/at/all", v1Headers, 404, `"reason":"METHOD_NOT_FOUND"`},
		{"extended card not configured", "/extendedAgentCard", v1Headers, 400, `"reason":"EXTENDED_AGENT_CARD_NOT_CONFIGURED"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := get(tt.path, tt.hdr)
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.contains) {
				t.Fatalf("GET %s = %d %s; want %d with %s", tt.path, resp.StatusCode, body, tt.status, tt.contains)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/a2a+json") {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
}
