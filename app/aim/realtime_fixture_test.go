package aim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
	"aimdesk/app/devagent"
	"aimdesk/app/wireschema"
)

// testLiveKit signs the tokens of the null rooms; no server is contacted.
var testLiveKit = &devagent.LiveKitConfig{URL: "ws://127.0.0.1:7880", APIKey: "aimtest", APISecret: "aimtest-secret-that-is-long-enough-0123456789"}

// captured is one request the client sent.
type captured struct {
	method  string
	body    []byte
	headers http.Header
}

// rtFixture is the reference agent (with null media rooms) behind a
// middleware that records every request and can drop responses or block
// subscriptions, and a realtime client pointed at it.
type rtFixture struct {
	t     *testing.T
	h     *devagent.Handler
	srv   *httptest.Server
	a2a   *a2a.Client
	rc    *aim.RealtimeClient
	rooms chan *devagent.NullRoom

	mu          sync.Mutex
	reqs        []captured
	runs        map[string]int // commandId → executions
	dropOnce    map[string]bool
	blockStream bool
}

func newRTFixture(t *testing.T, hooks devagent.Hooks) *rtFixture {
	t.Helper()
	f := &rtFixture{t: t, rooms: make(chan *devagent.NullRoom, 16), runs: map[string]int{}, dropOnce: map[string]bool{}}
	if hooks.StepDelay == 0 {
		hooks.StepDelay = time.Millisecond
	}
	hooks.Room = devagent.OpenNullRoom(f.rooms)
	hooks.OnCommand = func(c aim.Command) {
		f.mu.Lock()
		f.runs[c.CommandID]++
		f.mu.Unlock()
	}
	f.h = devagent.NewHandler(devagent.HandlerConfig{LiveKit: testLiveKit, KeepAlive: 200 * time.Millisecond, Hooks: hooks})
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		_ = f.h.Close()
		f.srv.Close()
	})
	f.a2a = &a2a.Client{
		AIM: true, HTTPClient: f.srv.Client(), IdleTimeout: 10 * time.Second,
		Interface: a2a.AgentInterface{URL: f.srv.URL + devagent.PathV1, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.Version10},
	}
	f.rc = &aim.RealtimeClient{
		A2A: f.a2a, TranscriptHistory: true, RetryDelay: 10 * time.Millisecond, PollInterval: 10 * time.Millisecond,
		ResubscribeDelay: 20 * time.Millisecond, CallTimeout: 5 * time.Second,
	}
	return f
}

// serve records the request, then answers it, dropping the answer when asked.
func (f *rtFixture) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var head struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &head)
	f.mu.Lock()
	if r.URL.Path == devagent.PathV1 {
		f.reqs = append(f.reqs, captured{method: head.Method, body: body, headers: r.Header.Clone()})
	}
	drop := f.dropOnce[head.Method]
	delete(f.dropOnce, head.Method)
	block := f.blockStream && head.Method == "SubscribeToTask"
	f.mu.Unlock()
	switch {
	case block:
		http.Error(w, "the test blocks subscriptions", http.StatusServiceUnavailable)
	case drop:
		// The agent does the work, but the answer is lost on the way:
		// the connection closes before a byte of it arrives.
		rec := httptest.NewRecorder()
		f.h.ServeHTTP(rec, r)
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	default:
		f.h.ServeHTTP(w, r)
	}
}

// dropNext loses the answer to the next request for method.
func (f *rtFixture) dropNext(method string) {
	f.mu.Lock()
	f.dropOnce[method] = true
	f.mu.Unlock()
}

func (f *rtFixture) setBlockStream(b bool) {
	f.mu.Lock()
	f.blockStream = b
	f.mu.Unlock()
}

func (f *rtFixture) runsOf(commandID string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.runs[commandID]
}

func (f *rtFixture) requests() []captured {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]captured(nil), f.reqs...)
}

