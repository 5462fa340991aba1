package app

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// Theme is the colour scheme.
type Theme string

// Themes.
const (
	ThemeSystem Theme = "system"
	ThemeLight  Theme = "light"
	ThemeDark   Theme = "dark"
)

// Settings are the user's preferences, stored in the database.
type Settings struct {
	Theme Theme
	// IdleTimeout ends a call or stream when the agent sends nothing for this long.
	IdleTimeout time.Duration
	// Notify enables desktop notifications.
	Notify bool
	// KeepCallTranscripts asks agents that can (transcriptHistory) to keep
	// each call's final text in the conversation; the call's pre-join
	// screen can override it for one call. Off by default.
	KeepCallTranscripts bool
	// KeepInTray keeps aimdesk running in the system tray when its window
	// is closed, where a tray is available (approvals and finished tasks
	// still notify); false makes closing the window quit.
	KeepInTray bool
	// TrayNoticeShown records that the one-time "still running in the
	// tray" notice was shown.
	TrayNoticeShown bool
	// MicAutoGain raises a quiet voice in calls (the echo canceller's
	// automatic gain, media/audio/apm); on by default.
	MicAutoGain bool
}

// DefaultSettings are the settings of a new install.
func DefaultSettings() Settings {
	return Settings{Theme: ThemeSystem, IdleTimeout: 60 * time.Second, Notify: true, KeepInTray: true, MicAutoGain: true}
}

const (
	keyTheme               = "theme"
	keyIdleTimeout         = "idle_timeout_ms"
	keyNotify              = "notify"
	keyKeepCallTranscripts = "keep_call_transcripts"
	keyKeepInTray          = "keep_in_tray"
	keyTrayNotice          = "tray_notice_shown"
	keyMicAutoGain         = "mic_auto_gain"
)

func (c *Core) loadSettings(ctx context.Context) error {
	s := DefaultSettings()
	if v, ok, err := c.st.Setting(ctx, keyTheme); err != nil {
		return fmt.Errorf("app: settings: %w", err)
	} else if ok && (v == string(ThemeLight) || v == string(ThemeDark) || v == string(ThemeSystem)) {
		s.Theme = Theme(v)
	}
	if v, ok, _ := c.st.Setting(ctx, keyIdleTimeout); ok {
		if ms, err := strconv.Atoi(v); err == nil && ms >= 1000 {
			s.IdleTimeout = time.Duration(ms) * time.Millisecond
		}
	}
	if v, ok, _ := c.st.Setting(ctx, keyNotify); ok {
		s.Notify = v != "false"
	}
	if v, ok, _ := c.st.Setting(ctx, keyKeepCallTranscripts); ok {
		s.KeepCallTranscripts = v == "true"
	}
	if v, ok, _ := c.st.Setting(ctx, keyKeepInTray); ok {
		s.KeepInTray = v != "false"
	}
	if v, ok, _ := c.st.Setting(ctx, keyTrayNotice); ok {
		s.TrayNoticeShown = v == "true"
	}
	if v, ok, _ := c.st.Setting(ctx, keyMicAutoGain); ok {
		s.MicAutoGain = v != "false"
	}
	c.mu.Lock()
	c.settings = s
	c.mu.Unlock()
	return nil
}

// Settings returns the current settings.
func (c *Core) Settings() Settings {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.settings
}

// SetSettings stores new settings and applies them to every agent client.
func (c *Core) SetSettings(ctx context.Context, s Settings) error {
	if s.IdleTimeout < time.Second {
		return fmt.Errorf("app: the idle timeout must be at least one second")
	}
	for k, v := range map[string]string{
		keyTheme: string(s.Theme), keyIdleTimeout: strconv.FormatInt(s.IdleTimeout.Milliseconds(), 10), keyNotify: strconv.FormatBool(s.Notify),
		keyKeepCallTranscripts: strconv.FormatBool(s.KeepCallTranscripts),
		keyKeepInTray:          strconv.FormatBool(s.KeepInTray), keyTrayNotice: strconv.FormatBool(s.TrayNoticeShown),
		keyMicAutoGain: strconv.FormatBool(s.MicAutoGain),
	} {
		if err := c.st.PutSetting(ctx, k, v); err != nil {
			return fmt.Errorf("app: save settings: %w", err)
		}
	}
	c.mu.Lock()
	c.settings = s
	for _, a := range c.agents {
		if a.client != nil {
			// a new client: calls in flight keep their timeout
			c.replaceClientLocked(a, c.newClient(a.rec.ID, a.card, a.iface, s.IdleTimeout, a.rec.AllowPlainHTTP))
		}
	}
	c.mu.Unlock()
	c.publish(Event{Settings: &s})
	return nil
}

// DataPath is where the local database lives.
func (c *Core) DataPath() string { return c.st.Path() }

// ClearLocalData deletes every agent, conversation, task and setting
// (except the demo agent, which is added again).
func (c *Core) ClearLocalData(ctx context.Context) error {
	c.mu.Lock()
	for _, cancel := range c.streams {
		cancel()
	}
	ids := append([]string(nil), c.order...)
	c.mu.Unlock()
	for _, id := range ids {
		if err := c.forgetAuth(ctx, id); err != nil {
			c.notice(NoticeError, "Could not remove a sign-in: %v", err)
		}
	}
	if err := c.st.Clear(ctx); err != nil {
		return fmt.Errorf("app: clear local data: %w", err)
	}
	c.mu.Lock()
	c.agents, c.order, c.convs = map[string]*agentState{}, nil, map[string]*convState{}
	c.replies, c.byTask = map[string]*reply{}, map[string]*reply{}
	c.settings = DefaultSettings()
	s := c.settings
	c.mu.Unlock()
	if c.cfg.DemoAgentURL != "" {
		if err := c.ensureDemoAgent(ctx, c.cfg.DemoAgentURL); err != nil {
			return err
		}
		c.RefreshAgent(DemoAgentID)
	}
	c.publishAgents()
	c.publish(Event{Settings: &s})
	return nil
}
