package devagent

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
)

// The store keeps every task of both interfaces in memory.
//
// Performance: an event is applied to the stored task in place (a status
// replaces the status, an artifact chunk with append=true is appended to
// the stored artifact's parts, amortised O(1)) and encoded once per
// protocol version for all subscribers; the task as a whole is encoded only
// when someone asks for it (GetTask, ListTasks, the first event of a
// stream). a2a-go's server copies and re-encodes the growing task on every
// event, which caps it near a hundred events a second on long streams.

// store is safe for concurrent use: mu guards the index, each entry's mu
// guards its task.
type store struct {
	maxTasks   int
	maxHistory int

	mu    sync.RWMutex
	tasks map[string]*entry
	order []*entry // creation order, oldest first
	seq   uint64
}

func newStore(maxTasks, maxHistory int) *store {
	return &store{maxTasks: maxTasks, maxHistory: maxHistory, tasks: map[string]*entry{}}
}

// entry is one task with its subscribers and its running skill's state.
type entry struct {
	seq     uint64 // creation order, for ListTasks paging
	store   *store
	cancel  context.CancelFunc // stops the task's skill
	answers chan answer        // ContinueTask hands answers to the skill here

	mu       sync.Mutex
	task     a2a.Task
	artIndex map[string]int // artifactId → index in task.Artifacts
	subs     map[*subscriber]struct{}
	eventSeq uint64
	changed  chan struct{} // closed and replaced on every status change
	pending  *aim.Requirement
	push     []a2a.TaskPushNotificationConfig
}

// create stores a new task in TASK_STATE_SUBMITTED holding msg in its
// history. When the store is full it evicts the oldest ended task.
func (s *store) create(taskID, contextID string, msg *a2a.Message, cancel context.CancelFunc) (*entry, error) {
	now := time.Now().UTC()
	e := &entry{
		store: s, cancel: cancel, answers: make(chan answer, 1), artIndex: map[string]int{},
		subs: map[*subscriber]struct{}{}, changed: make(chan struct{}),
	}
	e.task = a2a.Task{
		ID: taskID, ContextID: contextID,
		Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: &now},
	}
	if msg != nil {
		e.task.History = append(e.task.History, *msg)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.tasks) >= s.maxTasks && !s.evictLocked() {
		return nil, fmt.Errorf("%w: the agent keeps at most %d tasks and none has ended", ErrTooManyTasks, s.maxTasks)
	}
	s.seq++
	e.seq = s.seq
	s.tasks[taskID] = e
	s.order = append(s.order, e)
	return e, nil
}

// evictLocked drops the oldest ended task; s.mu must be held.
func (s *store) evictLocked() bool {
	for i, e := range s.order {
		e.mu.Lock()
		ended := e.task.Status.State.Terminal()
		e.mu.Unlock()
		if ended {
			delete(s.tasks, e.task.ID)
			s.order = slices.Delete(s.order, i, i+1)
			return true
		}
	}
	return false
}

func (s *store) get(id string) (*entry, error) {
	s.mu.RLock()
	e := s.tasks[id]
	s.mu.RUnlock()
	if e == nil {
		return nil, fmt.Errorf("%w: no task %q", ErrTaskNotFound, id)
	}
	return e, nil
}

// closeAll stops every task's skill.
func (s *store) closeAll() {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, e := range s.order {
		e.cancel()
	}
}

// view says how to render a task.
type view struct {
	historyLength *int // nil: all kept history; 0: none
	noArtifacts   bool
	v03           bool
}

// encodeLocked renders the task; e.mu must be held. It copies only the
// Task struct header, never the artifacts or history.
func (e *entry) encodeLocked(v view) (json.RawMessage, error) {
	t := e.task
	if v.historyLength != nil {
		n := max(*v.historyLength, 0)
		if len(t.History) > n {
			t.History = t.History[len(t.History)-n:]
		}
		if len(t.History) == 0 {
			t.History = nil
		}
	}
	if v.noArtifacts {
		t.Artifacts = nil
	}
	if v.v03 {
		tv, err := a2a.TaskToV03(&t)
		if err != nil {
			return nil, fmt.Errorf("devagent: encode task %s for v0.3: %w", t.ID, err)
		}
		return json.Marshal(tv)
	}
	return json.Marshal(&t)
}

