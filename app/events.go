package app

import (
	"sync"
	"time"

	"aimdesk/app/a2a"
)

// Event is one change in the core. Only the non-nil fields changed (the
// tailscale ipn.Notify pattern); the first event a subscriber gets holds the
// whole state.
type Event struct {
	// Agents is the whole list of agents, sent when any agent is added,
	// changed or removed.
	Agents []Agent
	// Conversations is the whole list of one agent's conversations.
	Conversations *ConversationList
	// Message is a new or changed message of a conversation.
	Message *MessageChange
	// Task is a new or changed task.
	Task *TaskChange
	// TrafficSeq, when not 0, says the console has entries up to this
	// sequence number (read them with Core.Traffic); at most about 60 such
	// events a second are sent.
	TrafficSeq int64
	// Notice is something to tell the user: an error, or a task that
	// finished or waits for them (see Notice.Attention).
	Notice *Notice
	// Approvals is every approval request of the session, pending first,
	// sent whenever one is raised or decided.
	Approvals []Approval
	// Settings is the whole settings, sent when they change.
	Settings *Settings
}

// ConversationList is one agent's conversations, newest first.
type ConversationList struct {
	AgentID string
	List    []Conversation
}

// MessageChange is a message that was added or changed.
type MessageChange struct {
	ConversationID string
	Message        Message
	New            bool
}

// TaskChange is a task of an agent that changed.
type TaskChange struct {
	AgentID string
	Task    a2a.Task
}

// NoticeLevel says how loud a notice is.
type NoticeLevel string

// Notice levels.
const (
	NoticeInfo  NoticeLevel = "info"
	NoticeError NoticeLevel = "error"
)

// Notice is a sentence for the user, possibly about a task.
type Notice struct {
	Level          NoticeLevel
	Text           string
	AgentID        string
	TaskID         string
	ConversationID string
	// Attention is set when a task completed, failed or now waits for the
	// user: the UI raises a desktop notification when it is not focused.
	Attention bool
}

// bus fans events out to subscribers through unbounded per-subscriber
// queues, so a slow subscriber never blocks the core.
type bus struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
}

type subscriber struct {
	mu    sync.Mutex
	queue []Event
	wake  chan struct{}
	out   chan Event
}

func (b *bus) subscribe(initial Event) (<-chan Event, func()) {
	s := &subscriber{wake: make(chan struct{}, 1), out: make(chan Event)}
	s.queue = append(s.queue, initial)
	s.wake <- struct{}{}
	b.mu.Lock()
	if b.subs == nil {
		b.subs = map[*subscriber]struct{}{}
	}
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	done := make(chan struct{})
	go s.pump(done)
	var once sync.Once
	return s.out, func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs, s)
			b.mu.Unlock()
			close(done)
		})
	}
}

func (s *subscriber) pump(done <-chan struct{}) {
	defer close(s.out)
	for {
		select {
		case <-done:
			return
		case <-s.wake:
		}
		for {
			s.mu.Lock()
			if len(s.queue) == 0 {
				s.mu.Unlock()
				break
			}
			ev := s.queue[0]
			s.queue[0] = Event{}
			s.queue = s.queue[1:]
			s.mu.Unlock()
			select {
			case s.out <- ev:
			case <-done:
				return
			}
		}
	}
}

func (b *bus) publish(ev Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		s.mu.Lock()
		s.queue = append(s.queue, ev)
		s.mu.Unlock()
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// coalescer limits how often one key's updates are published.
type coalescer struct {
	mu      sync.Mutex
	every   time.Duration
	last    map[string]time.Time
	pending map[string]*time.Timer
}

// do runs fn now if key was not run within every, else schedules the latest
// fn to run at the end of the window (replacing an earlier scheduled one).
// final forces an immediate run and cancels anything scheduled.
func (c *coalescer) do(key string, final bool, fn func()) {
	c.mu.Lock()
	if c.last == nil {
		c.last, c.pending = map[string]time.Time{}, map[string]*time.Timer{}
	}
	if t := c.pending[key]; t != nil {
		t.Stop()
		delete(c.pending, key)
	}
	now := time.Now()
	wait := c.every - now.Sub(c.last[key])
	if final || wait <= 0 {
		c.last[key] = now
		if final {
			delete(c.last, key)
		}
		c.mu.Unlock()
		fn()
		return
	}
	c.pending[key] = time.AfterFunc(wait, func() {
		c.mu.Lock()
		delete(c.pending, key)
		c.last[key] = time.Now()
		c.mu.Unlock()
		fn()
	})
	c.mu.Unlock()
}
