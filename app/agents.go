package app

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"

	"aimdesk/app/a2a"
	"aimdesk/app/a2a/binding"
	"aimdesk/app/auth"
	"aimdesk/app/store"
)

// AgentStatus is how the app's connection to an agent stands.
type AgentStatus string

// Agent statuses.
const (
	AgentConnecting AgentStatus = "connecting"
	AgentReady      AgentStatus = "ready"
	AgentOffline    AgentStatus = "offline" // card could not be fetched; the stored one is shown
)

// ErrPlainHTTP: an agent off this machine must use HTTPS unless the user
// allows plain HTTP for it.
var ErrPlainHTTP = errors.New("app: agents on other machines must use https (allow plain HTTP for this agent to override)")

// Agent is what the UI shows of an agent.
type Agent struct {
	ID             string
	URL            string // what the user typed
	CardURL        string // where the card was read
	Name           string
	Card           *a2a.AgentCard // nil until the card was read once; read-only
	Interface      a2a.AgentInterface
	AIM            bool // the AIM dialect applies
	Status         AgentStatus
	Error          string // why the agent is offline
	Demo           bool
	AllowPlainHTTP bool
	// Binding is the user's protocol binding override for this agent
	// (a2a.BindingJSONRPC, a2a.BindingHTTPJSON, a2a.BindingGRPC), "" for
	// automatic. Interface.ProtocolBinding is the binding in use: AIM
	// agents stay on JSON-RPC whatever the override.
	Binding string
}

type agentState struct {
	rec     store.Agent
	binding string // the override, "" for automatic (see SetAgentBinding)
	name    string // the user's name for the agent, "" for the card's (see EditAgent)
	card    *a2a.AgentCard
	iface   a2a.AgentInterface
	client  *a2a.Client
	status  AgentStatus
	err     string
}

func (a *agentState) view() Agent {
	name := a.rec.Name
	if a.name != "" {
		name = a.name
	}
	return Agent{
		ID: a.rec.ID, URL: a.rec.URL, CardURL: a.rec.CardURL, Name: name, Card: a.card,
		Interface: a.iface, AIM: a.card != nil && a.card.IsAIM(), Status: a.status, Error: a.err,
		Demo: a.rec.ID == DemoAgentID, AllowPlainHTTP: a.rec.AllowPlainHTTP, Binding: a.binding,
	}
}

func (c *Core) agentListLocked() []Agent {
	out := make([]Agent, 0, len(c.order))
	for _, id := range c.order {
		out = append(out, c.agents[id].view())
	}
	return out
}

func (c *Core) publishAgents() {
	c.mu.Lock()
	list := c.agentListLocked()
	c.mu.Unlock()
	c.publish(Event{Agents: list})
}

// Agents returns the agents in display order.
func (c *Core) Agents() []Agent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.agentListLocked()
}

// Agent returns one agent.
func (c *Core) Agent(id string) (Agent, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.agents[id]
	if a == nil {
		return Agent{}, ErrUnknownAgent
	}
	return a.view(), nil
}

