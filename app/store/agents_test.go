package store

import (
	"context"
	"testing"
	"time"
)

func TestPutAgent(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		first Agent
		then  *Agent // a second PutAgent, if any
		want  Agent
	}{
		{
			name:  "insert round-trips every field",
			first: Agent{ID: "a", URL: "http://u", CardURL: "http://u/card", Card: []byte(`{"name":"N"}`), Name: "N", Position: 3, AllowPlainHTTP: true, AddedAt: at(1), UpdatedAt: at(2)},
			want:  Agent{ID: "a", URL: "http://u", CardURL: "http://u/card", Card: []byte(`{"name":"N"}`), Name: "N", Position: 3, AllowPlainHTTP: true, AddedAt: at(1), UpdatedAt: at(2)},
		},
		{
			name:  "nil card stays nil",
			first: Agent{ID: "a", URL: "http://u", AddedAt: at(1), UpdatedAt: at(1)},
			want:  Agent{ID: "a", URL: "http://u", AddedAt: at(1), UpdatedAt: at(1)},
		},
		{
			name:  "update replaces fields and keeps AddedAt when zero",
			first: Agent{ID: "a", URL: "http://old", Name: "Old", AllowPlainHTTP: true, AddedAt: at(1), UpdatedAt: at(1)},
			then:  &Agent{ID: "a", URL: "http://new", Name: "New", Card: []byte(`{}`), UpdatedAt: at(5)},
			want:  Agent{ID: "a", URL: "http://new", Name: "New", Card: []byte(`{}`), AddedAt: at(1), UpdatedAt: at(5)},
		},
		{
			name:  "update with AddedAt set replaces it",
			first: Agent{ID: "a", URL: "http://u", AddedAt: at(1), UpdatedAt: at(1)},
			then:  &Agent{ID: "a", URL: "http://u", AddedAt: at(3), UpdatedAt: at(3)},
			want:  Agent{ID: "a", URL: "http://u", AddedAt: at(3), UpdatedAt: at(3)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openTest(t)
			if err := s.PutAgent(ctx, tc.first); err != nil {
				t.Fatal(err)
			}
			if tc.then != nil {
				if err := s.PutAgent(ctx, *tc.then); err != nil {
					t.Fatal(err)
				}
			}
			got, err := s.Agent(ctx, "a")
			if err != nil {
				t.Fatal(err)
			}
			assertAgent(t, got, tc.want)
		})
	}
}

func assertAgent(t *testing.T, got, want Agent) {
	t.Helper()
	if got.ID != want.ID || got.URL != want.URL || got.CardURL != want.CardURL || string(got.Card) != string(want.Card) ||
		(got.Card == nil) != (want.Card == nil) || got.Name != want.Name || got.Position != want.Position ||
		got.AllowPlainHTTP != want.AllowPlainHTTP || !got.AddedAt.Equal(want.AddedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
		t.Errorf("agent\n got %+v\nwant %+v", got, want)
	}
}

func TestPutAgentDefaultsTimes(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	before := time.Now()
	if err := s.PutAgent(ctx, Agent{ID: "a", URL: "http://u"}); err != nil {
		t.Fatal(err)
	}
	a, err := s.Agent(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if a.AddedAt.Before(before) || a.UpdatedAt.Before(before) {
		t.Errorf("zero times not set to now: %+v", a)
	}
	if err := s.PutAgent(ctx, Agent{}); err == nil {
		t.Error("PutAgent with an empty ID succeeded")
	}
}

func TestAgentNotFound(t *testing.T) {
	_, err := openTest(t).Agent(context.Background(), "nope")
	wantIs(t, err, ErrNotFound)
}

func TestAgentsOrder(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	for _, a := range []Agent{
		{ID: "c", Position: 1, AddedAt: at(1)},
		{ID: "b", Position: 0, AddedAt: at(5)},
		{ID: "a", Position: 1, AddedAt: at(0)},
		{ID: "d", Position: 0, AddedAt: at(2)},
	} {
		if err := s.PutAgent(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	agents, err := s.Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids string
	for _, a := range agents {
		ids += a.ID
	}
	if ids != "dbac" {
		t.Errorf("Agents order = %s, want dbac (Position, then AddedAt)", ids)
	}
}

func TestDeleteAgentCascades(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	putAgent(t, s, "a")
	putAgent(t, s, "keep")
	putConversation(t, s, "a", "c1")
	putConversation(t, s, "keep", "c2")
	appendMessages(t, s, "c1", 3, testParts(50))
	appendMessages(t, s, "c2", 2, testParts(50))
	for _, tk := range []Task{{AgentID: "a", ID: "t1", State: "TASK_STATE_WORKING"}, {AgentID: "keep", ID: "t2", State: "TASK_STATE_WORKING"}} {
		if err := s.PutTask(ctx, tk); err != nil {
			t.Fatal(err)
		}
	}
	audit := AuditEntry{AgentID: "a", AgentName: "Agent a", Decision: "approved"}
	if err := s.AppendAudit(ctx, &audit); err != nil {
		t.Fatal(err)
	}

	if err := s.DeleteAgent(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteAgent(ctx, "a"); err != nil {
		t.Errorf("deleting an absent agent: %v", err)
	}

	tests := []struct {
		name string
		got  func() (int, error)
		want int
	}{
		{"agents", func() (int, error) { a, err := s.Agents(ctx); return len(a), err }, 1},
		{"conversations of a", func() (int, error) { c, err := s.Conversations(ctx, "a"); return len(c), err }, 0},
		{"conversations of keep", func() (int, error) { c, err := s.Conversations(ctx, "keep"); return len(c), err }, 1},
		{"messages of c1", func() (int, error) { n, err := s.MessageCount(ctx, "c1"); return int(n), err }, 0},
		{"messages of c2", func() (int, error) { n, err := s.MessageCount(ctx, "c2"); return int(n), err }, 2},
		{"tasks of a", func() (int, error) { tk, err := s.Tasks(ctx, "a"); return len(tk), err }, 0},
		{"open tasks", func() (int, error) { tk, err := s.OpenTasks(ctx); return len(tk), err }, 1},
		{"audit kept", func() (int, error) { e, err := s.Audit(ctx, "", 0); return len(e), err }, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, err := tc.got()
			if err != nil || n != tc.want {
				t.Errorf("got %d, %v; want %d", n, err, tc.want)
			}
		})
	}
}

// TestPutAgentKeepsConversations guards against an upsert written as
// INSERT OR REPLACE, which deletes the row and so cascades.
func TestPutAgentKeepsConversations(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	a := putAgent(t, s, "a")
	putConversation(t, s, "a", "c")
	appendMessages(t, s, "c", 2, testParts(50))
	a.Name = "Renamed"
	if err := s.PutAgent(ctx, a); err != nil {
		t.Fatal(err)
	}
	if n, err := s.MessageCount(ctx, "c"); err != nil || n != 2 {
		t.Errorf("MessageCount after PutAgent = %d, %v; want 2", n, err)
	}
	c := Conversation{ID: "c", AgentID: "a", Title: "Renamed", UpdatedAt: at(9)}
	if err := s.PutConversation(ctx, c); err != nil {
		t.Fatal(err)
	}
	if n, err := s.MessageCount(ctx, "c"); err != nil || n != 2 {
		t.Errorf("MessageCount after PutConversation = %d, %v; want 2", n, err)
	}
}
