// Package ui holds aimdesk's Fyne views. It observes the core (package app)
// through events and calls its methods; it never builds protocol requests.
//
// # Concurrency
//
// One goroutine ranges over the core's event stream (Core.Subscribe) and
// hands each event to the Fyne goroutine (fyne.Do), where the window
// dispatches it to the views. Views call the core from their callbacks in
// new goroutines (`go`), and bring results back through uiEnv.do. Widgets
// are only touched on the Fyne goroutine.
package ui

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
	"aimdesk/media/mediaapi"
	"aimdesk/ui/errtext"
)

// Config says what the main window starts with. The zero value opens the
// window on the first agent and sends nothing.
type Config struct {
	// OpenAgentID selects this agent at start; "" means the first agent.
	OpenAgentID string
	// SendOnStart, when not empty, is sent once in a new conversation with
	// the agent OpenAgentID (or the first agent) as soon as that agent is
	// ready. The smoke test (aimdesk --demo --send "…") uses it.
	SendOnStart string
	// Title is the window title; "" means "aimdesk".
	Title string
	// MediaEngine opens the media engine for calls (callwin.Env); nil:
	// calls say this copy of aimdesk has no audio and video.
	MediaEngine func() (mediaapi.Engine, error)
}

// Window is aimdesk's main window: a sidebar with agents and their
// conversations, the conversation in the middle, and a side panel with
// the agent's card, its tasks and the protocol console.
type Window struct {
	fyne.Window

	// OnApprovalRequested is called on the Fyne goroutine when the user asks
	// to review what a task waits for (TASK_STATE_AUTH_REQUIRED). nil shows
	// the request's prompt in a plain dialog.
	OnApprovalRequested func(agentID, taskID string)

	ctx  context.Context
	core *app.Core
	cfg  Config
	env  *uiEnv
	post func(func())

	side      *sidebar
	chat      *chatView
	details   *agentDetails
	tasks     *tasksPanel
	console   *consolePanel
	notify    *notifier
	approvals *approvalsUI
	calls     callWindows
	sideTabs  *container.AppTabs
	chatSplit *container.Split
	right     *fyne.Container // the conversation, with the side panel or without
	sideShown bool
	status    *statusBar

	agents      []app.Agent
	agentID     string // the selected agent
	sentOnStart bool
	pendingOpen app.Conversation // asked for by a launch, opened once its agent is listed
	dialogs     []dialog.Dialog
	stop        func()
}

// New builds the main window for core and starts following the core's
// events until ctx ends or the window closes. Show it with ShowAndRun.
func New(ctx context.Context, a fyne.App, core *app.Core, cfg Config) *Window {
	w := newThemedWindow(ctx, a, core, cfg, fyne.Do)
	w.start()
	return w
}

// newThemedWindow applies the saved theme preference, then builds the
// window. The theme comes first: set later (on the core's first Settings
// event), Fyne drops every font face it parsed and every text it measured
// for the window so far and does it all again, and the first set stays
// behind as garbage spread over the heap's spans (about 8 MB of idle
// anonymous memory, docs/benchmarks.md, Memory).
func newThemedWindow(ctx context.Context, a fyne.App, core *app.Core, cfg Config, post func(func())) *Window {
	applyTheme(a, core.Settings().Theme)
	return newWindow(ctx, a, core, cfg, post)
}

// newWindow builds the window without subscribing to the core; post runs a
// function on the Fyne goroutine (fyne.Do, or a queue in tests).
func newWindow(ctx context.Context, a fyne.App, core *app.Core, cfg Config, post func(func())) *Window {
	title := cfg.Title
	if title == "" {
		title = "aimdesk"
	}
	w := &Window{Window: a.NewWindow(title), ctx: ctx, core: core, cfg: cfg, post: post, sideShown: true}
	w.env = &uiEnv{ctx: ctx, app: a, win: w.Window, core: core, do: post}
	w.env.openConversation = w.openConversation
	w.env.selectAgent = w.selectAgent
	w.env.showTask = w.showTask
	w.env.showError = w.showError

	w.status = newStatusBar()
	w.side = newSidebar(w)
	w.chat = newChatView(w)
	w.details = newAgentDetails(w)
	w.tasks = newTasksPanel(w.env)
	w.console = newConsolePanel(w.env)
	w.notify = newNotifier(w.env)
	w.SetCloseIntercept(w.closeRequested) // after the tray's own (desktop.go)
	w.approvals = newApprovalsUI(w.env, w.notify)
	w.calls = newCallWindows(w.env, w.approvals, cfg.MediaEngine)
	w.sideTabs = newLazyTabs(
		lazyTab{"Agent", w.details.Object},
		lazyTab{"Tasks", w.tasks.Object},
		lazyTab{"Console", w.console.Object},
	)
	w.chatSplit = container.NewHSplit(w.chat.Object(), w.sideTabs)
	w.chatSplit.Offset = chatShare
	w.right = container.NewStack(w.chatSplit)
	main := container.NewHSplit(w.side.Object(), w.right)
	main.Offset = 0.22
	root := container.NewBorder(w.toolbar(), w.status.Object(), nil, nil, main)
	w.status.relayout = root.Refresh
	w.SetContent(root)
	w.SetMainMenu(w.mainMenu())
	w.addShortcuts()
	w.SetOnDropped(w.onDropped)
	w.Resize(fyne.NewSize(1200, 780))
	return w
}

