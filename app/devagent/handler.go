package devagent

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
	"aimdesk/app/wireschema"
)

// Defaults for HandlerConfig's zero fields.
const (
	DefaultMaxTasks       = 10000
	DefaultMaxHistory     = 100
	DefaultKeepAlive      = 15 * time.Second
	DefaultRequirementTTL = 5 * time.Minute
	// DefaultMaxQueuedEvents bounds the events one stream may fall behind.
	DefaultMaxQueuedEvents = 1 << 18
)

// Endpoint paths.
const (
	PathV1         = "/a2a/v1"
	PathV03        = "/a2a/v03"
	PathCard       = a2a.WellKnownCardPath
	PathLegacyCard = a2a.LegacyWellKnownCardPath
)

// HandlerConfig configures the reference agent's HTTP handler. The zero
// value is usable.
type HandlerConfig struct {
	// BaseURL is the public base URL written into the agent cards, e.g.
	// http://127.0.0.1:8080; "" means "http://" + the request's Host.
	BaseURL string
	// ExtendedCard, if set, is what GetExtendedAgentCard returns (and the
	// card then declares capabilities.extendedAgentCard); nil means the
	// method answers -32007.
	ExtendedCard *a2a.AgentCard
	// MaxTasks bounds the tasks kept; when full the oldest ended task is
	// evicted. 0 means DefaultMaxTasks.
	MaxTasks int
	// MaxHistory bounds the messages kept per task (oldest dropped first).
	// 0 means DefaultMaxHistory.
	MaxHistory int
	// KeepAlive is the interval of SSE keep-alive comments; 0 means
	// DefaultKeepAlive.
	KeepAlive time.Duration
	// MaxQueuedEvents bounds how far one stream may fall behind before it
	// is dropped; 0 means DefaultMaxQueuedEvents.
	MaxQueuedEvents int
	// Logf, if set, receives one line per notable event (dropped streams,
	// internal errors). nil means silent.
	Logf func(format string, args ...any)
	// LiveKit, if set, turns on realtime sessions (docs/aim-extension.md
	// §2) with their media on that LiveKit server: the card declares
	// urn:aim:a2a:realtime:v1 and the aim.realtime.* methods work. nil
	// means they answer -32004 and the card does not declare it (see
	// LiveKitFromEnv).
	LiveKit *LiveKitConfig
	// PushConfigs keeps the push notification config methods working (the
	// card then says pushNotifications: true) so tests can exercise a
	// client's push methods; configs are stored, never delivered. false
	// (the default) means the card says false and every push method
	// answers -32003, as A2A asks of an agent without push support.
	PushConfigs bool
	// Bindings are the protocol bindings the card lists, in order of
	// preference: a2a.BindingJSONRPC (the v1.0 and v0.3 interfaces),
	// a2a.BindingHTTPJSON (PathREST) and a2a.BindingGRPC (at GRPCURL).
	// nil means JSON-RPC only. All are served whatever the card lists.
	// A card without JSON-RPC declares no AIM extension: the AIM dialect
	// is a JSON-RPC contract.
	Bindings []string
	// GRPCURL is the address of the gRPC interface written into the card,
	// e.g. http://127.0.0.1:PORT (Start serves gRPC there when Config.GRPCAddr
	// is set; see ServeGRPC). "" leaves gRPC out of the card.
	GRPCURL string
	// PlainA2A makes the agent a plain A2A 1.0 agent on every binding: the
	// card declares no AIM extension, JSON-RPC requests are not held to the
	// AIM request schema, and a message with a taskId answers an input
	// requirement (as over HTTP+JSON and gRPC). For tests of the binding
	// choice, which AIM agents do not have.
	PlainA2A bool
	// Auth, if set, makes every call on every binding need a credential
	// (the card declares the schemes; the cards stay public): see
	// AuthConfig. nil means anyone may call.
	Auth *AuthConfig
	// Hooks script the agent for tests. The zero value changes nothing.
	Hooks Hooks
}

