package auth

import (
	"net/http"
	"slices"
	"testing"
)

func TestScopesFromSchema(t *testing.T) {
	m, err := MethodScopes()
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 14 {
		t.Errorf("the schema maps %d methods, want 14", len(m))
	}
	for _, tc := range []struct{ method, scope string }{
		{"SendMessage", "a2a.invoke"},
		{"SendStreamingMessage", "a2a.invoke"},
		{"ContinueTask", "a2a.invoke"},
		{"GetTask", "a2a.tasks.read"},
		{"ListTasks", "a2a.tasks.read"},
		{"SubscribeToTask", "a2a.tasks.read"},
		{"CancelTask", "a2a.tasks.cancel"},
		{"aim.realtime.JoinSession", "a2a.invoke"},
		{"aim.realtime.GetOperation", "a2a.tasks.read"},
	} {
		t.Run(tc.method, func(t *testing.T) {
			if got, ok := ScopeFor(tc.method); !ok || got != tc.scope {
				t.Errorf("ScopeFor(%s) = %q, %v; want %q", tc.method, got, ok, tc.scope)
			}
		})
	}
	if _, ok := ScopeFor("GetExtendedAgentCard"); ok {
		t.Error("GetExtendedAgentCard has no scope in the schema")
	}
	if got := ScopesFor(DefaultMethods...); !slices.Equal(got, []string{"a2a.invoke", "a2a.tasks.read"}) {
		t.Errorf("default scopes %v", got)
	}
}

func TestDescribe(t *testing.T) {
	for _, tc := range []struct{ scope, method, want string }{
		{"a2a.tasks.cancel", "CancelTask", "a2a.tasks.cancel — needed to cancel a task"},
		{"a2a.invoke", "SendMessage", "a2a.invoke — needed to send a message"},
		{"a2a.tasks.read", "", "a2a.tasks.read — needed to read tasks"},
		{"corp.admin", "CancelTask", "corp.admin — asked for by the agent to cancel a task"},
		{"corp.admin", "", "corp.admin — asked for by the agent"},
	} {
		if got := Describe(tc.scope, tc.method).String(); got != tc.want {
			t.Errorf("Describe(%s, %s) = %q, want %q", tc.scope, tc.method, got, tc.want)
		}
	}
}

func TestParseChallenges(t *testing.T) {
	for _, tc := range []struct {
		name, header string
		want         []Challenge
	}{
		{
			"insufficient", `Bearer realm="a", error="insufficient_scope", scope="a2a.tasks.cancel a2a.tasks.read"`,
			[]Challenge{{"bearer", map[string]string{"realm": "a", "error": "insufficient_scope", "scope": "a2a.tasks.cancel a2a.tasks.read"}}},
		},
		{
			"two challenges", `Basic realm="x", Bearer error=invalid_token, error_description="expired \"now\""`,
			[]Challenge{{"basic", map[string]string{"realm": "x"}}, {"bearer", map[string]string{"error": "invalid_token", "error_description": `expired "now"`}}},
		},
		{
			"token68", `Negotiate abc==, Bearer scope="x"`,
			[]Challenge{{"negotiate", map[string]string{"abc": ""}}, {"bearer", map[string]string{"scope": "x"}}},
		},
		{"unterminated", `Bearer scope="a2a.invoke`, []Challenge{{"bearer", map[string]string{"scope": "a2a.invoke"}}}},
		{"garbage", `=,,"",=`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			h.Add("WWW-Authenticate", tc.header)
			got := ParseChallenges(h)
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i].Scheme != tc.want[i].Scheme || len(got[i].Params) != len(tc.want[i].Params) {
					t.Fatalf("got %+v, want %+v", got, tc.want)
				}
				for k, v := range tc.want[i].Params {
					if got[i].Params[k] != v {
						t.Errorf("%s = %q, want %q", k, got[i].Params[k], v)
					}
				}
			}
		})
	}
}

func FuzzParseChallenges(f *testing.F) {
	f.Add(`Bearer realm="a", error="insufficient_scope", scope="x y"`)
	f.Add(`Basic realm="x", Bearer error=invalid_token`)
	f.Fuzz(func(t *testing.T, s string) {
		h := http.Header{}
		h.Add("WWW-Authenticate", s)
		_ = ParseChallenges(h)
	})
}

func TestOrigin(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"https://Agent.Example.com/x", "https://agent.example.com:443/y"},
		{"http://127.0.0.1/", "http://127.0.0.1:80"},
	} {
		if Origin(tc.a) != Origin(tc.b) {
			t.Errorf("%s and %s are the same origin", tc.a, tc.b)
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"https://a.example.com", "http://a.example.com"},
		{"http://127.0.0.1:1", "http://127.0.0.1:2"},
		{"http://127.0.0.1:1", "http://localhost:1"},
		{"https://a.example.com", "https://sub.a.example.com"},
	} {
		if Origin(tc.a) == Origin(tc.b) {
			t.Errorf("%s and %s are different origins", tc.a, tc.b)
		}
	}
}