// encode renders the task under its lock.
func (e *entry) encode(v view) (json.RawMessage, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.encodeLocked(v)
}

// state returns the current state and the channel closed at its next change.
func (e *entry) state() (a2a.TaskState, <-chan struct{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.task.Status.State, e.changed
}

// waitSettled blocks until the task is terminal or interrupted.
func (e *entry) waitSettled(ctx context.Context) error {
	for {
		st, ch := e.state()
		if st.Terminal() || st.Interrupted() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}

// publish applies one event to the stored task and fans it out to the
// subscribers. It returns ErrTaskEnded once the task is terminal. pending,
// when not nil, becomes the task's pending requirement together with a
// status event; every status event clears the previous one.
func (e *entry) publish(ev *a2a.StreamResponse, pending *aim.Requirement) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.task.Status.State.Terminal() {
		return fmt.Errorf("%w: task %s is %s", ErrTaskEnded, e.task.ID, e.task.Status.State.Label())
	}
	switch {
	case ev.StatusUpdate != nil:
		e.applyStatusLocked(ev.StatusUpdate.Status)
		e.pending = pending
	case ev.ArtifactUpdate != nil:
		e.applyArtifactLocked(ev.ArtifactUpdate)
	}
	e.fanoutLocked(ev)
	return nil
}

func (e *entry) applyStatusLocked(st a2a.TaskStatus) {
	e.task.Status = st
	if st.Message != nil {
		e.appendHistoryLocked(*st.Message)
	}
	close(e.changed)
	e.changed = make(chan struct{})
}

func (e *entry) appendHistoryLocked(m a2a.Message) {
	h := e.task.History
	if limit := e.store.maxHistory; len(h) >= limit {
		n := copy(h, h[len(h)-limit+1:])
		h = h[:n]
	}
	e.task.History = append(h, m)
}

func (e *entry) applyArtifactLocked(u *a2a.TaskArtifactUpdateEvent) {
	a := u.Artifact
	a.Parts = slices.Clip(a.Parts) // never write into the event's array
	i, ok := e.artIndex[a.ArtifactID]
	switch {
	case !ok:
		e.artIndex[a.ArtifactID] = len(e.task.Artifacts)
		e.task.Artifacts = append(e.task.Artifacts, a)
	case !u.Append:
		e.task.Artifacts[i] = a
	default:
		stored := &e.task.Artifacts[i]
		stored.Parts = append(stored.Parts, a.Parts...)
		if a.Name != "" {
			stored.Name = a.Name
		}
		if a.Description != "" {
			stored.Description = a.Description
		}
	}
}

// fanoutLocked encodes ev at most once per protocol version and queues it
// for every subscriber; e.mu must be held so that events keep their order.
func (e *entry) fanoutLocked(ev *a2a.StreamResponse) {
	if len(e.subs) == 0 {
		return
	}
	e.eventSeq++
	final := ev.StatusUpdate != nil && (ev.StatusUpdate.Status.State.Terminal() || ev.StatusUpdate.Status.State.Interrupted())
	var v1, v03 []byte
	var err error
	for s := range e.subs {
		it := item{seq: e.eventSeq, final: final}
		switch {
		case s.v03 && v03 == nil && err == nil:
			v03, err = encodeEventV03(ev)
		case !s.v03 && v1 == nil && err == nil:
			v1, err = json.Marshal(ev)
		}
		it.payload, it.err = v1, err
		if s.v03 {
			it.payload = v03
		}
		s.push(it)
	}
}

func encodeEventV03(ev *a2a.StreamResponse) ([]byte, error) {
	v, err := a2a.EventToV03(ev)
	if err != nil {
		return nil, fmt.Errorf("devagent: encode event for v0.3: %w", err)
	}
	return json.Marshal(v)
}

// subscribe registers a subscriber and returns it with the task encoded at
// that instant, so no event is lost or repeated between the two.
func (e *entry) subscribe(v03 bool, maxQueue int) (*subscriber, json.RawMessage, a2a.TaskState, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	snap, err := e.encodeLocked(view{v03: v03})
	if err != nil {
		return nil, nil, "", err
	}
	s := &subscriber{v03: v03, maxQueue: maxQueue, notify: make(chan struct{}, 1)}
	e.subs[s] = struct{}{}
	return s, snap, e.task.Status.State, nil
}

func (e *entry) unsubscribe(s *subscriber) {
	e.mu.Lock()
	delete(e.subs, s)
	e.mu.Unlock()
}

// item is one encoded event waiting for a stream writer.
type item struct {
	seq     uint64
	payload []byte // the encoded result, shared by all subscribers
	err     error  // the event could not be encoded
	final   bool   // a terminal or interrupted status: the stream ends after it
}

// subscriber is one open stream. Its queue is unbounded up to maxQueue
// events, so a fast producer never waits for a slow network; a reader that
// falls further behind is dropped with ErrSlowSubscriber.
type subscriber struct {
	v03      bool
	maxQueue int
	notify   chan struct{} // signalled when the queue becomes non-empty

	mu       sync.Mutex
	queue    []item
	spare    []item
	overflow bool
}

func (s *subscriber) push(it item) {
	s.mu.Lock()
	if len(s.queue) >= s.maxQueue {
		s.overflow = true
	} else {
		s.queue = append(s.queue, it)
	}
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// take returns the queued events; the slice is valid until the next take.
func (s *subscriber) take() ([]item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.overflow {
		return nil, ErrSlowSubscriber
	}
	out := s.queue
	s.queue, s.spare = s.spare[:0], out
	return out, nil
}

// listFilter holds ListTasks' filters.
type listFilter struct {
	contextID string
	state     a2a.TaskState
	after     *time.Time
}

func (f listFilter) matchLocked(e *entry) bool {
	t := &e.task
	if f.contextID != "" && t.ContextID != f.contextID {
		return false
	}
	if f.state != "" && t.Status.State != f.state {
		return false
	}
	if f.after != nil && (t.Status.Timestamp == nil || !t.Status.Timestamp.After(*f.after)) {
		return false
	}
	return true
}

// list returns one page of matching tasks, newest first, with the total
// number of matches and the token of the next page ("" on the last).
func (s *store) list(f listFilter, pageSize int, token string, v view) ([]json.RawMessage, string, int, error) {
	before := uint64(0) // 0: from the newest
	if token != "" {
		n, err := decodePageToken(token)
		if err != nil {
			return nil, "", 0, err
		}
		before = n
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var page []json.RawMessage
	total := 0
	var last uint64
	more := false
	for i := len(s.order) - 1; i >= 0; i-- {
		e := s.order[i]
		e.mu.Lock()
		ok := f.matchLocked(e)
		if ok {
			total++
			if (before == 0 || e.seq < before) && !more {
				if len(page) == pageSize {
					more = true
				} else {
					raw, err := e.encodeLocked(v)
					if err != nil {
						e.mu.Unlock()
						return nil, "", 0, err
					}
					page = append(page, raw)
					last = e.seq
				}
			}
		}
		e.mu.Unlock()
	}
	next := ""
	if more {
		next = encodePageToken(last)
	}
	return page, next, total, nil
}

// Page tokens are opaque to clients: base64url of "p1:<creation seq>".
func encodePageToken(seq uint64) string {
	return base64.RawURLEncoding.EncodeToString([]byte("p1:" + strconv.FormatUint(seq, 10)))
}

func decodePageToken(tok string) (uint64, error) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err == nil {
		if rest, ok := strings.CutPrefix(string(b), "p1:"); ok {
			if n, err := strconv.ParseUint(rest, 10, 64); err == nil && n > 0 {
				return n, nil
			}
		}
	}
	return 0, rpcErrorf(a2a.CodeInvalidParams, "pageToken %q is not a token this agent issued", tok)
}
