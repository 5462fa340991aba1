package ui

import (
	"errors"
	"fmt"
	"image/color"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
)

// Idle timeout bounds the settings accept, in seconds.
const (
	settingsMinIdle = 1
	settingsMaxIdle = 24 * 60 * 60
	// settingsClearWord is what the user types to clear local data.
	settingsClearWord = "DELETE"
)

// prefTheme is Fyne's default theme in the variant the user chose: light
// or dark whatever the system says, or the system's own for ThemeSystem.
type prefTheme struct{ pref app.Theme }

var _ fyne.Theme = (*prefTheme)(nil)

func (t *prefTheme) variant(v fyne.ThemeVariant) fyne.ThemeVariant {
	switch t.pref {
	case app.ThemeLight:
		return theme.VariantLight
	case app.ThemeDark:
		return theme.VariantDark
	}
	return v
}

// Color is the default theme's colour in the chosen variant.
func (t *prefTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	return theme.DefaultTheme().Color(n, t.variant(v))
}

// Font is the default theme's.
func (t *prefTheme) Font(s fyne.TextStyle) fyne.Resource { return theme.DefaultTheme().Font(s) }

// Icon is the default theme's.
func (t *prefTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return theme.DefaultTheme().Icon(n) }

// Size is the default theme's.
func (t *prefTheme) Size(n fyne.ThemeSizeName) float32 { return theme.DefaultTheme().Size(n) }

// applyTheme makes the app follow the theme preference t (unknown values
// follow the system). Call it on the Fyne goroutine: at start-up and on
// every Settings event. Applying the theme already applied does nothing.
func applyTheme(a fyne.App, t app.Theme) {
	if t != app.ThemeLight && t != app.ThemeDark {
		t = app.ThemeSystem
	}
	if cur, ok := a.Settings().Theme().(*prefTheme); ok && cur.pref == t {
		return
	}
	a.Settings().SetTheme(&prefTheme{pref: t})
}

// settingsThemeChoices are the theme radio's labels, in order.
var settingsThemeChoices = []struct {
	label string
	theme app.Theme
}{
	{"Light", app.ThemeLight},
	{"Dark", app.ThemeDark},
	{"Follow the system", app.ThemeSystem},
}

func settingsThemeLabel(t app.Theme) string {
	for _, c := range settingsThemeChoices {
		if c.theme == t {
			return c.label
		}
	}
	return settingsThemeChoices[len(settingsThemeChoices)-1].label
}

func settingsThemeOf(label string) app.Theme {
	for _, c := range settingsThemeChoices {
		if c.label == label {
			return c.theme
		}
	}
	return app.ThemeSystem
}

// settingsParseIdle reads the idle timeout field: whole seconds, at least
// one.
func settingsParseIdle(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("type the idle timeout in seconds")
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, errors.New("type a whole number of seconds, such as 60")
	}
	if n < settingsMinIdle {
		return 0, fmt.Errorf("the idle timeout must be at least %d second", settingsMinIdle)
	}
	if n > settingsMaxIdle {
		return 0, fmt.Errorf("the idle timeout can be at most %d seconds (a day)", settingsMaxIdle)
	}
	return time.Duration(n) * time.Second, nil
}

// settingsForm is the settings dialog's content.
type settingsForm struct {
	env   *uiEnv
	orig  app.Settings // as stored; the theme returns to it when the dialog closes unsaved
	saved bool
	busy  bool

	themeRadio  *widget.RadioGroup
	idleEntry   *widget.Entry
	notifyCheck *widget.Check
	keepCheck   *widget.Check
	trayCheck   *widget.Check
	gainCheck   *widget.Check
	pathLabel   *widget.Label
	copyPathBtn *widget.Button
	clearBtn    *widget.Button
	saveBtn     *widget.Button
	closeBtn    *widget.Button
	status      *widget.Label
	progress    *widget.ProgressBarInfinite
	content     fyne.CanvasObject
	dlg         dialog.Dialog

	// onDone, if set, runs when the dialog should close.
	onDone func()
}

// showSettings opens the settings dialog over the main window.
func showSettings(env *uiEnv) { openSettings(env) }

// openSettings opens the settings dialog and returns its form.
func openSettings(env *uiEnv) *settingsForm {
	f := newSettingsForm(env)
	d := dialog.NewCustomWithoutButtons("Settings", f.content, env.win)
	f.dlg = d
	f.onDone = d.Hide
	d.SetOnClosed(f.closed)
	d.Resize(fyne.NewSize(560, 0).Max(d.MinSize()))
	d.Show()
	return f
}

