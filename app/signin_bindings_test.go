package app_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/auth"
	"aimdesk/app/devagent"
)

const (
	testBearer       = "bt-reference-agent-0123456789"
	testAPIKey       = "ak-reference-agent-0123456789"
	testClientID     = "aimdesk-e2e"
	testClientSecret = "cs-reference-agent-0123456789"
)

// agentAuth is the reference agent's sign-in for these tests: all three
// schemes at once, so each case signs in with one of them.
func agentAuth() *devagent.AuthConfig {
	return &devagent.AuthConfig{
		BearerTokens: []string{testBearer}, APIKeys: []string{testAPIKey},
		OAuthClients: map[string]string{testClientID: testClientSecret},
	}
}

// TestSignInOverEveryBinding: the reference agent requires sign-in on
// every binding (HTTP 401 with a WWW-Authenticate challenge on JSON-RPC
// and HTTP+JSON, UNAUTHENTICATED with the challenge as metadata on gRPC).
// Per binding and per way of signing in (a typed-in bearer token, an API
// key in a header, OAuth client credentials from the agent's own token
// endpoint, sent as the authorization header or metadata):
//
//   - signed out, a call fails with the *a2a.HTTPError 401 the UI reads as
//     "sign in" and AuthState.Refused is set;
//   - a wrong token or key fails the same way (the sign-in dialog's "the
//     agent refused this key"; in the chat, the message fails with "the
//     agent asks you to sign in (HTTP 401)"); a wrong client secret fails
//     at the token endpoint;
//   - signed in, chat (a streamed reply), the task list, cancel and
//     subscribe (the core restarted while a task runs follows it again
//     with SubscribeToTask) work;
//   - OAuth: before each of those the agent revokes the access token; the
//     call is refused once, the core gets a new token and makes the call
//     again, and the user sees no error.
func TestSignInOverEveryBinding(t *testing.T) {
	forEachBinding(t, func(t *testing.T, binding string) {
		cases := []struct {
			name         string
			right, wrong auth.SignInRequest
		}{
			{"bearer", auth.SignInRequest{Scheme: devagent.SchemeBearer, Secret: testBearer}, auth.SignInRequest{Scheme: devagent.SchemeBearer, Secret: "bt-not-this-one"}},
			{"api key", auth.SignInRequest{Scheme: devagent.SchemeAPIKey, Secret: testAPIKey}, auth.SignInRequest{Scheme: devagent.SchemeAPIKey, Secret: "ak-not-this-one"}},
			{
				"oauth",
				auth.SignInRequest{Scheme: devagent.SchemeOAuth, Flow: auth.FlowClientCredentials, ClientID: testClientID, ClientSecret: testClientSecret},
				auth.SignInRequest{Scheme: devagent.SchemeOAuth, Flow: auth.FlowClientCredentials, ClientID: testClientID, ClientSecret: "cs-not-this-one"},
			},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				testSignInOver(t, binding, tc.right, tc.wrong)
			})
		}
	})
}

