package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// PinStore remembers, per agent, the identity provider endpoints in use at
// first sign-in. The key is the agent alone, not the scheme's name or the
// flow: a card that renames its scheme, or offers another flow, must not get
// a fresh pin (and so no "endpoints changed" warning). A pin holds the union
// of the endpoints of the flows signed in with (Endpoints.conflicts says
// what counts as a change). Pins are not secret (they are URLs) and outlive
// sign-out on purpose: signing out and in again must not be a way around a
// moved endpoint. Forget them when the agent is removed.
type PinStore interface {
	Pin(agentID string) (Endpoints, bool, error)
	SetPin(agentID string, e Endpoints) error
	// Forget removes the agent's pin.
	Forget(agentID string) error
}

// MemoryPins is a PinStore in memory (tests, or a session that must not
// write). The zero value is usable.
type MemoryPins struct {
	mu sync.Mutex
	m  map[string]Endpoints
}

// Pin implements PinStore.
func (p *MemoryPins) Pin(agentID string) (Endpoints, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.m[agentID]
	return e, ok, nil
}

// SetPin implements PinStore.
func (p *MemoryPins) SetPin(agentID string, e Endpoints) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]Endpoints{}
	}
	p.m[agentID] = e
	return nil
}

// Forget implements PinStore.
func (p *MemoryPins) Forget(agentID string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.m, agentID)
	return nil
}

// FilePins is a PinStore in one JSON file (0600, written atomically), keyed
// by agent id. Files of earlier versions, keyed by agent, scheme and flow
// ("agent\x00scheme\x00flow"), are migrated when read (see migratePins).
type FilePins struct {
	Path string
	mu   sync.Mutex
}

func (p *FilePins) load() (map[string]Endpoints, error) {
	b, err := os.ReadFile(p.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Endpoints{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("auth: pins: %w", err)
	}
	m := map[string]Endpoints{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("auth: pins %s: %w", p.Path, err)
	}
	return migratePins(m), nil
}

// migratePins turns pins keyed by agent, scheme and flow into pins keyed
// by agent: an agent's old pins are merged when they agree; when they
// conflict (two schemes at two providers), the authorization-code flow's
// pin is kept, else the first in key order, so that signing in with any
// other is flagged as a change (the safe direction: the user is asked).
func migratePins(m map[string]Endpoints) map[string]Endpoints {
	var old []string
	for k := range m {
		if strings.Contains(k, "\x00") {
			old = append(old, k)
		}
	}
	if len(old) == 0 {
		return m
	}
	rank := func(k string) int {
		if strings.HasSuffix(k, "\x00"+string(FlowAuthorizationCode)) {
			return 0
		}
		return 1
	}
	sort.Slice(old, func(i, j int) bool {
		if ri, rj := rank(old[i]), rank(old[j]); ri != rj {
			return ri < rj
		}
		return old[i] < old[j]
	})
	out := map[string]Endpoints{}
	for k, e := range m {
		if !strings.Contains(k, "\x00") {
			out[k] = e
		}
	}
	for _, k := range old {
		agent, _, _ := strings.Cut(k, "\x00")
		cur, ok := out[agent]
		switch {
		case !ok:
			out[agent] = m[k]
		case len(cur.conflicts(m[k])) == 0:
			out[agent] = cur.merge(m[k])
		}
	}
	return out
}

func (p *FilePins) save(m map[string]Endpoints) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("auth: pins: %w", err)
	}
	dir := filepath.Dir(p.Path)
	if err := ensurePrivateDir(dir); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".pins-*")
	if err != nil {
		return fmt.Errorf("auth: pins: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("auth: pins: %w", err)
	}
	if err := os.Rename(tmp.Name(), p.Path); err != nil {
		return fmt.Errorf("auth: pins: %w", err)
	}
	return nil
}

// Pin implements PinStore.
func (p *FilePins) Pin(agentID string) (Endpoints, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m, err := p.load()
	if err != nil {
		return Endpoints{}, false, err
	}
	e, ok := m[agentID]
	return e, ok, nil
}

// SetPin implements PinStore.
func (p *FilePins) SetPin(agentID string, e Endpoints) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	m, err := p.load()
	if err != nil {
		return err
	}
	m[agentID] = e
	return p.save(m)
}

// Forget implements PinStore.
func (p *FilePins) Forget(agentID string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	m, err := p.load()
	if err != nil {
		return err
	}
	delete(m, agentID)
	return p.save(m)
}