// validateAll checks every captured request against the AIM request
// schema (and the session.create part against its definition) and the
// transport headers, and returns the methods seen.
func (f *rtFixture) validateAll() map[string]int {
	f.t.Helper()
	set, err := wireschema.New()
	if err != nil {
		f.t.Fatal(err)
	}
	seen := map[string]int{}
	for i, c := range f.requests() {
		seen[c.method]++
		if err := set.AIMRequest(c.body); err != nil {
			f.t.Errorf("request %d (%s) breaks the AIM schema: %v\n%s", i, c.method, err, c.body)
		}
		if got := c.headers.Get("A2A-Version"); got != "1.0" {
			f.t.Errorf("request %d (%s): A2A-Version %q", i, c.method, got)
		}
		if strings.HasPrefix(c.method, "aim.realtime.") && !strings.Contains(c.headers.Get("A2A-Extensions"), aim.RealtimeExtension) {
			f.t.Errorf("request %d (%s): A2A-Extensions %q lacks the realtime extension", i, c.method, c.headers.Get("A2A-Extensions"))
		}
		if c.method == "SendMessage" {
			var req struct {
				Params a2a.SendMessageRequest `json:"params"`
			}
			if err := json.Unmarshal(c.body, &req); err != nil {
				f.t.Fatal(err)
			}
			for _, p := range req.Params.Message.Parts {
				if p.Kind == a2a.PartData {
					if err := devagent.ValidateSessionCreate(p.Data); err != nil {
						f.t.Errorf("session.create part: %v\n%s", err, p.Data)
					}
				}
			}
		}
	}
	return seen
}

// interactionTypes lists the SendInteraction types captured, in order.
func (f *rtFixture) interactionTypes() []aim.InteractionType {
	var out []aim.InteractionType
	for _, c := range f.requests() {
		if c.method != aim.MethodSendInteraction {
			continue
		}
		var req struct {
			Params aim.SendInteractionParams `json:"params"`
		}
		if err := json.Unmarshal(c.body, &req); err != nil {
			f.t.Fatal(err)
		}
		out = append(out, req.Params.Type)
	}
	return out
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// createOptions asks for everything the agent offers.
func createOptions() aim.CreateOptions {
	return aim.CreateOptions{
		UserVideoSources:     []aim.MediaSource{aim.SourceScreen, aim.SourceCamera},
		Interactions:         []aim.InteractionKind{aim.InteractionText, aim.InteractionPointer, aim.InteractionConfirmation},
		RequiredCapabilities: []aim.Capability{aim.CapabilityAudioInput, aim.CapabilityAudioOutput},
		KeepTranscript:       true,
	}
}

// allCaps are a desktop's devices.
var allCaps = aim.EndpointCapabilities{
	AudioInput: true, AudioOutput: true, Camera: true, Screen: true,
	Interactions: []aim.InteractionKind{aim.InteractionText, aim.InteractionPointer, aim.InteractionConfirmation},
}

// events collects a session's events on a goroutine and lets tests wait
// for one that matches.
type events struct {
	t  *testing.T
	mu sync.Mutex
	ch chan aim.Event
	// all is every event received so far.
	all    []aim.Event
	closed chan struct{}
}

func watch(t *testing.T, ctx context.Context, s *aim.RealtimeSession) *events {
	t.Helper()
	e := &events{t: t, ch: make(chan aim.Event, 1024), closed: make(chan struct{})}
	src := s.Events(ctx)
	go func() {
		defer close(e.closed)
		for ev := range src {
			e.mu.Lock()
			e.all = append(e.all, ev)
			e.mu.Unlock()
			e.ch <- ev
		}
	}()
	return e
}

// waitFor reads events until pred holds.
func (e *events) waitFor(what string, pred func(aim.Event) bool) aim.Event {
	e.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-e.ch:
			if pred(ev) {
				return ev
			}
		case <-e.closed:
			// drain what is buffered
			for {
				select {
				case ev := <-e.ch:
					if pred(ev) {
						return ev
					}
				default:
					e.t.Fatalf("the event stream closed while waiting for %s", what)
				}
			}
		case <-timeout:
			e.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func transcript(role, prefix string) func(aim.Event) bool {
	return func(ev aim.Event) bool {
		return ev.Name == aim.EventTranscript && ev.Transcript.Role == role && strings.HasPrefix(ev.Transcript.Text, prefix)
	}
}

func opState(id string, st aim.OperationState) func(aim.Event) bool {
	return func(ev aim.Event) bool {
		return ev.Name == aim.EventOperationUpdated && ev.Operation.OperationID == id && ev.Operation.State == st
	}
}

func httptestServer(t *testing.T, f *rtFixture) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	return srv
}