// Hooks let tests script the reference agent. Every field's zero value
// means "behave normally".
type Hooks struct {
	// StepDelay, when > 0, replaces every pause of the skills (the 50 ms
	// between chunks, the slow task's steps, the counter's ticks), so tests
	// run fast or slow on demand.
	StepDelay time.Duration
	// ResponseDelay pauses before each JSON-RPC request is handled (to
	// test client timeouts). The pause ends early if the client goes away.
	ResponseDelay time.Duration
	// BeforeMethod runs before every JSON-RPC method on both interfaces
	// with the v1.0 method name and the raw params. A non-nil error is
	// answered instead of the method: a *a2a.RPCError as is, anything else
	// as -32603.
	BeforeMethod func(method string, params json.RawMessage) error
	// Tamper publishes every requirement broken in one of the ways an
	// approval UI must catch (see the Tamper constants).
	Tamper Tamper
	// Requirement, if set, may edit each requirement just before it is
	// published (after Tamper). Whatever it leaves is what the agent
	// checks ContinueTask against.
	Requirement func(taskID string, r *aim.Requirement)
	// BeforeContinue, if set, runs on the pending requirement when a
	// ContinueTask (or a v0.3 answer) arrives, before any check. Bump
	// r.Version or change r.Action there to play "the plan changed": the
	// agent publishes the changed requirement as a status update and then
	// checks the request against it.
	BeforeContinue func(taskID string, r *aim.Requirement)
	// RequirementTTL is how long a confirmation stays valid (expiresAt);
	// 0 means DefaultRequirementTTL.
	RequirementTTL time.Duration
	// Room, if set, opens the media rooms of realtime sessions instead of
	// LiveKit (OpenNullRoom: the protocol without media). LiveKit must
	// still be set: its key and secret sign the endpoints' tokens.
	Room RoomOpener
	// OnCommand, if set, sees every realtime command once, when it has
	// been executed (applied or rejected).
	OnCommand func(c aim.Command)
}

// Tamper names a way to publish a broken requirement.
type Tamper string

// Tamper modes.
const (
	TamperNone Tamper = ""
	// TamperDigest: actionDigest is the digest of a different action.
	TamperDigest Tamper = "digest"
	// TamperDuplicateKeys: the action's raw JSON repeats a key, so RFC 8785
	// cannot canonicalize it and two parsers may read different actions.
	TamperDuplicateKeys Tamper = "duplicate-keys"
	// TamperExpired: expiresAt lies in the past.
	TamperExpired Tamper = "expired"
)

func (t Tamper) String() string { return string(t) }

// Handler is the reference agent's http.Handler. Close it to stop the
// tasks still running.
type Handler struct {
	cfg     HandlerConfig
	schemas *wireschema.Set
	store   *store
	mux     *http.ServeMux
	ctx     context.Context // lives until Close; parent of every task's context
	stop    context.CancelFunc
	rt      realtime // realtime sessions (realtime.go)
	tokens  tokens   // access tokens issued at PathToken (auth.go)
}

// schemaSet compiles the embedded wire schemas once per process: they are
// immutable, and compiling the v0.3 schema for every handler would slow the
// tests down.
var schemaSet = sync.OnceValues(wireschema.New)

// NewHandler returns the reference agent's HTTP handler. It panics if the
// embedded wire schemas do not compile, which is a build defect.
func NewHandler(cfg HandlerConfig) *Handler {
	set, err := schemaSet()
	if err != nil {
		panic("devagent: " + err.Error())
	}
	if cfg.MaxTasks <= 0 {
		cfg.MaxTasks = DefaultMaxTasks
	}
	if cfg.MaxHistory <= 0 {
		cfg.MaxHistory = DefaultMaxHistory
	}
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = DefaultKeepAlive
	}
	if cfg.MaxQueuedEvents <= 0 {
		cfg.MaxQueuedEvents = DefaultMaxQueuedEvents
	}
	if cfg.Hooks.RequirementTTL <= 0 {
		cfg.Hooks.RequirementTTL = DefaultRequirementTTL
	}
	ctx, stop := context.WithCancel(context.Background())
	h := &Handler{cfg: cfg, schemas: set, store: newStore(cfg.MaxTasks, cfg.MaxHistory), ctx: ctx, stop: stop}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+PathCard, h.serveCard)
	mux.HandleFunc("GET "+PathLegacyCard, h.serveLegacyCard)
	mux.HandleFunc("POST "+PathV1, h.requireAuth(h.serveV1))
	mux.HandleFunc("POST "+PathV03, h.requireAuth(h.serveV03))
	mux.HandleFunc(PathREST+"/", h.requireAuth(h.serveREST))
	mux.HandleFunc("POST "+PathToken, h.serveToken)
	h.mux = mux
	return h
}

// ServeHTTP serves the agent cards and both JSON-RPC interfaces.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Close stops every running task and ends open streams. The handler
// answers requests afterwards but starts no new work.
func (h *Handler) Close() error {
	h.stop()
	h.store.closeAll()
	return nil
}

func (h *Handler) logf(format string, args ...any) {
	if h.cfg.Logf != nil {
		h.cfg.Logf(format, args...)
	}
}

// pause waits d (or the StepDelay hook) unless ctx ends first.
func (h *Handler) pause(ctx context.Context, d time.Duration) error {
	if h.cfg.Hooks.StepDelay > 0 {
		d = h.cfg.Hooks.StepDelay
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
