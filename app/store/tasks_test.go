package store

import (
	"context"
	"strings"
	"testing"
)

func TestPutTask(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	putAgent(t, s, "a")
	putAgent(t, s, "b")
	in := Task{ID: "t", AgentID: "a", ContextID: "ctx", State: "TASK_STATE_WORKING", JSON: []byte(`{"id":"t"}`), UpdatedAt: at(1)}
	if err := s.PutTask(ctx, in); err != nil {
		t.Fatal(err)
	}
	// The same task id at another agent is another task.
	if err := s.PutTask(ctx, Task{ID: "t", AgentID: "b", State: "TASK_STATE_SUBMITTED", UpdatedAt: at(2)}); err != nil {
		t.Fatal(err)
	}
	up := in
	up.State, up.JSON, up.UpdatedAt = TaskStateCompleted, []byte(`{"id":"t","status":{}}`), at(3)
	if err := s.PutTask(ctx, up); err != nil {
		t.Fatal(err)
	}
	got, err := s.Task(ctx, "a", "t")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != up.ID || got.AgentID != up.AgentID || got.ContextID != up.ContextID || got.State != up.State ||
		string(got.JSON) != string(up.JSON) || !got.UpdatedAt.Equal(up.UpdatedAt) {
		t.Errorf("got %+v, want %+v", got, up)
	}
	if other, err := s.Task(ctx, "b", "t"); err != nil || other.State != "TASK_STATE_SUBMITTED" {
		t.Errorf("task t of b = %+v, %v", other, err)
	}

	tests := []struct {
		name string
		err  error
	}{
		{"absent task", func() error { _, err := s.Task(ctx, "a", "nope"); return err }()},
		{"task of another agent", func() error { _, err := s.Task(ctx, "c", "t"); return err }()},
		{"put for an unknown agent", s.PutTask(ctx, Task{ID: "x", AgentID: "nope", State: "TASK_STATE_WORKING"})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantIs(t, tc.err, ErrNotFound) })
	}
	if err := s.PutTask(ctx, Task{AgentID: "a"}); err == nil {
		t.Error("PutTask with an empty ID succeeded")
	}
}

func TestTasksAndOpenTasks(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	putAgent(t, s, "a")
	putAgent(t, s, "b")
	for _, tk := range []Task{
		{AgentID: "a", ID: "working", State: "TASK_STATE_WORKING", UpdatedAt: at(1)},
		{AgentID: "a", ID: "done", State: TaskStateCompleted, UpdatedAt: at(5)},
		{AgentID: "a", ID: "input", State: "TASK_STATE_INPUT_REQUIRED", UpdatedAt: at(3)},
		{AgentID: "b", ID: "auth", State: "TASK_STATE_AUTH_REQUIRED", UpdatedAt: at(4)},
		{AgentID: "b", ID: "failed", State: TaskStateFailed, UpdatedAt: at(6)},
		{AgentID: "b", ID: "canceled", State: TaskStateCanceled, UpdatedAt: at(7)},
		{AgentID: "b", ID: "rejected", State: TaskStateRejected, UpdatedAt: at(8)},
		{AgentID: "b", ID: "future", State: "TASK_STATE_SOMETHING_NEW", UpdatedAt: at(2)},
	} {
		if err := s.PutTask(ctx, tk); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(ts []Task) string {
		var out []string
		for _, tk := range ts {
			out = append(out, tk.ID)
		}
		return strings.Join(out, ",")
	}
	tests := []struct {
		name string
		get  func() ([]Task, error)
		want string
	}{
		{"tasks of a, newest first", func() ([]Task, error) { return s.Tasks(ctx, "a") }, "done,input,working"},
		{"tasks of b, newest first", func() ([]Task, error) { return s.Tasks(ctx, "b") }, "rejected,canceled,failed,auth,future"},
		{"tasks of nobody", func() ([]Task, error) { return s.Tasks(ctx, "nope") }, ""},
		{"open tasks of all agents", func() ([]Task, error) { return s.OpenTasks(ctx) }, "auth,input,future,working"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts, err := tc.get()
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(ts); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestIsTerminal(t *testing.T) {
	tests := []struct {
		state string
		want  bool
	}{
		{"TASK_STATE_COMPLETED", true},
		{"TASK_STATE_FAILED", true},
		{"TASK_STATE_CANCELED", true},
		{"TASK_STATE_REJECTED", true},
		{"TASK_STATE_SUBMITTED", false},
		{"TASK_STATE_WORKING", false},
		{"TASK_STATE_INPUT_REQUIRED", false},
		{"TASK_STATE_AUTH_REQUIRED", false},
		{"TASK_STATE_UNSPECIFIED", false},
		{"completed", false}, // v0.3 spelling: the store keeps v1.0 tasks
		{"", false},
	}
	for _, tc := range tests {
		t.Run(tc.state, func(t *testing.T) {
			if got := IsTerminal(tc.state); got != tc.want {
				t.Errorf("IsTerminal(%q) = %v, want %v", tc.state, got, tc.want)
			}
		})
	}
	// openTasksWhere (and so the tasks_open index) lists the same states.
	for _, st := range []string{TaskStateCompleted, TaskStateFailed, TaskStateCanceled, TaskStateRejected} {
		if !strings.Contains(openTasksWhere, "'"+st+"'") || !strings.Contains(schemaV3, "'"+st+"'") {
			t.Errorf("%s missing from the open-task filter or index", st)
		}
	}
}
