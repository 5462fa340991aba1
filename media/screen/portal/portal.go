// Package portal asks xdg-desktop-portal's ScreenCast interface
// (org.freedesktop.portal.ScreenCast, over D-Bus with godbus) for a screen
// or window to share: the portal shows the desktop's own picker, and hands
// back a PipeWire node and a PipeWire connection (a file descriptor) that
// carry the frames (see media/screen/pwstream).
//
// A restore token returned by Start lets the next Start skip the picker
// (persist_mode 2: until the user revokes it); the caller keeps it (see
// media/screen.TokenFile).
//
// Nothing here needs cgo.
package portal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/godbus/dbus/v5"
)

// D-Bus names.
const (
	busName       = "org.freedesktop.portal.Desktop"
	objectPath    = "/org/freedesktop/portal/desktop"
	ifaceCast     = "org.freedesktop.portal.ScreenCast"
	ifaceRequest  = "org.freedesktop.portal.Request"
	ifaceSession  = "org.freedesktop.portal.Session"
	ifaceProps    = "org.freedesktop.DBus.Properties"
	requestPrefix = "/org/freedesktop/portal/desktop/request/"
)

// Errors callers branch on.
var (
	// ErrUnavailable: no session bus, or no ScreenCast portal on it.
	ErrUnavailable = errors.New("portal: screen cast portal unavailable")
	// ErrCancelled: the user closed the picker without choosing.
	ErrCancelled = errors.New("portal: cancelled by the user")
	// ErrNoStream: the portal started a session without any stream.
	ErrNoStream = errors.New("portal: no stream")
)

// SourceType is a bit set of what the picker offers.
type SourceType uint32

// Source types (the portal's AvailableSourceTypes bits).
const (
	SourceMonitor SourceType = 1
	SourceWindow  SourceType = 2
	SourceVirtual SourceType = 4
)

// Cursor modes (the portal's AvailableCursorModes bits).
const (
	cursorHidden   = 1
	cursorEmbedded = 2
)

// persistUntilRevoked is persist_mode 2: the permission lasts until the
// user revokes it (version 4 of the interface).
const persistUntilRevoked = 2

// Options configures Start.
type Options struct {
	// Types offered in the picker; 0 means screens and windows (those the
	// portal supports).
	Types SourceType
	// RestoreToken from an earlier Start: when the portal accepts it, the
	// same source is shared without asking.
	RestoreToken string
	// Cursor: draw the pointer into the frames (when the portal can).
	Cursor bool
}

// Stream is one PipeWire stream of a started session.
type Stream struct {
	NodeID        uint32
	Width, Height int        // the source's size, 0 when the portal does not say
	Type          SourceType // what was chosen, 0 when the portal does not say
}

// Portal is a connection to the session bus's ScreenCast portal.
type Portal struct {
	conn    *dbus.Conn
	own     bool
	sender  string // our unique name, as request paths spell it
	Version uint32 // the interface's version
	Types   SourceType
	Cursors uint32
}

// Connect connects to the session bus at address ("" means
// DBUS_SESSION_BUS_ADDRESS) and reads the ScreenCast portal's properties.
// The connection lives until Close: the portal ends a session whose
// owner's connection closes.
func Connect(ctx context.Context, address string) (*Portal, error) {
	if address == "" {
		address = os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	}
	if address == "" {
		return nil, fmt.Errorf("%w: DBUS_SESSION_BUS_ADDRESS is not set", ErrUnavailable)
	}
	// no dbus.WithContext: it would close the connection (and so end the
	// portal session) when ctx ends; ctx bounds only the calls here
	conn, err := dbus.Connect(address)
	if err != nil {
		return nil, fmt.Errorf("%w: session bus %s: %v", ErrUnavailable, address, err)
	}
	p, err := New(ctx, conn)
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	p.own = true
	return p, nil
}