// start subscribes to the core and applies its events until ctx ends or
// the window is closed.
func (w *Window) start() {
	events, stop := w.core.Subscribe()
	w.stop = stop
	go func() {
		for ev := range events {
			w.post(func() { w.apply(ev) })
		}
	}()
	go func() {
		<-w.ctx.Done()
		stop()
	}()
	w.SetOnClosed(stop)
}

// apply dispatches one core event to the views (on the Fyne goroutine).
func (w *Window) apply(ev app.Event) {
	if ev.Agents != nil {
		w.setAgents(ev.Agents)
	}
	if ev.Conversations != nil {
		w.side.setConversations(ev.Conversations)
	}
	if ev.Message != nil {
		w.chat.onMessage(ev.Message)
	}
	if ev.Task != nil {
		w.chat.onTask(ev.Task)
	}
	if ev.Notice != nil {
		w.showNotice(ev.Notice)
	}
	if ev.Settings != nil {
		applyTheme(w.env.app, ev.Settings.Theme)
	}
	w.tasks.OnEvent(ev)
	w.console.OnEvent(ev)
	w.notify.OnEvent(ev)
	w.approvals.OnEvent(ev)
}

// setAgents takes a new agent list.
func (w *Window) setAgents(list []app.Agent) {
	w.agents = list
	w.side.setAgents(list)
	w.chat.agentsChanged()
	if _, ok := w.agent(w.agentID); !ok {
		w.agentID = ""
		next := w.cfg.OpenAgentID
		if _, ok := w.agent(next); !ok && len(list) > 0 {
			next = list[0].ID
		}
		if next != "" {
			w.selectAgent(next)
		} else {
			w.details.show(nil)
			w.chat.showNoAgent()
		}
	} else {
		a, _ := w.agent(w.agentID)
		w.details.show(&a)
	}
	w.maybeSendOnStart()
	w.maybeOpenPending()
}

// maybeSendOnStart sends Config.SendOnStart once its agent is ready.
func (w *Window) maybeSendOnStart() {
	if w.sentOnStart || strings.TrimSpace(w.cfg.SendOnStart) == "" {
		return
	}
	id := w.cfg.OpenAgentID
	if id == "" && len(w.agents) > 0 {
		id = w.agents[0].ID
	}
	a, ok := w.agent(id)
	if !ok || a.Status != app.AgentReady {
		return
	}
	w.sentOnStart = true
	w.startChat(id, w.cfg.SendOnStart)
}

// agent returns the agent with id from the latest list.
func (w *Window) agent(id string) (app.Agent, bool) {
	for _, a := range w.agents {
		if a.ID == id {
			return a, true
		}
	}
	return app.Agent{}, false
}

// selectAgent makes id the selected agent: the sidebar shows its
// conversations, the side panel its card and tasks.
func (w *Window) selectAgent(id string) {
	a, ok := w.agent(id)
	if !ok {
		return
	}
	changed := w.agentID != id
	w.agentID = id
	w.side.selectAgent(id)
	w.details.show(&a)
	if !changed {
		return
	}
	w.tasks.SetAgent(id)
	w.console.SetAgent(id)
	if w.chat.agentID != id {
		w.chat.showAgent(id)
	}
	w.side.loadConversations(id)
}

// openConversation shows a conversation of an agent.
func (w *Window) openConversation(agentID, convID string) {
	if w.agentID != agentID {
		w.selectAgent(agentID)
	}
	w.side.selectConversation(convID)
	w.chat.open(agentID, convID)
}

