package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
)

func TestSettingsParseIdle(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"60", time.Minute, ""},
		{" 1 ", time.Second, ""},
		{"86400", 24 * time.Hour, ""},
		{"0", 0, "at least 1 second"},
		{"-5", 0, "at least 1 second"},
		{"1.5", 0, "whole number"},
		{"abc", 0, "whole number"},
		{"", 0, "type the idle timeout"},
		{"86401", 0, "at most"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := settingsParseIdle(c.in)
			if c.err == "" {
				if err != nil || got != c.want {
					t.Errorf("settingsParseIdle(%q) = %v, %v; want %v", c.in, got, err, c.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("settingsParseIdle(%q) error = %v, want one saying %q", c.in, err, c.err)
			}
		})
	}
}

func TestSettingsApplyTheme(t *testing.T) {
	a := test.NewTempApp(t)
	cases := []struct {
		pref app.Theme
		// the variant the theme uses when the system is dark
		onDark fyne.ThemeVariant
	}{
		{app.ThemeLight, theme.VariantLight},
		{app.ThemeDark, theme.VariantDark},
		{app.ThemeSystem, theme.VariantDark},
		{"purple", theme.VariantDark}, // unknown: follow the system
	}
	for _, c := range cases {
		t.Run(string(c.pref), func(t *testing.T) {
			applyTheme(a, c.pref)
			th, ok := a.Settings().Theme().(*prefTheme)
			if !ok {
				t.Fatalf("theme is %T", a.Settings().Theme())
			}
			want := theme.DefaultTheme().Color(theme.ColorNameBackground, c.onDark)
			if got := th.Color(theme.ColorNameBackground, theme.VariantDark); got != want {
				t.Errorf("background = %v, want %v", got, want)
			}
		})
	}
	applyTheme(a, app.ThemeDark)
	before := a.Settings().Theme()
	applyTheme(a, app.ThemeDark)
	if a.Settings().Theme() != before {
		t.Error("applying the same theme again replaced it")
	}
}

func TestSettingsSaveAndPersist(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{noAgent: true})
	var got *app.Settings
	h.sink(func(ev app.Event) {
		if ev.Settings != nil {
			got = ev.Settings
		}
	})
	f := newSettingsForm(h.env)
	closed := false
	f.onDone = func() { closed = true }
	h.win.SetContent(f.content)

	if f.idleEntry.Text != "60" || f.themeRadio.Selected != "Follow the system" || !f.notifyCheck.Checked {
		t.Fatalf("form does not show the defaults: %q %q %v", f.idleEntry.Text, f.themeRadio.Selected, f.notifyCheck.Checked)
	}
	if f.pathLabel.Text != h.path {
		t.Errorf("data path = %q, want %q", f.pathLabel.Text, h.path)
	}
	opsTap(t, f.copyPathBtn, "Copy path")
	if h.app.Clipboard().Content() != h.path {
		t.Errorf("clipboard = %q", h.app.Clipboard().Content())
	}

	// The theme applies as soon as it is chosen.
	f.themeRadio.SetSelected("Dark")
	if th, ok := h.app.Settings().Theme().(*prefTheme); !ok || th.pref != app.ThemeDark {
		t.Errorf("theme = %#v, want dark at once", h.app.Settings().Theme())
	}

	// An invalid timeout is refused, in words, and nothing is saved.
	f.idleEntry.SetText("0")
	opsTap(t, f.saveBtn, "Save")
	if !f.status.Visible() || !strings.Contains(f.status.Text, "at least 1 second") {
		t.Errorf("status = %q", f.status.Text)
	}
	h.settle(50 * time.Millisecond)
	if closed || h.core.Settings().IdleTimeout != time.Minute {
		t.Fatal("an invalid form was saved")
	}

	f.idleEntry.SetText("")
	test.Type(f.idleEntry, "42")
	test.Tap(f.notifyCheck)
	if f.keepCheck.Checked {
		t.Fatal("call transcripts are kept by default")
	}
	test.Tap(f.keepCheck)
	if !f.gainCheck.Checked {
		t.Fatal("the microphone's automatic gain is off by default")
	}
	test.Tap(f.gainCheck)
	opsTap(t, f.saveBtn, "Save")
	h.waitFor("the save", func() bool { return closed })
	want := app.Settings{Theme: app.ThemeDark, IdleTimeout: 42 * time.Second, Notify: false, KeepCallTranscripts: true, KeepInTray: true, MicAutoGain: false}
	if s := h.core.Settings(); s != want {
		t.Errorf("core settings = %+v, want %+v", s, want)
	}
	h.waitFor("the Settings event", func() bool { return got != nil && *got == want })

	// Reopen the core on the same database: the same settings.
	h.closeCore()
	h.openCore()
	if s := h.core.Settings(); s != want {
		t.Errorf("after reopening: %+v, want %+v", s, want)
	}
	f2 := newSettingsForm(h.env)
	if f2.idleEntry.Text != "42" || f2.themeRadio.Selected != "Dark" || f2.notifyCheck.Checked || !f2.keepCheck.Checked {
		t.Errorf("reopened form: %q %q %v", f2.idleEntry.Text, f2.themeRadio.Selected, f2.notifyCheck.Checked)
	}
}