func (c *Core) loadAgents(ctx context.Context) error {
	recs, err := c.st.Agents(ctx)
	if err != nil {
		return fmt.Errorf("app: load agents: %w", err)
	}
	overrides := make(map[string]string, len(recs))
	names := make(map[string]string, len(recs))
	for _, r := range recs {
		if v, ok, err := c.st.Setting(ctx, bindingSettingKey(r.ID)); err == nil && ok {
			overrides[r.ID] = v
		}
		if v, ok, err := c.st.Setting(ctx, nameSettingKey(r.ID)); err == nil && ok {
			names[r.ID] = v
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range recs {
		a := &agentState{rec: r, status: AgentConnecting, binding: overrides[r.ID], name: names[r.ID]}
		if len(r.Card) > 0 {
			if card, err := a2a.ParseAgentCard(r.Card); err == nil {
				a.card = card
			}
		}
		c.agents[r.ID] = a
		c.order = append(c.order, r.ID)
	}
	return nil
}

func (c *Core) ensureDemoAgent(ctx context.Context, u string) error {
	c.mu.Lock()
	a := c.agents[DemoAgentID]
	c.mu.Unlock()
	rec := store.Agent{ID: DemoAgentID, URL: u, Name: "AIM reference agent", AddedAt: c.now(), UpdatedAt: c.now()}
	if a != nil {
		rec = a.rec
		rec.URL, rec.UpdatedAt = u, c.now()
	}
	if err := c.st.PutAgent(ctx, rec); err != nil {
		return fmt.Errorf("app: demo agent: %w", err)
	}
	c.mu.Lock()
	if a == nil {
		c.agents[DemoAgentID] = &agentState{rec: rec, status: AgentConnecting}
		c.order = append([]string{DemoAgentID}, c.order...)
	} else {
		a.rec = rec
	}
	c.mu.Unlock()
	return nil
}

// checkAgentURL rejects what is not an http(s) URL, and plain http to
// another machine unless allowed.
func checkAgentURL(raw string, allowPlain bool) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw != "" && !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("app: %q is not an agent address: type a URL such as https://agent.example.com", raw)
	}
	if u.Scheme == "http" && !allowPlain && !isLoopback(u.Hostname()) {
		return "", ErrPlainHTTP
	}
	return u.String(), nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// AddAgent reads the card at u (a base URL or a card URL), and adds the
// agent. An agent with the same URL is not added twice: the existing one is
// returned.
func (c *Core) AddAgent(ctx context.Context, u string, allowPlainHTTP bool) (Agent, error) {
	norm, err := checkAgentURL(u, allowPlainHTTP)
	if err != nil {
		return Agent{}, err
	}
	c.mu.Lock()
	for _, id := range c.order {
		if c.agents[id].rec.URL == norm {
			v := c.agents[id].view()
			c.mu.Unlock()
			return v, nil
		}
	}
	c.mu.Unlock()
	rc, err := c.resolveCard(ctx, norm)
	if err != nil {
		return Agent{}, err
	}
	iface, err := a2a.SelectInterface(rc.Card)
	if err != nil {
		return Agent{}, err
	}
	if err := checkInterface(iface, rc.URL, allowPlainHTTP); err != nil {
		return Agent{}, err
	}
	if _, err := binding.Transport(iface, binding.Options{AllowPlain: allowPlainHTTP, GRPC: c.cfg.GRPC}); err != nil {
		return Agent{}, err
	}
	now := c.now()
	rec := store.Agent{
		ID: uuid.NewString(), URL: norm, CardURL: rc.URL, Card: rc.Raw, Name: rc.Card.Name,
		AllowPlainHTTP: allowPlainHTTP, AddedAt: now, UpdatedAt: now,
	}
	c.mu.Lock()
	rec.Position = len(c.order)
	c.mu.Unlock()
	if err := c.st.PutAgent(ctx, rec); err != nil {
		return Agent{}, fmt.Errorf("app: save agent: %w", err)
	}
	a := &agentState{rec: rec}
	c.setCard(a, rc.Card, iface)
	c.goBackground(func(ctx context.Context) { c.afterConnect(ctx, rec.ID) })
	c.mu.Lock()
	c.agents[rec.ID] = a
	c.order = append(c.order, rec.ID)
	v := a.view()
	c.mu.Unlock()
	c.publishAgents()
	return v, nil
}

func checkInterface(iface a2a.AgentInterface, cardURL string, allowPlain bool) error {
	_, err := checkAgentURL(iface.URL, allowPlain)
	if err != nil {
		return fmt.Errorf("app: the card's endpoint %s: %w", iface.URL, err)
	}
	return checkInterfaceHost(iface.URL, cardURL)
}

// ErrInterfaceOnThisMachine: a card read from another machine names an
// endpoint on this one (or on the local network): a hostile card would
// turn aimdesk into a way to reach services that only trust local callers.
var ErrInterfaceOnThisMachine = errors.New("app: a remote agent's card points at this machine or the local network")

// checkInterfaceHost refuses an interface on a loopback, private or
// link-local address when the card itself came from a host that is none of
// these. Host names are not resolved here; the transport refuses them at
// dial time where it matters.
func checkInterfaceHost(ifaceURL, cardURL string) error {
	iu, err1 := url.Parse(ifaceURL)
	cu, err2 := url.Parse(cardURL)
	if err1 != nil || err2 != nil {
		return nil // checkAgentURL has judged the syntax
	}
	if localHost(iu.Hostname()) && !localHost(cu.Hostname()) {
		return fmt.Errorf("%w: the card from %s names %s", ErrInterfaceOnThisMachine, cu.Host, iu.Host)
	}
	return nil
}

// localHost reports whether host names this machine or a private or
// link-local address.
func localHost(host string) bool {
	if auth.IsLoopbackHost(host) {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified())
}

// setCard installs a card and a client for its interface. The client it
// replaces is closed (its gRPC channel) once calls under way have had
// their idle timeout to end.
func (c *Core) setCard(a *agentState, card *a2a.AgentCard, iface a2a.AgentInterface) {
	c.mu.Lock()
	allow := a.rec.AllowPlainHTTP
	c.mu.Unlock()
	client := c.newClient(a.rec.ID, card, iface, c.Settings().IdleTimeout, allow)
	c.mu.Lock()
	old := a.client
	a.card, a.iface, a.client, a.status, a.err = card, iface, client, AgentReady, ""
	c.mu.Unlock()
	closeLater(old, c.Settings().IdleTimeout)
}

// replaceClientLocked installs a new client for a, closing the old one
// later. c.mu is held.
func (c *Core) replaceClientLocked(a *agentState, cl *a2a.Client) {
	old := a.client
	a.client = cl
	closeLater(old, c.settings.IdleTimeout)
}

// closeLater closes a replaced client's channel after the idle timeout:
// unary calls under way have ended by then; a stream still open on it ends
// with the channel, as it would with the connection over HTTP.
func closeLater(old *a2a.Client, after time.Duration) {
	if old == nil || old.Transport == nil {
		return
	}
	time.AfterFunc(after, func() { _ = old.Close() })
}

// newClient returns a protocol client for an agent's interface over the
// interface's binding. A binding that cannot be set up (gRPC without TLS
// to another machine) leaves a client whose calls fail with that error.
// It takes no lock (connect calls it under c.mu).
func (c *Core) newClient(agentID string, card *a2a.AgentCard, iface a2a.AgentInterface, idle time.Duration, allow bool) *a2a.Client {
	cl := &a2a.Client{
		Interface: iface, HTTPClient: c.agentHTTPClient(agentID), AIM: card != nil && card.IsAIM(), IdleTimeout: idle,
		Observer: c.observer(agentID),
	}
	tr, err := binding.Transport(iface, binding.Options{AllowPlain: allow, GRPC: c.cfg.GRPC})
	if err != nil {
		tr = failedTransport{binding: a2a.NormalizeBinding(iface.ProtocolBinding), err: err}
	}
	cl.Transport = tr
	if a2a.NormalizeBinding(iface.ProtocolBinding) == a2a.BindingGRPC {
		cl.Credentials = c.agentCredentials(agentID, iface.URL)
		cl.Refused = c.agentRefused(agentID, iface.URL)
	}
	return cl
}

// failedTransport answers every call with the error that kept the
// binding from being set up.
type failedTransport struct {
	binding string
	err     error
}

func (f failedTransport) Binding() string { return f.binding }

func (f failedTransport) Call(context.Context, *a2a.Client, string, any, any) error { return f.err }

func (f failedTransport) Stream(context.Context, *a2a.Client, string, any) iter.Seq2[*a2a.StreamResponse, error] {
	return func(yield func(*a2a.StreamResponse, error) bool) { yield(nil, f.err) }
}

// bindingSettingKey is the settings key of an agent's binding override.
func bindingSettingKey(agentID string) string { return "agent-binding/" + agentID }

// SetAgentBinding sets an agent's protocol binding override ("" for
// automatic, else jsonrpc, http+json or grpc in any spelling ParseBinding
// reads), stores it and reconnects. The card must offer the binding; an
// AIM agent keeps JSON-RPC (the override is stored but has no effect).
func (c *Core) SetAgentBinding(ctx context.Context, id, bindingName string) error {
	b := ""
	if bindingName != "" {
		var err error
		if b, err = a2a.ParseBinding(bindingName); err != nil {
			return err
		}
	}
	c.mu.Lock()
	a := c.agents[id]
	if a == nil {
		c.mu.Unlock()
		return ErrUnknownAgent
	}
	card := a.card
	c.mu.Unlock()
	if card != nil {
		if _, err := a2a.SelectInterfaceFor(card, b); err != nil {
			return err
		}
	}
	if err := c.st.PutSetting(ctx, bindingSettingKey(id), b); err != nil {
		return fmt.Errorf("app: save the agent's binding: %w", err)
	}
	c.mu.Lock()
	a.binding = b
	c.mu.Unlock()
	c.RefreshAgent(id)
	return nil
}

// connect (re)reads an agent's card; on failure the stored card keeps the
// agent usable offline and the error is shown.
func (c *Core) connect(ctx context.Context, id string) {
	c.mu.Lock()
	a := c.agents[id]
	if a == nil {
		c.mu.Unlock()
		return
	}
	rec := a.rec
	a.status = AgentConnecting
	c.mu.Unlock()
	c.publishAgents()
	rc, err := c.resolveCard(ctx, rec.URL)
	var iface a2a.AgentInterface
	if err == nil {
		iface, err = c.selectInterface(id, rc.Card)
	}
	if err == nil {
		err = checkInterface(iface, rc.URL, rec.AllowPlainHTTP)
	}
	if err != nil {
		c.mu.Lock()
		a.status, a.err = AgentOffline, err.Error()
		if a.card != nil && a.client == nil {
			if i, ierr := a2a.SelectInterfaceFor(a.card, a.binding); ierr == nil {
				a.iface = i
				a.client = c.newClient(id, a.card, i, c.settings.IdleTimeout, a.rec.AllowPlainHTTP)
			}
		}
		c.mu.Unlock()
		c.publishAgents()
		return
	}
	if rc.Card.Name != rec.Name || string(rc.Raw) != string(rec.Card) || rc.URL != rec.CardURL {
		rec.Name, rec.Card, rec.CardURL, rec.UpdatedAt = rc.Card.Name, rc.Raw, rc.URL, c.now()
		if err := c.st.PutAgent(ctx, rec); err != nil {
			c.notice(NoticeError, "Could not save %s's card: %v", rec.Name, err)
		}
		c.mu.Lock()
		a.rec = rec
		c.mu.Unlock()
	}
	c.setCard(a, rc.Card, iface)
	c.publishAgents()
	c.afterConnect(ctx, id)
	c.resumeOpenTasks(ctx, id)
}

// selectInterface picks an agent's interface from its card with the
// user's override; an override the card no longer offers falls back to
// the automatic choice.
func (c *Core) selectInterface(id string, card *a2a.AgentCard) (a2a.AgentInterface, error) {
	c.mu.Lock()
	override := ""
	if a := c.agents[id]; a != nil {
		override = a.binding
	}
	c.mu.Unlock()
	iface, err := a2a.SelectInterfaceFor(card, override)
	if errors.Is(err, a2a.ErrBindingNotOffered) {
		return a2a.SelectInterface(card)
	}
	return iface, err
}

// RefreshAgent reads the agent's card again.
func (c *Core) RefreshAgent(id string) {
	c.goBackground(func(ctx context.Context) { c.connect(ctx, id) })
}

// nameSettingKey is the settings key of the name the user gave an agent
// (the card's name is rewritten on every connect, so it is kept apart).
func nameSettingKey(agentID string) string { return "agent-name/" + agentID }

// MaxAgentName bounds the name a user gives an agent, in bytes.
const MaxAgentName = 200

// EditAgent changes an agent's name ("" shows the card's name), address or
// plain-HTTP permission, and reconnects when the address or permission
// changed.
func (c *Core) EditAgent(ctx context.Context, id, name, u string, allowPlainHTTP bool) error {
	name = strings.TrimSpace(name)
	if len(name) > MaxAgentName || strings.ContainsFunc(name, unicode.IsControl) {
		return fmt.Errorf("%w: a name of at most %d characters, on one line", ErrInvalidName, MaxAgentName)
	}
	norm, err := checkAgentURL(u, allowPlainHTTP)
	if err != nil {
		return err
	}
	c.mu.Lock()
	a := c.agents[id]
	if a == nil {
		c.mu.Unlock()
		return ErrUnknownAgent
	}
	rec := a.rec
	c.mu.Unlock()
	moved := rec.URL != norm || rec.AllowPlainHTTP != allowPlainHTTP
	if name == rec.Name {
		name = "" // the card's own name: follow it when it changes
	}
	if err := c.st.PutSetting(ctx, nameSettingKey(id), name); err != nil {
		return fmt.Errorf("app: save agent: %w", err)
	}
	rec.URL, rec.AllowPlainHTTP, rec.UpdatedAt = norm, allowPlainHTTP, c.now()
	if err := c.st.PutAgent(ctx, rec); err != nil {
		return fmt.Errorf("app: save agent: %w", err)
	}
	c.mu.Lock()
	a.rec, a.name = rec, name
	c.mu.Unlock()
	if moved {
		c.RefreshAgent(id)
	} else {
		c.publishAgents()
	}
	return nil
}

// RemoveAgent forgets an agent with its conversations and tasks.
func (c *Core) RemoveAgent(ctx context.Context, id string) error {
	if err := c.st.DeleteAgent(ctx, id); err != nil {
		return fmt.Errorf("app: remove agent: %w", err)
	}
	if err := c.forgetAuth(ctx, id); err != nil {
		c.notice(NoticeError, "Could not remove the agent's sign-in: %v", err)
	}
	c.mu.Lock()
	delete(c.agents, id)
	for i, x := range c.order {
		if x == id {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
	for k, cancel := range c.streams {
		if strings.HasPrefix(k, id+"/") {
			cancel()
		}
	}
	for cid, cs := range c.convs {
		if cs.rec.AgentID == id {
			delete(c.convs, cid)
		}
	}
	c.mu.Unlock()
	c.publishAgents()
	return nil
}

// client returns the agent's protocol client.
func (c *Core) client(agentID string) (*a2a.Client, *agentState, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.agents[agentID]
	if a == nil {
		return nil, nil, ErrUnknownAgent
	}
	if a.client == nil {
		if a.err != "" {
			return nil, nil, fmt.Errorf("%w: %s", ErrNotConnected, a.err)
		}
		return nil, nil, ErrNotConnected
	}
	return a.client, a, nil
}

// resolveCard reads an agent's card within the idle timeout: an agent
// that accepts the connection and never answers (or trickles its card)
// must not leave "Add agent" waiting for ever.
func (c *Core) resolveCard(ctx context.Context, target string) (*a2a.ResolvedCard, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, c.Settings().IdleTimeout, a2a.ErrIdleTimeout)
	defer cancel()
	rc, err := c.resolver.Resolve(ctx, target)
	if err != nil && errors.Is(context.Cause(ctx), a2a.ErrIdleTimeout) {
		return nil, fmt.Errorf("reading the agent card: %w", a2a.ErrIdleTimeout)
	}
	return rc, err
}

// CheckAgentURL is the check the app makes on an address the user types:
// an http(s) URL (https:// is assumed without a scheme), and plain http only
// to this machine unless allowPlain. It returns the normalised URL. The
// command line uses it too, so both refuse the same addresses.
func CheckAgentURL(raw string, allowPlain bool) (string, error) {
	return checkAgentURL(raw, allowPlain)
}

// CheckInterface is the check the app makes on the interface a card names
// (cardURL is where the card was read): its URL passes CheckAgentURL, and a
// card from another machine does not point at this one or the local network.
func CheckInterface(iface a2a.AgentInterface, cardURL string, allowPlain bool) error {
	return checkInterface(iface, cardURL, allowPlain)
}