// newConversation starts an empty conversation with the selected agent.
func (w *Window) newConversation() {
	id := w.agentID
	if id == "" {
		w.showAddAgent()
		return
	}
	go func() {
		conv, err := w.core.NewConversation(w.ctx, id)
		w.post(func() {
			if err != nil {
				w.showError(err)
				return
			}
			w.openConversation(id, conv.ID)
			w.chat.composer.focus()
		})
	}()
}

// startChat opens a new conversation with an agent and sends text in it
// (a skill example, or Config.SendOnStart).
func (w *Window) startChat(agentID, text string) {
	go func() {
		conv, err := w.core.NewConversation(w.ctx, agentID)
		if err != nil {
			w.post(func() { w.showError(err) })
			return
		}
		done := make(chan struct{})
		w.post(func() {
			w.openConversation(agentID, conv.ID)
			close(done)
		})
		select {
		case <-done:
		case <-w.ctx.Done():
			return
		}
		if _, err := w.core.Send(w.ctx, conv.ID, text, nil); err != nil {
			w.post(func() { w.showError(err) })
		}
	}()
}

// showTask opens a task in the Tasks tab.
func (w *Window) showTask(agentID, taskID string) {
	w.showSideTab(1)
	w.tasks.ShowTask(agentID, taskID)
}

// requestApproval is what "Review request…" does for a task that waits
// for the user's approval: OnApprovalRequested when set, else the
// approvals dialog (approvals.go).
func (w *Window) requestApproval(agentID, taskID string) {
	if w.OnApprovalRequested != nil {
		w.OnApprovalRequested(agentID, taskID)
		return
	}
	w.approvals.ShowForTask(agentID, taskID)
}

// showError shows err as a dialog a user can read.
func (w *Window) showError(err error) {
	if err == nil || errors.Is(err, context.Canceled) {
		return
	}
	d := dialog.NewCustom("Something went wrong", "Close", container.NewPadded(errorView(err)), w.Window)
	d.Resize(fyne.NewSize(460, 220))
	w.showDialog(d)
}

// userText is an error in words for people (errtext.Sentence): a
// sentence, not the wrapped chain.
func userText(err error) string { return errtext.Sentence(err) }

// errorView is an error for a dialog: its sentence and, folded away, the
// chain for a bug report (selectable, to copy).
func errorView(err error) fyne.CanvasObject {
	msg := widget.NewLabel(errtext.Sentence(err))
	msg.Wrapping = fyne.TextWrapWord
	details := widget.NewLabel(errtext.Details(err))
	details.Wrapping = fyne.TextWrapWord
	details.Selectable = true
	details.TextStyle = fyne.TextStyle{Monospace: true}
	return container.NewVBox(msg, widget.NewAccordion(widget.NewAccordionItem("Details", details)))
}

// showNotice tells the user something the core noticed.
func (w *Window) showNotice(n *app.Notice) {
	w.status.show(n, w.post)
}

// showDialog shows d and remembers it so that Escape closes it.
func (w *Window) showDialog(d dialog.Dialog) {
	w.dialogs = append(w.dialogs, d)
	d.SetOnClosed(func() {
		for i, x := range w.dialogs {
			if x == d {
				w.dialogs = append(w.dialogs[:i], w.dialogs[i+1:]...)
				break
			}
		}
	})
	d.Show()
}

// closeTopDialog closes the newest dialog (Escape). It reports whether
// there was one.
func (w *Window) closeTopDialog() bool {
	if n := len(w.dialogs); n > 0 {
		w.dialogs[n-1].Hide()
		return true
	}
	if top := w.Canvas().Overlays().Top(); top != nil {
		// A dialog another view showed: hide its pop-up.
		top.Hide()
		w.Canvas().Overlays().Remove(top)
		return true
	}
	return false
}

// toolbar is the row of actions above everything.
func (w *Window) toolbar() fyne.CanvasObject {
	return widget.NewToolbar(
		widget.NewToolbarAction(theme.ContentAddIcon(), w.showAddAgent),
		widget.NewToolbarAction(theme.MailComposeIcon(), w.newConversation),
		widget.NewToolbarSeparator(),
		widget.NewToolbarAction(theme.ListIcon(), func() { w.showSideTab(1) }),
		widget.NewToolbarAction(theme.ComputerIcon(), func() { w.showSideTab(2) }),
		widget.NewToolbarAction(theme.ViewRestoreIcon(), func() { w.setSidePanel(!w.sideShown) }),
		widget.NewToolbarSeparator(),
		w.approvals.ToolbarItem(),
		widget.NewToolbarSpacer(),
		widget.NewToolbarAction(theme.SettingsIcon(), func() { showSettings(w.env) }),
		widget.NewToolbarAction(theme.HelpIcon(), w.showHelp),
	)
}

