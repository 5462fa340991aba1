package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"

	"aimdesk/app/a2a"
	"aimdesk/app/a2a/a2apb"
	"aimdesk/app/a2a/rest"
)

// requests is one request of every method, with the path fields set.
func requests(tenant string) map[string]any {
	return map[string]any{
		"SendMessage":                      &a2a.SendMessageRequest{Tenant: tenant},
		"SendStreamingMessage":             &a2a.SendMessageRequest{Tenant: tenant},
		"GetTask":                          &a2a.GetTaskRequest{Tenant: tenant, ID: "T1"},
		"ListTasks":                        &a2a.ListTasksRequest{Tenant: tenant},
		"CancelTask":                       &a2a.CancelTaskRequest{Tenant: tenant, ID: "T1"},
		"SubscribeToTask":                  &a2a.SubscribeToTaskRequest{Tenant: tenant, ID: "T1"},
		"CreateTaskPushNotificationConfig": &a2a.TaskPushNotificationConfig{Tenant: tenant, TaskID: "T2", URL: "https://x"},
		"GetTaskPushNotificationConfig":    &a2a.TaskPushNotificationConfigRequest{Tenant: tenant, TaskID: "T2", ID: "C1"},
		"ListTaskPushNotificationConfigs":  &a2a.ListTaskPushNotificationConfigsRequest{Tenant: tenant, TaskID: "T2"},
		"DeleteTaskPushNotificationConfig": &a2a.TaskPushNotificationConfigRequest{Tenant: tenant, TaskID: "T2", ID: "C1"},
		"GetExtendedAgentCard":             &a2a.GetExtendedAgentCardRequest{Tenant: tenant},
	}
}

// rulePath is an HttpRule's verb and path with the fields filled in.
func rulePath(r *annotations.HttpRule) (string, string) {
	var verb, path string
	switch p := r.GetPattern().(type) {
	case *annotations.HttpRule_Get:
		verb, path = http.MethodGet, p.Get
	case *annotations.HttpRule_Post:
		verb, path = http.MethodPost, p.Post
	case *annotations.HttpRule_Delete:
		verb, path = http.MethodDelete, p.Delete
	case *annotations.HttpRule_Put:
		verb, path = http.MethodPut, p.Put
	case *annotations.HttpRule_Patch:
		verb, path = http.MethodPatch, p.Patch
	}
	path = strings.NewReplacer("{id=*}", "T1", "{task_id=*}", "T2", "{tenant}", "ten").Replace(path)
	path = strings.Replace(path, "pushNotificationConfigs/T1", "pushNotificationConfigs/C1", 1)
	return verb, path
}

// Every method's route is the one the google.api.http options of the A2A
// proto name (read from the descriptor generated from it), with and
// without the tenant prefix, and bodies go with body "*" only.
func TestRoutesMatchProto(t *testing.T) {
	svc := a2apb.File_lf_a2a_v1_a2a_proto.Services().ByName("A2AService")
	methods := svc.Methods()
	if methods.Len() != len(requests("")) {
		t.Fatalf("the proto has %d methods, the test %d", methods.Len(), len(requests("")))
	}
	for i := 0; i < methods.Len(); i++ {
		m := methods.Get(i)
		name := string(m.Name())
		rule, ok := proto.GetExtension(m.Options(), annotations.E_Http).(*annotations.HttpRule)
		if !ok || rule == nil || len(rule.GetAdditionalBindings()) != 1 {
			t.Fatalf("%s: no google.api.http rule with a tenant binding", name)
		}
		for _, tc := range []struct {
			tenant string
			rule   *annotations.HttpRule
		}{{"", rule}, {"ten", rule.GetAdditionalBindings()[0]}} {
			route, err := rest.RouteFor(name, requests(tc.tenant)[name])
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			verb, path := rulePath(tc.rule)
			if route.Verb != verb || route.Path != path {
				t.Errorf("%s (tenant %q): %s %s, proto says %s %s", name, tc.tenant, route.Verb, route.Path, verb, path)
			}
			if (route.Body != nil) != (tc.rule.GetBody() == "*") {
				t.Errorf("%s: body %q, proto body %q", name, route.Body, tc.rule.GetBody())
			}
			if strings.Contains(string(route.Body), `"tenant"`) || strings.Contains(string(route.Body), `"T2"`) {
				t.Errorf("%s: a path field is in the body too: %s", name, route.Body)
			}
		}
	}
	if _, err := rest.RouteFor("ContinueTask", &a2a.ContinueTaskRequest{}); err == nil {
		t.Error("ContinueTask (AIM, JSON-RPC only) got a route")
	}
}

func TestQueryParameters(t *testing.T) {
	n := 5
	r, err := rest.RouteFor("ListTasks", &a2a.ListTasksRequest{
		ContextID: "c 1", Status: a2a.TaskStateWorking, PageSize: &n, PageToken: "p", HistoryLength: &n, IncludeArtifacts: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "GET /tasks?contextId=c+1&historyLength=5&includeArtifacts=true&pageSize=5&pageToken=p&status=TASK_STATE_WORKING"
	if r.String() != want {
		t.Errorf("%s\nwant %s", r, want)
	}
	r, _ = rest.RouteFor("GetTask", &a2a.GetTaskRequest{ID: "a/b:c", HistoryLength: &n})
	if got := r.URL("http://h/a2a/rest/"); got != "http://h/a2a/rest/tasks/a%2Fb%3Ac?historyLength=5" {
		t.Errorf("URL %s", got)
	}
}