func TestSettingsCloseWithoutSavingRevertsTheme(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{noAgent: true})
	applyTheme(h.app, app.ThemeLight)
	if err := h.core.SetSettings(h.ctx, app.Settings{Theme: app.ThemeLight, IdleTimeout: time.Minute, Notify: true}); err != nil {
		t.Fatal(err)
	}
	f := openSettings(h.env)
	if opsOverlayButton(h.win, "Save") == nil {
		t.Fatal("the settings dialog has no Save button")
	}
	f.themeRadio.SetSelected("Dark")
	if th := h.app.Settings().Theme().(*prefTheme); th.pref != app.ThemeDark {
		t.Fatal("the theme did not apply at once")
	}
	opsTap(t, opsOverlayButton(h.win, "Close"), "Close")
	if len(h.win.Canvas().Overlays().List()) != 0 {
		t.Error("Close left the dialog open")
	}
	if th := h.app.Settings().Theme().(*prefTheme); th.pref != app.ThemeLight {
		t.Errorf("after closing unsaved the theme is %s, want light", th.pref)
	}
}

func TestSettingsClearLocalData(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{})
	if err := h.core.SetSettings(h.ctx, app.Settings{Theme: app.ThemeDark, IdleTimeout: 5 * time.Second, Notify: false}); err != nil {
		t.Fatal(err)
	}
	f := newSettingsForm(h.env)
	h.win.SetContent(f.content)
	h.win.Resize(fyne.NewSize(600, 600))
	opsTap(t, f.clearBtn, "Clear local data…")
	del := opsOverlayButton(h.win, "Delete everything")
	if del == nil {
		t.Fatal("no confirmation dialog")
	}
	if !del.Disabled() {
		t.Fatal("Delete everything is enabled before the word is typed")
	}
	var word *widget.Entry
	for _, o := range test.LaidOutObjects(h.win.Canvas().Overlays().Top()) {
		if e, ok := o.(*widget.Entry); ok {
			word = e
		}
	}
	if word == nil {
		t.Fatal("no entry for the confirmation word")
	}
	test.Type(word, "delete")
	if !del.Disabled() {
		t.Error("a lower-case word armed the button")
	}
	word.SetText("")
	test.Type(word, settingsClearWord)
	opsTap(t, del, "Delete everything")
	h.waitFor("the clearing", func() bool { return !f.busy && f.status.Visible() && f.status.Text != "Clearing local data…" })
	if !strings.Contains(f.status.Text, "Local data cleared") {
		t.Fatalf("status = %q", f.status.Text)
	}
	if n := len(h.core.Agents()); n != 0 {
		t.Errorf("%d agents left", n)
	}
	if s := h.core.Settings(); s != app.DefaultSettings() {
		t.Errorf("settings = %+v, want the defaults", s)
	}
	if f.idleEntry.Text != "60" || f.themeRadio.Selected != "Follow the system" || !f.notifyCheck.Checked {
		t.Errorf("form does not show the defaults: %q %q %v", f.idleEntry.Text, f.themeRadio.Selected, f.notifyCheck.Checked)
	}
}

// TestNewWindowAppliesThemeFirst checks that the window is built with the
// saved theme already set, so the core's first Settings event changes
// nothing: a theme set after the window was built makes Fyne parse its
// fonts and measure its texts again (docs/benchmarks.md, Memory).
func TestNewWindowAppliesThemeFirst(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{noAgent: true})
	s := h.core.Settings()
	s.Theme = app.ThemeDark
	if err := h.core.SetSettings(h.ctx, s); err != nil {
		t.Fatalf("save settings: %v", err)
	}
	q := &postQueue{}
	w := newThemedWindow(h.ctx, h.app, h.core, Config{}, q.Post)
	if th, ok := h.app.Settings().Theme().(*prefTheme); !ok || th.pref != app.ThemeDark {
		t.Fatalf("theme while the window is built = %T, want the saved dark preference", h.app.Settings().Theme())
	}
	changes := 0
	h.app.Settings().AddListener(func(fyne.Settings) { changes++ })
	w.start()
	t.Cleanup(func() { w.Close(); q.Drain() })
	ran, deadline := 0, time.Now().Add(20*time.Second)
	for ran == 0 { // the core's first event, which carries the settings
		if time.Now().After(deadline) {
			t.Fatal("the core's first event did not arrive")
		}
		time.Sleep(5 * time.Millisecond)
		ran += q.Drain()
	}
	if changes != 0 {
		t.Errorf("the theme was set %d more times after the window was built, want 0", changes)
	}
}