func testSignInOver(t *testing.T, binding string, right, wrong auth.SignInRequest) {
	f := newFixtureWith(t, devagent.HandlerConfig{Auth: agentAuth(), Hooks: devagent.Hooks{StepDelay: 20 * time.Millisecond}}, binding)
	agent := f.agent.Handler()
	oauth := right.Flow == auth.FlowClientCredentials
	a := f.addAgent()
	if a.Interface.ProtocolBinding != binding {
		t.Fatalf("the core chose %s", a.Interface.ProtocolBinding)
	}

	// Signed out.
	refusedBefore := agent.Refusals()
	wantRefused(t, "signed out", f.listTasks(a.ID))
	if agent.Refusals() == refusedBefore {
		t.Fatal("the agent did not see the refused call")
	}
	if st, err := f.core.AuthState(a.ID); err != nil || !st.Refused {
		t.Fatalf("after a refusal while signed out: Refused = %v, %v", st.Refused, err)
	}

	// A wrong credential.
	if err := f.core.SignIn(f.ctx, a.ID, wrong); oauth {
		if !errors.Is(err, auth.ErrProvider) {
			t.Fatalf("sign-in with a wrong client secret: %v", err)
		}
	} else {
		if err != nil {
			t.Fatal(err)
		}
		wantRefused(t, "a wrong "+string(wrong.Flow), f.listTasks(a.ID))
		cv := f.newConversation(a.ID)
		if _, err := f.core.Send(f.ctx, cv.ID, "hello", nil); err != nil {
			t.Fatal(err)
		}
		ev := f.waitFor("the refused message", 20*time.Second, func(ev app.Event) bool {
			m := ev.Message
			return m != nil && m.ConversationID == cv.ID && m.Message.Role == a2a.RoleUser && m.Message.State == app.MessageFailed
		})
		if e := ev.Message.Message.Error; !strings.Contains(e, "sign in (HTTP 401)") {
			t.Fatalf("the chat says %q", e)
		}
		if _, err := f.core.SignOut(f.ctx, a.ID); err != nil {
			t.Fatal(err)
		}
	}

	if err := f.core.SignIn(f.ctx, a.ID, right); err != nil {
		t.Fatal(err)
	}
	if st, err := f.core.AuthState(a.ID); err != nil || !st.SignedIn || st.Refused {
		t.Fatalf("signed in: %+v, %v", st, err)
	}
	// expire makes the agent forget its access tokens (OAuth only); check,
	// after the call, says the call was refused once and made again with
	// one new token.
	expire := func(what string) (check func()) {
		if !oauth {
			return func() {}
		}
		if n := agent.RevokeAccessTokens(); n == 0 {
			t.Fatalf("%s: no access token to revoke", what)
		}
		issued, refused := agent.AccessTokensIssued(), agent.Refusals()
		return func() {
			t.Helper()
			if got := agent.AccessTokensIssued() - issued; got != 1 {
				t.Errorf("%s: %d new access tokens, want 1", what, got)
			}
			if got := agent.Refusals() - refused; got != 1 {
				t.Errorf("%s: the agent refused %d calls, want 1", what, got)
			}
		}
	}

	// Chat.
	cv := f.newConversation(a.ID)
	for _, text := range []string{"Hello, agent!", "Hello again"} {
		check := expire("chat")
		if _, err := f.core.Send(f.ctx, cv.ID, text, nil); err != nil {
			t.Fatal(err)
		}
		if m := f.finalReply(cv.ID, 20*time.Second); m.State != app.MessageDone || !strings.Contains(m.Text(), text) {
			t.Fatalf("reply to %q: state %s, error %q, text %q", text, m.State, m.Error, m.Text())
		}
		check()
	}

	// The task list.
	check := expire("list tasks")
	if err := f.listTasks(a.ID); err != nil {
		t.Fatal(err)
	}
	check()

	// Subscribe: a counting task runs while the core restarts; the new
	// core reads the sign-in from the secret store and follows the task
	// again.
	if _, err := f.core.Send(f.ctx, cv.ID, "count", nil); err != nil {
		t.Fatal(err)
	}
	ev := f.waitFor("the counting task", 20*time.Second, func(ev app.Event) bool {
		return ev.Message != nil && ev.Message.Message.Role == a2a.RoleAgent && ev.Message.Message.TaskID != "" &&
			ev.Message.Message.TaskState == a2a.TaskStateWorking
	})
	taskID := ev.Message.Message.TaskID
	f.stop()
	f.core.Close()
	check = expire("subscribe")
	f.start()
	counts := map[string]bool{}
	f.waitFor("the counting task followed again", 20*time.Second, func(ev app.Event) bool {
		m := ev.Message
		if m != nil && m.Message.TaskID == taskID && m.Message.State == app.MessageStreaming &&
			strings.HasPrefix(m.Message.StatusText, "Counted to") {
			counts[m.Message.StatusText] = true
		}
		return len(counts) >= 2 // the counter moves on: a live stream
	})
	check()

	// Cancel.
	check = expire("cancel")
	task, err := f.core.CancelTask(f.ctx, a.ID, taskID)
	if err != nil {
		t.Fatal(err)
	}
	check()
	if task.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("state after cancel: %s", task.Status.State)
	}
	if final := f.finalReply(cv.ID, 20*time.Second); final.TaskState != a2a.TaskStateCanceled || final.State == app.MessageFailed {
		t.Fatalf("the followed reply ended %s (task %s): %q", final.State, final.TaskState, final.Error)
	}
}

func (f *fixture) listTasks(agentID string) error {
	one := 1
	_, err := f.core.ListTasks(f.ctx, agentID, a2a.ListTasksRequest{PageSize: &one})
	return err
}

// wantRefused fails unless err is the agent's refusal as the UI reads it
// (ui/signin.go checkStaticCredential, AuthState.Refused): *a2a.HTTPError
// 401, whatever the binding.
func wantRefused(t *testing.T, what string, err error) {
	t.Helper()
	var he *a2a.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized {
		t.Fatalf("%s: %v (%T), want the agent's HTTP 401", what, err, err)
	}
}