// New uses an open bus connection (which Close then leaves open).
func New(ctx context.Context, conn *dbus.Conn) (*Portal, error) {
	names := conn.Names()
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: connection has no unique name", ErrUnavailable)
	}
	p := &Portal{conn: conn, sender: strings.ReplaceAll(strings.TrimPrefix(names[0], ":"), ".", "_")}
	obj := conn.Object(busName, objectPath)
	get := func(name string) (uint32, error) {
		var v dbus.Variant
		if err := obj.CallWithContext(ctx, ifaceProps+".Get", 0, ifaceCast, name).Store(&v); err != nil {
			return 0, err
		}
		u, ok := v.Value().(uint32)
		if !ok {
			return 0, fmt.Errorf("%s is %s, want u", name, v.Signature())
		}
		return u, nil
	}
	var err error
	if p.Version, err = get("version"); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	t, err := get("AvailableSourceTypes")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	p.Types = SourceType(t)
	p.Cursors, _ = get("AvailableCursorModes") // version ≥ 2
	return p, nil
}

// Close closes the bus connection when Connect opened it.
func (p *Portal) Close() error {
	if p.own {
		return p.conn.Close()
	}
	return nil
}

// Session is a started screen cast. Close it to stop the streams.
type Session struct {
	p            *Portal
	handle       dbus.ObjectPath
	Streams      []Stream
	RestoreToken string // "" when the portal gave none (then ask again next time)
	once         sync.Once
}

// Start creates a session, lets the user pick (unless o.RestoreToken is
// accepted), and starts the streams. It blocks while the picker is open;
// ctx cancels it.
func (p *Portal) Start(ctx context.Context, o Options) (_ *Session, err error) {
	sessTok := token()
	res, err := p.request(ctx, "CreateSession", map[string]dbus.Variant{
		"session_handle_token": dbus.MakeVariant(sessTok),
	})
	if err != nil {
		return nil, fmt.Errorf("portal: create session: %w", err)
	}
	handle, err := sessionHandle(res)
	if err != nil {
		return nil, err
	}
	s := &Session{p: p, handle: handle}
	defer func() {
		if err != nil {
			_ = s.Close()
		}
	}()

	sel := p.selectOptions(o)
	if _, err := p.request(ctx, "SelectSources", sel, handle); err != nil {
		return nil, fmt.Errorf("portal: select sources: %w", err)
	}
	res, err = p.request(ctx, "Start", map[string]dbus.Variant{}, handle, "")
	if err != nil {
		return nil, fmt.Errorf("portal: start: %w", err)
	}
	s.Streams = parseStreams(res["streams"].Value())
	if len(s.Streams) == 0 {
		return nil, ErrNoStream
	}
	if t, ok := res["restore_token"].Value().(string); ok {
		s.RestoreToken = t
	}
	return s, nil
}

// sessionHandle is the session a CreateSession response names.
func sessionHandle(res map[string]dbus.Variant) (dbus.ObjectPath, error) {
	switch h := res["session_handle"].Value().(type) {
	case string:
		return dbus.ObjectPath(h), nil
	case dbus.ObjectPath:
		return h, nil
	}
	return "", fmt.Errorf("portal: create session: no session_handle in %v", res)
}

// selectOptions are the SelectSources options for o: the source types
// both o and the portal allow, the cursor mode, and (portal version 4)
// a persistent session restored from o's token.
func (p *Portal) selectOptions(o Options) map[string]dbus.Variant {
	types := o.Types
	if types == 0 {
		types = SourceMonitor | SourceWindow
	}
	if p.Types != 0 {
		types &= p.Types
	}
	if types == 0 {
		types = p.Types
	}
	sel := map[string]dbus.Variant{
		"types":    dbus.MakeVariant(uint32(types)),
		"multiple": dbus.MakeVariant(false),
	}
	if p.Cursors&cursorEmbedded != 0 && o.Cursor {
		sel["cursor_mode"] = dbus.MakeVariant(uint32(cursorEmbedded))
	} else if p.Cursors&cursorHidden != 0 && !o.Cursor {
		sel["cursor_mode"] = dbus.MakeVariant(uint32(cursorHidden))
	}
	if p.Version >= 4 {
		sel["persist_mode"] = dbus.MakeVariant(uint32(persistUntilRevoked))
		if o.RestoreToken != "" {
			sel["restore_token"] = dbus.MakeVariant(o.RestoreToken)
		}
	}
	return sel
}