func newSettingsForm(env *uiEnv) *settingsForm {
	f := &settingsForm{env: env, orig: env.core.Settings()}
	labels := make([]string, len(settingsThemeChoices))
	for i, c := range settingsThemeChoices {
		labels[i] = c.label
	}
	f.themeRadio = widget.NewRadioGroup(labels, nil)
	f.themeRadio.Horizontal = true
	f.themeRadio.Required = true
	f.themeRadio.SetSelected(settingsThemeLabel(f.orig.Theme))
	f.themeRadio.OnChanged = func(label string) { applyTheme(env.app, settingsThemeOf(label)) }

	f.idleEntry = widget.NewEntry()
	f.idleEntry.SetText(strconv.FormatInt(int64(f.orig.IdleTimeout/time.Second), 10))
	f.idleEntry.Validator = func(s string) error {
		_, err := settingsParseIdle(s)
		return err
	}
	f.idleEntry.OnSubmitted = func(string) { f.save() }
	f.notifyCheck = widget.NewCheck("Show desktop notifications", nil)
	f.notifyCheck.SetChecked(f.orig.Notify)
	f.keepCheck = widget.NewCheck("Keep call transcripts in the conversation", nil)
	f.keepCheck.SetChecked(f.orig.KeepCallTranscripts)
	f.trayCheck = widget.NewCheck("Keep running in the system tray when the window is closed", nil)
	f.trayCheck.SetChecked(f.orig.KeepInTray)
	f.gainCheck = widget.NewCheck("Raise a quiet microphone automatically", nil)
	f.gainCheck.SetChecked(f.orig.MicAutoGain)

	f.pathLabel = widget.NewLabel(env.core.DataPath())
	f.pathLabel.Wrapping = fyne.TextWrapBreak
	f.pathLabel.Selectable = true
	f.copyPathBtn = widget.NewButton("Copy path", func() {
		env.app.Clipboard().SetContent(env.core.DataPath())
		f.showStatus("The path is on the clipboard.", widget.MediumImportance)
	})
	f.clearBtn = widget.NewButton("Clear local data…", f.confirmClear)
	f.clearBtn.Importance = widget.DangerImportance

	f.status = widget.NewLabel("")
	f.status.Wrapping = fyne.TextWrapWord
	f.status.Hide()
	f.progress = widget.NewProgressBarInfinite()
	f.progress.Hide()
	f.saveBtn = widget.NewButton("Save", f.save)
	f.saveBtn.Importance = widget.HighImportance
	f.closeBtn = widget.NewButton("Close", f.done)

	idleHelp := widget.NewLabel("End a call or stream when the agent sends nothing for this long.")
	idleHelp.Wrapping = fyne.TextWrapWord
	idleHelp.Importance = widget.LowImportance
	notifyHelp := widget.NewLabel("When a task finishes, fails or needs you while aimdesk is in the background.")
	notifyHelp.Wrapping = fyne.TextWrapWord
	notifyHelp.Importance = widget.LowImportance
	keepHelp := widget.NewLabel("Asks agents that can to keep each call's final text in the chat the call started from " +
		"(audio and video are never recorded). You can change it for one call before joining.")
	keepHelp.Wrapping = fyne.TextWrapWord
	keepHelp.Importance = widget.LowImportance
	form := widget.NewForm(
		widget.NewFormItem("Theme", f.themeRadio),
		widget.NewFormItem("Idle timeout (seconds)", container.NewVBox(f.idleEntry, idleHelp)),
		widget.NewFormItem("Notifications", container.NewVBox(f.notifyCheck, notifyHelp, f.trayCheck)),
		widget.NewFormItem("Calls", container.NewVBox(f.keepCheck, keepHelp, f.gainCheck)),
	)
	dataHead := widget.NewLabel("Your local data")
	dataHead.TextStyle = fyne.TextStyle{Bold: true}
	dataHelp := widget.NewLabel("Agents, conversations, tasks and settings are kept in this file on this computer:")
	dataHelp.Wrapping = fyne.TextWrapWord
	data := container.NewVBox(dataHead, dataHelp, f.pathLabel, container.NewHBox(f.copyPathBtn, f.clearBtn))
	buttons := container.NewHBox(layout.NewSpacer(), f.closeBtn, f.saveBtn)
	f.content = container.NewVBox(form, widget.NewSeparator(), data, widget.NewSeparator(), f.progress, f.status, buttons)
	return f
}

func (f *settingsForm) showStatus(text string, imp widget.Importance) {
	f.status.Importance = imp
	f.status.SetText(text)
	f.status.Show()
}

