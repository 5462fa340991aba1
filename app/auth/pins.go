package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// PinStore remembers, per agent, scheme and flow, the identity provider
// endpoints in use at first sign-in. Pins are not secret (they are URLs) and
// outlive sign-out on purpose: signing out and in again must not be a way
// around a moved endpoint. Forget them when the agent is removed.
type PinStore interface {
	Pin(agentID, scheme string, flow Flow) (Endpoints, bool, error)
	SetPin(agentID, scheme string, flow Flow, e Endpoints) error
	// Forget removes every pin of the agent.
	Forget(agentID string) error
}

func pinKey(agentID, scheme string, flow Flow) string {
	return agentID + "\x00" + scheme + "\x00" + string(flow)
}

// MemoryPins is a PinStore in memory (tests, or a session that must not
// write). The zero value is usable.
type MemoryPins struct {
	mu sync.Mutex
	m  map[string]Endpoints
}

// Pin implements PinStore.
func (p *MemoryPins) Pin(agentID, scheme string, flow Flow) (Endpoints, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.m[pinKey(agentID, scheme, flow)]
	return e, ok, nil
}

// SetPin implements PinStore.
func (p *MemoryPins) SetPin(agentID, scheme string, flow Flow, e Endpoints) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]Endpoints{}
	}
	p.m[pinKey(agentID, scheme, flow)] = e
	return nil
}

// Forget implements PinStore.
func (p *MemoryPins) Forget(agentID string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k := range p.m {
		if strings.HasPrefix(k, agentID+"\x00") {
			delete(p.m, k)
		}
	}
	return nil
}

// FilePins is a PinStore in one JSON file (0600, written atomically).
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
	return m, nil
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
func (p *FilePins) Pin(agentID, scheme string, flow Flow) (Endpoints, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m, err := p.load()
	if err != nil {
		return Endpoints{}, false, err
	}
	e, ok := m[pinKey(agentID, scheme, flow)]
	return e, ok, nil
}

// SetPin implements PinStore.
func (p *FilePins) SetPin(agentID, scheme string, flow Flow, e Endpoints) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	m, err := p.load()
	if err != nil {
		return err
	}
	m[pinKey(agentID, scheme, flow)] = e
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
	for k := range m {
		if strings.HasPrefix(k, agentID+"\x00") {
			delete(m, k)
		}
	}
	return p.save(m)
}