// shortcut is one keyboard shortcut of the window.
type shortcut struct {
	key  fyne.KeyName
	mod  fyne.KeyModifier
	name string
	do   func()
}

func (w *Window) shortcuts() []shortcut {
	def := fyne.KeyModifierShortcutDefault
	return []shortcut{
		{fyne.KeyN, def, "New conversation", w.newConversation},
		{fyne.KeyL, def, "Focus the message box", func() { w.chat.composer.focus() }},
		{fyne.KeyA, def | fyne.KeyModifierShift, "Add agent", w.showAddAgent},
		{fyne.KeyComma, def, "Settings", func() { showSettings(w.env) }},
		{fyne.Key1, def, "Agent tab", func() { w.showSideTab(0) }},
		{fyne.Key2, def, "Tasks tab", func() { w.showSideTab(1) }},
		{fyne.Key3, def, "Console tab", func() { w.showSideTab(2) }},
		{fyne.Key0, def, "Show or hide the side panel", func() { w.setSidePanel(!w.sideShown) }},
	}
}

// addShortcuts registers the shortcuts on the canvas (they also sit on the
// menu items, which work whatever has the focus) and Escape.
func (w *Window) addShortcuts() {
	for _, s := range w.shortcuts() {
		do := s.do
		w.Canvas().AddShortcut(&desktop.CustomShortcut{KeyName: s.key, Modifier: s.mod}, func(fyne.Shortcut) { do() })
	}
	w.Canvas().SetOnTypedKey(func(k *fyne.KeyEvent) {
		if k.Name == fyne.KeyEscape {
			w.closeTopDialog()
		}
	})
}

// handleShortcut runs the window's shortcut s, if it is one, and reports
// whether it did (focused widgets forward unknown shortcuts here).
func (w *Window) handleShortcut(s fyne.Shortcut) bool {
	cs, ok := s.(*desktop.CustomShortcut)
	if !ok {
		return false
	}
	for _, x := range w.shortcuts() {
		if x.key == cs.KeyName && x.mod == cs.Modifier {
			x.do()
			return true
		}
	}
	return false
}

func (w *Window) mainMenu() *fyne.MainMenu {
	item := func(label string, key fyne.KeyName, mod fyne.KeyModifier, do func()) *fyne.MenuItem {
		m := fyne.NewMenuItem(label, do)
		if key != "" {
			m.Shortcut = &desktop.CustomShortcut{KeyName: key, Modifier: mod}
		}
		return m
	}
	def := fyne.KeyModifierShortcutDefault
	file := fyne.NewMenu("File",
		item("New conversation", fyne.KeyN, def, w.newConversation),
		item("Add agent…", fyne.KeyA, def|fyne.KeyModifierShift, w.showAddAgent),
		fyne.NewMenuItemSeparator(),
		item("Settings…", fyne.KeyComma, def, func() { showSettings(w.env) }),
	)
	agent := fyne.NewMenu("Agent",
		item("Edit agent…", "", 0, func() { w.editSelectedAgent() }),
		item("Refresh card", "", 0, func() {
			if w.agentID != "" {
				w.core.RefreshAgent(w.agentID)
			}
		}),
		item("Remove agent…", "", 0, func() { w.removeSelectedAgent() }),
		fyne.NewMenuItemSeparator(),
		item("Start call…", "", 0, w.startCall),
	)
	view := fyne.NewMenu("View",
		item("Focus the message box", fyne.KeyL, def, func() { w.chat.composer.focus() }),
		fyne.NewMenuItemSeparator(),
		item("Agent", fyne.Key1, def, func() { w.showSideTab(0) }),
		item("Tasks", fyne.Key2, def, func() { w.showSideTab(1) }),
		item("Console", fyne.Key3, def, func() { w.showSideTab(2) }),
		item("Show or hide the side panel", fyne.Key0, def, func() { w.setSidePanel(!w.sideShown) }),
	)
	help := fyne.NewMenu("Help", item("Using aimdesk", "", 0, w.showHelp))
	return fyne.NewMainMenu(file, agent, view, w.approvals.Menu(), help)
}

