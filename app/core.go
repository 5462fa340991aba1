package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"aimdesk/app/a2a"
	"aimdesk/app/a2a/binding"
	"aimdesk/app/auth"
	"aimdesk/app/store"
	"aimdesk/app/trust"
)

// Sentinels callers branch on.
var (
	ErrUnknownAgent = errors.New("app: no such agent")
	// ErrInvalidName: a name the user gave (an agent's) is too long or
	// spans lines.
	ErrInvalidName         = errors.New("app: invalid name")
	ErrUnknownConversation = errors.New("app: no such conversation")
	ErrUnknownMessage      = errors.New("app: no such message")
	ErrNotConnected        = errors.New("app: the agent is not connected")
	ErrNothingToSend       = errors.New("app: write a message or attach a file first")
	ErrNoRequirement       = errors.New("app: the task is not waiting for an answer")
)

// DemoAgentID is the id of the embedded reference agent in demo mode.
const DemoAgentID = "demo-reference-agent"

// Config configures a Core. Only Store is required.
type Config struct {
	// Store persists agents, conversations, messages and tasks.
	Store *store.Store
	// HTTPClient talks to agents; nil means a client without an overall
	// timeout (calls are bounded by Settings.IdleTimeout).
	HTTPClient *http.Client
	// GRPC makes the transports of agents that speak gRPC
	// (grpcbind.Binding; the app's loads its plugin first); nil: such
	// agents cannot be added and their calls fail (binding.ErrNoGRPC).
	GRPC binding.GRPCFunc
	// DemoAgentURL, if set, is the embedded reference agent: it is added
	// (or its URL refreshed) under DemoAgentID at start.
	DemoAgentURL string
	// ConsoleSize is how many traffic entries the console keeps; 0 means 5,000.
	ConsoleSize int
	// MessageMetadata, if set, returns the metadata every message to an
	// agent carries (the A2UI client capabilities); card may be nil.
	MessageMetadata func(card *a2a.AgentCard) a2a.Metadata
	// Secrets keeps sign-in secrets; nil means the OS keyring, else an
	// encrypted file beside the database (tests set a file store).
	Secrets auth.SecretStore
	// Now returns the time; nil means time.Now (tests set it).
	Now func() time.Time
}

// Core is the application model. Create it with New.
type Core struct {
	cfg      Config
	st       *store.Store
	hc       *http.Client
	resolver *a2a.CardResolver
	bus      bus
	coal     coalescer
	console  *console

	// ctx ends background work (streams, resubscriptions) at Close.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	agents    map[string]*agentState
	order     []string // agent ids in display order
	convs     map[string]*convState
	settings  Settings
	streams   map[string]context.CancelFunc // by taskKey
	replies   map[string]*reply             // live replies by message id
	byTask    map[string]*reply             // live replies by taskKey
	approvals map[string]*Approval          // by Approval.ID
	auth      *signinState                  // sign-in managers, opened on first use
}

// New loads the stored state and starts background work: refreshing agent
// cards and catching up on tasks that were running when the app last quit.
func New(ctx context.Context, cfg Config) (*Core, error) {
	if cfg.Store == nil {
		return nil, errors.New("app: Config.Store is required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ConsoleSize <= 0 {
		cfg.ConsoleSize = 5000
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	bg, cancel := context.WithCancel(context.Background())
	c := &Core{
		cfg: cfg, st: cfg.Store, hc: hc, resolver: &a2a.CardResolver{HTTPClient: trust.GuardClient(hc, trust.Limits{})},
		auth: newSigninState(),
		coal: coalescer{every: 16 * time.Millisecond}, console: newConsole(cfg.ConsoleSize),
		ctx: bg, cancel: cancel, agents: map[string]*agentState{}, convs: map[string]*convState{},
		streams: map[string]context.CancelFunc{}, replies: map[string]*reply{}, byTask: map[string]*reply{}, approvals: map[string]*Approval{}, settings: DefaultSettings(),
	}
	if err := c.loadSettings(ctx); err != nil {
		cancel()
		return nil, err
	}
	if err := c.loadAgents(ctx); err != nil {
		cancel()
		return nil, err
	}
	if cfg.DemoAgentURL != "" {
		if err := c.ensureDemoAgent(ctx, cfg.DemoAgentURL); err != nil {
			cancel()
			return nil, err
		}
	}
	c.mu.Lock()
	ids := append([]string(nil), c.order...)
	c.mu.Unlock()
	for _, id := range ids {
		c.goBackground(func(ctx context.Context) { c.connect(ctx, id) })
	}
	return c, nil
}

// goBackground runs fn until Close.
func (c *Core) goBackground(fn func(ctx context.Context)) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		fn(c.ctx)
	}()
}

// Close stops streams and background work and waits for them. It does not
// close the store.
func (c *Core) Close() {
	c.cancel()
	c.wg.Wait()
}

// Subscribe returns the event stream, starting with one event that holds
// the agents, the settings and the approvals (conversations are read per
// agent with Conversations). Call the returned function to stop; the
// channel is then closed.
func (c *Core) Subscribe() (<-chan Event, func()) {
	c.mu.Lock()
	initial := Event{Agents: c.agentListLocked(), Approvals: c.approvalListLocked()}
	s := c.settings
	initial.Settings = &s
	c.mu.Unlock()
	return c.bus.subscribe(initial)
}

func (c *Core) publish(ev Event) { c.bus.publish(ev) }

func (c *Core) notice(level NoticeLevel, format string, args ...any) {
	c.publish(Event{Notice: &Notice{Level: level, Text: fmt.Sprintf(format, args...)}})
}

func (c *Core) now() time.Time { return c.cfg.Now() }