// OpenPipeWireRemote returns a connection to the PipeWire server on which
// only the session's streams are visible. The caller owns the descriptor.
func (s *Session) OpenPipeWireRemote(ctx context.Context) (int, error) {
	var fd dbus.UnixFD
	err := s.p.conn.Object(busName, objectPath).CallWithContext(ctx, ifaceCast+".OpenPipeWireRemote", 0,
		s.handle, map[string]dbus.Variant{}).Store(&fd)
	if err != nil {
		return -1, fmt.Errorf("portal: open pipewire remote: %w", err)
	}
	return int(fd), nil
}

// Close ends the session (and so its streams). It is safe to call twice.
func (s *Session) Close() error {
	var err error
	s.once.Do(func() {
		err = s.p.conn.Object(busName, s.handle).Call(ifaceSession+".Close", 0).Err
		if err != nil {
			err = fmt.Errorf("portal: close session: %w", err)
		}
	})
	return err
}

// request calls a ScreenCast method that answers through a Request
// object's Response signal, and returns the response's results. args go
// before the options, which are the method's last argument.
func (p *Portal) request(ctx context.Context, method string, opts map[string]dbus.Variant, args ...any) (map[string]dbus.Variant, error) {
	tok := token()
	opts["handle_token"] = dbus.MakeVariant(tok)
	path := dbus.ObjectPath(requestPrefix + p.sender + "/" + tok)
	// subscribe before calling: the response may come before the reply
	match := []dbus.MatchOption{
		dbus.WithMatchObjectPath(path),
		dbus.WithMatchInterface(ifaceRequest),
		dbus.WithMatchMember("Response"),
	}
	if err := p.conn.AddMatchSignalContext(ctx, match...); err != nil {
		return nil, fmt.Errorf("%w: add match: %v", ErrUnavailable, err)
	}
	defer func() { _ = p.conn.RemoveMatchSignal(match...) }()
	ch := make(chan *dbus.Signal, 4)
	p.conn.Signal(ch)
	defer p.conn.RemoveSignal(ch)

	var got dbus.ObjectPath
	call := p.conn.Object(busName, objectPath).CallWithContext(ctx, ifaceCast+"."+method, 0, append(args, opts)...)
	if call.Err != nil {
		return nil, call.Err
	}
	if err := call.Store(&got); err != nil {
		return nil, err
	}
	if got != path {
		// an old portal that does not honour handle_token
		_ = p.conn.RemoveMatchSignal(match...)
		match[0] = dbus.WithMatchObjectPath(got)
		if err := p.conn.AddMatchSignalContext(ctx, match...); err != nil {
			return nil, err
		}
		path = got
	}
	for {
		select {
		case <-ctx.Done():
			_ = p.conn.Object(busName, path).Call(ifaceRequest+".Close", 0).Err
			return nil, ctx.Err()
		case sig, ok := <-ch:
			if !ok {
				return nil, fmt.Errorf("%w: bus connection closed", ErrUnavailable)
			}
			if sig.Path != path || sig.Name != ifaceRequest+".Response" || len(sig.Body) < 2 {
				continue
			}
			code, _ := sig.Body[0].(uint32)
			results, _ := sig.Body[1].(map[string]dbus.Variant)
			switch code {
			case 0:
				return results, nil
			case 1:
				return nil, ErrCancelled
			default:
				return nil, fmt.Errorf("portal: %s failed (response %d)", method, code)
			}
		}
	}
}

// parseStreams reads a(ua{sv}).
func parseStreams(v any) []Stream {
	var out []Stream
	list, ok := v.([][]any)
	if !ok {
		return nil
	}
	for _, e := range list {
		if len(e) < 2 {
			continue
		}
		id, ok := e[0].(uint32)
		if !ok {
			continue
		}
		st := Stream{NodeID: id}
		if props, ok := e[1].(map[string]dbus.Variant); ok {
			if sz, ok := props["size"].Value().([]any); ok && len(sz) == 2 {
				w, _ := sz[0].(int32)
				h, _ := sz[1].(int32)
				st.Width, st.Height = int(w), int(h)
			}
			if t, ok := props["source_type"].Value().(uint32); ok {
				st.Type = SourceType(t)
			}
		}
		out = append(out, st)
	}
	return out
}

// token is a fresh handle token (letters, digits and '_' only).
func token() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "aimdesk_" + hex.EncodeToString(b[:])
}