// helpText is the in-app help. Keep it true to what the code does.
const helpText = `## Agents

An agent is a service that speaks the A2A protocol. Add one with **Add agent…** (Ctrl+Shift+A) and its address, for example https://agent.example.com. aimdesk reads the agent's card at /.well-known/agent-card.json. Plain http is accepted for agents on this computer; for other machines tick "Allow plain HTTP" only if you trust the network.

The **Agent** tab shows what the card says: skills with examples (click one to start a conversation with it), input and output types, the addresses the agent offers (the one aimdesk uses is marked), extensions, sign-in schemes and whether the card is signed.

## Conversations

Enter sends the message; Shift+Enter starts a new line. Attach files with the paper clip or by dropping them on the window; aimdesk checks the agent's size and count limits before sending. While the agent works, its answer grows in place. A message that could not be sent shows the reason and a **Retry** button.

When a task waits for you, a bar above the message box asks for your answer (input required) or lets you review an approval request (approval required). The task link under a message opens it in the **Tasks** tab.

Agent text is shown as Markdown. Images inside it are never downloaded. Links open only after you confirm, and the dialog shows where they go. Image parts sent as files are shown up to 10 MB. Images from another server than the agent's own load only after you click "Load from …", and never from this computer or your local network. "Open" on a file opens only pictures, PDF, text, sound and video files whose content matches their name; anything else is only shown in its folder.

An agent may send an interactive view (A2UI) with its own main colour and font. They apply inside your light or dark theme: the colour is darkened or lightened until text on it stays readable, and the font is used for the view's text only if this computer has it (or a font made to match it, such as Liberation Sans for Arial); otherwise the view keeps aimdesk's font, with a note in aimdesk's log. Input fields and check boxes keep aimdesk's font.

## Sign-in and trust

When the card lists ways to sign in, the Agent tab offers them under **Sign in…**: your browser (OAuth 2.0 with PKCE), a code for another device, client credentials, or a key or token you paste. aimdesk asks only for the permissions what you do needs, and says which one and why when it needs more. Secrets go to the system keyring, or to an encrypted file only you can read where there is none; **Sign out…** removes them. A signed card shows whether its signature verifies; an invalid signature is shown in red.

## Approvals

An agent that wants to act asks first. The approval dialog is drawn by aimdesk, never by the agent: it shows who asks, what exactly will be done (the action as a tree and as raw JSON), the risk, and whether the action matches its digest. Reject is the default; Approve becomes active after a second and is never pressed by Enter; high risk asks you to type APPROVE. Requests that do not match their digest or repeat a key cannot be approved. **Approvals** lists every request of the session; the audit log keeps every decision and can be exported as JSON.

## Calls

Agents that offer realtime sessions get a **Start call…** button. Before joining you pick the microphone, speaker and camera; in the call you can mute, hold Space to talk, share your screen (a red bar shows while you do; on Wayland your desktop asks which screen or window, once, and **Forget my last choice** in the share dialog makes it ask again), drag a box over the screen preview to point at something, interrupt the agent (Escape) and type. Calls are full duplex: an echo canceller (WebRTC's audio processing) removes the agent's voice from your microphone and suppresses steady noise, so you can talk over the agent without a headset; the call window says which echo canceller runs. A quiet voice is brought up by up to 12 dB, learnt and applied only while the agent is silent, so the agent's echo is never amplified (Settings → Calls → "Raise a quiet microphone automatically" turns it off). Tick "Mute my microphone while the agent speaks" before joining for half-duplex instead (for a very loud speaker or an echo that still gets through). A build without the echo canceller falls back to half-duplex when no headset is found. If you speak while the agent speaks, it stops and listens. The microphone and speaker are your sound system's defaults unless you pick others, and follow it when you change them; a headset plugged in during a call is offered, and an unplugged device falls back to the default without ending the call. **Statistics** in the call window shows the connection's jitter, packet loss, round trip, playout delay and how much audio had to be concealed, and while you share your screen the estimated uplink and the bit rate the share is given: the share follows the uplink (lower bit rate, frame rate and size when it is short), your voice keeps its share.

The call window's header shows what the agent does (listening, thinking, speaking) and how good your connection is (excellent, good, poor, lost, as the call's server rates it). The transcript shows each line once, even when the agent sends it twice (as its own transcript and as a LiveKit transcription, as agents built with LiveKit Agents do); words still being spoken are shown in italics with "…" until they are final. What you type goes to the agent one way only: through LiveKit's chat to an agent built with LiveKit Agents, otherwise through the call's session.

When the agent shows video (an avatar, a diagram), it plays in **The agent's video** beside the transcript; **Hide video** stops it being sent to you until you show it again. While the call window is minimised the video is not sent either, and it comes back when you restore the window.

## Keyboard

- Ctrl+N: new conversation
- Ctrl+L: focus the message box
- Ctrl+Shift+A: add an agent
- Ctrl+,: settings
- Ctrl+1, Ctrl+2, Ctrl+3: Agent, Tasks, Console tabs
- Escape: close a dialog

(On macOS use Cmd instead of Ctrl.)

## Running in the background

aimdesk runs once. Starting it again (from the menu, or by opening an aimdesk://add link) brings this window to the front; a link opens **Add agent** with the address filled in and its host shown, and nothing is added until you press Add. Closing the window keeps aimdesk in the system tray when your desktop has one, so approvals and finished tasks still show as notifications; the tray icon's red badge and the window title count the approvals waiting. **Quit** in the tray menu or the File menu ends aimdesk. Turn this off in Settings ("Keep running in the system tray"); without a tray, closing the window quits.

## Data

Agents, conversations and tasks are kept on this computer only, in the database shown in Settings.`