func (f *settingsForm) setBusy(b bool) {
	f.busy = b
	if b {
		f.progress.Show()
		f.saveBtn.Disable()
		f.clearBtn.Disable()
	} else {
		f.progress.Hide()
		f.saveBtn.Enable()
		f.clearBtn.Enable()
	}
}

// values reads the form; the error says which field is wrong.
func (f *settingsForm) values() (app.Settings, error) {
	idle, err := settingsParseIdle(f.idleEntry.Text)
	if err != nil {
		return app.Settings{}, err
	}
	s := f.orig // settings this form does not show keep their values
	s.Theme, s.IdleTimeout, s.Notify = settingsThemeOf(f.themeRadio.Selected), idle, f.notifyCheck.Checked
	s.KeepCallTranscripts, s.KeepInTray = f.keepCheck.Checked, f.trayCheck.Checked
	s.MicAutoGain = f.gainCheck.Checked
	return s, nil
}

// save stores the settings through the core and closes the dialog.
func (f *settingsForm) save() {
	if f.busy {
		return
	}
	s, err := f.values()
	if err != nil {
		f.showStatus(opsUpper(err.Error())+".", widget.DangerImportance)
		return
	}
	f.setBusy(true)
	f.showStatus("Saving…", widget.MediumImportance)
	ctx, core := f.env.ctx, f.env.core
	go func() {
		err := core.SetSettings(ctx, s)
		opsDo(f.env, func() {
			f.setBusy(false)
			if err != nil {
				f.showStatus("Not saved: "+opsErrText(err), widget.DangerImportance)
				return
			}
			f.orig, f.saved = s, true
			f.showStatus("Saved.", widget.SuccessImportance)
			f.done()
		})
	}()
}

func (f *settingsForm) done() {
	if f.onDone != nil {
		f.onDone()
		return
	}
	f.closed()
}

// closed puts the stored theme back when the user closed without saving.
func (f *settingsForm) closed() {
	applyTheme(f.env.app, f.orig.Theme)
}

// confirmClear asks for the word DELETE before clearing local data.
func (f *settingsForm) confirmClear() {
	f.clearDialog().Show()
}

func (f *settingsForm) clearDialog() *dialog.CustomDialog {
	warn := widget.NewLabel("This deletes every agent, conversation, task and setting that aimdesk keeps on this computer. " +
		"It cannot be undone. Agents keep their own copies of tasks.")
	warn.Wrapping = fyne.TextWrapWord
	ask := widget.NewLabel("Type " + settingsClearWord + " to confirm.")
	word := widget.NewEntry()
	word.SetPlaceHolder(settingsClearWord)
	del := widget.NewButton("Delete everything", nil)
	del.Importance = widget.DangerImportance
	del.Disable() // until the word is typed
	keep := widget.NewButton("Keep my data", nil)
	content := container.NewVBox(warn, ask, word, container.NewHBox(layout.NewSpacer(), keep, del))
	d := dialog.NewCustomWithoutButtons("Clear local data?", content, f.env.win)
	armed := func(s string) bool { return strings.TrimSpace(s) == settingsClearWord }
	word.OnChanged = func(s string) {
		if armed(s) {
			del.Enable()
		} else {
			del.Disable()
		}
	}
	del.OnTapped = func() {
		if armed(word.Text) {
			d.Hide()
			f.clear()
		}
	}
	word.OnSubmitted = func(string) { del.OnTapped() }
	keep.OnTapped = d.Hide
	d.Resize(fyne.NewSize(460, 0).Max(d.MinSize()))
	return d
}

// clear deletes the local data through the core.
func (f *settingsForm) clear() {
	f.setBusy(true)
	f.showStatus("Clearing local data…", widget.MediumImportance)
	ctx, core := f.env.ctx, f.env.core
	go func() {
		err := core.ClearLocalData(ctx)
		s := core.Settings()
		opsDo(f.env, func() {
			f.setBusy(false)
			if err != nil {
				f.showStatus("Not cleared: "+opsErrText(err), widget.DangerImportance)
				return
			}
			f.orig = s
			f.themeRadio.SetSelected(settingsThemeLabel(s.Theme))
			f.idleEntry.SetText(strconv.FormatInt(int64(s.IdleTimeout/time.Second), 10))
			f.notifyCheck.SetChecked(s.Notify)
			f.keepCheck.SetChecked(s.KeepCallTranscripts)
			f.trayCheck.SetChecked(s.KeepInTray)
			f.gainCheck.SetChecked(s.MicAutoGain)
			f.showStatus("Local data cleared. Settings are back to their defaults.", widget.SuccessImportance)
		})
	}()
}