// showHelp shows the in-app help.
func (w *Window) showHelp() {
	rt := widget.NewRichText(markdownSegments(helpText, w.confirmOpenURL)...)
	rt.Wrapping = fyne.TextWrapWord
	scroll := container.NewVScroll(rt)
	d := dialog.NewCustom("Using aimdesk", "Close", scroll, w.Window)
	d.Resize(fyne.NewSize(620, 560))
	w.showDialog(d)
}

// confirmOpenURL asks before opening a link from agent content, showing
// its host first.
func (w *Window) confirmOpenURL(u *url.URL) {
	if safeLinkURL(u) == nil {
		return
	}
	host := widget.NewLabelWithStyle(displayHost(u), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	host.Wrapping = fyne.TextWrapBreak
	full := widget.NewLabel(truncateRunes(u.String(), 300))
	full.Wrapping = fyne.TextWrapBreak
	full.Importance = widget.LowImportance
	content := container.NewVBox(widget.NewLabel("This link goes to"), host, full)
	d := dialog.NewCustomConfirm("Open link in your browser?", "Open", "Cancel", content, func(ok bool) {
		if ok {
			if err := w.env.app.OpenURL(u); err != nil {
				w.showError(err)
			}
		}
	}, w.Window)
	d.Resize(fyne.NewSize(460, 200))
	w.showDialog(d)
}

// onDropped takes files dropped on the window as attachments.
func (w *Window) onDropped(_ fyne.Position, uris []fyne.URI) {
	w.chat.composer.attachURIs(uris)
}

// statusBar is the line at the bottom of the window: the core's last
// notice, cleared after a while.
type statusBar struct {
	relayout func() // lays the window out again when the bar shows or hides
	icon     *widget.Icon
	label    *widget.Label
	box      *fyne.Container
	seq      int
}

func newStatusBar() *statusBar {
	s := &statusBar{icon: widget.NewIcon(nil), label: widget.NewLabel("")}
	s.label.Truncation = fyne.TextTruncateEllipsis
	s.box = container.NewBorder(nil, nil, s.icon, nil, s.label)
	s.box.Hide()
	return s
}

func (s *statusBar) Object() fyne.CanvasObject { return s.box }

// show displays n; post runs the clearing on the Fyne goroutine.
func (s *statusBar) show(n *app.Notice, post func(func())) {
	s.seq++
	seq := s.seq
	s.label.SetText(n.Text)
	if n.Level == app.NoticeError {
		s.icon.SetResource(theme.ErrorIcon())
		s.label.Importance = widget.DangerImportance
	} else {
		s.icon.SetResource(theme.InfoIcon())
		s.label.Importance = widget.MediumImportance
	}
	s.label.Refresh()
	s.box.Show()
	s.relayout()
	keep := 8 * time.Second
	if n.Level == app.NoticeError {
		keep = 20 * time.Second
	}
	time.AfterFunc(keep, func() {
		post(func() {
			if s.seq == seq {
				s.box.Hide()
				s.relayout()
			}
		})
	})
}
