package ui

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/aim"
	"aimdesk/ui/uikit"
)

// a2uiExtensionPrefix starts the URIs of the A2UI extension's versions.
const a2uiExtensionPrefix = "https://a2ui.org/a2a-extension/a2ui/"

// sidebar lists the agents and the selected agent's conversations.
type sidebar struct {
	w *Window

	agents     []app.Agent
	agentList  *widget.List
	agentHint  *widget.Label
	convs      []app.Conversation
	convAgent  string // whose conversations convs are
	convList   *widget.List
	convHint   *widget.Label
	newConvBtn *widget.Button
	selecting  bool // the list's selection is being set by code
	obj        fyne.CanvasObject
}

func newSidebar(w *Window) *sidebar {
	s := &sidebar{w: w}
	s.agentList = widget.NewList(func() int { return len(s.agents) }, newAgentRow, func(id widget.ListItemID, o fyne.CanvasObject) {
		if id < len(s.agents) {
			setAgentRow(o, s.agents[id])
		}
	})
	s.agentList.OnSelected = func(id widget.ListItemID) {
		if s.selecting || id >= len(s.agents) {
			return
		}
		w.selectAgent(s.agents[id].ID)
	}
	s.agentHint = widget.NewLabel("No agents yet. Add one with the + button: type the agent's address, for example https://agent.example.com.")
	s.agentHint.Wrapping = fyne.TextWrapWord
	s.agentHint.Importance = widget.LowImportance

	s.convList = widget.NewList(func() int { return len(s.convs) }, s.newConvRow, func(id widget.ListItemID, o fyne.CanvasObject) {
		if id < len(s.convs) {
			s.setConvRow(o, s.convs[id])
		}
	})
	s.convList.OnSelected = func(id widget.ListItemID) {
		if s.selecting || id >= len(s.convs) {
			return
		}
		c := s.convs[id]
		w.openConversation(c.AgentID, c.ID)
	}
	s.convHint = widget.NewLabel("No conversations yet.")
	s.convHint.Importance = widget.LowImportance
	s.convHint.Wrapping = fyne.TextWrapWord

	add := widget.NewButtonWithIcon("", theme.ContentAddIcon(), w.showAddAgent)
	add.Importance = widget.LowImportance
	agentsHead := container.NewBorder(nil, nil, nil, add, heading("Agents"))
	s.newConvBtn = widget.NewButtonWithIcon("New conversation", theme.MailComposeIcon(), w.newConversation)
	s.newConvBtn.Disable()
	convHead := container.NewVBox(heading("Conversations"), s.newConvBtn)

	agentsBox := container.NewBorder(agentsHead, nil, nil, nil, container.NewStack(s.agentList, container.NewVBox(s.agentHint)))
	convBox := container.NewBorder(convHead, nil, nil, nil, container.NewStack(s.convList, container.NewVBox(s.convHint)))
	split := container.NewVSplit(agentsBox, convBox)
	split.Offset = 0.4
	s.obj = split
	s.convHint.Hide()
	return s
}

func (s *sidebar) Object() fyne.CanvasObject { return s.obj }

func heading(text string) *widget.Label { return uikit.Heading(text) }

// newAgentRow is a row of the agent list: a status icon, the name and the
// status in words.
func newAgentRow() fyne.CanvasObject {
	name := widget.NewLabelWithStyle("Agent name", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	name.Truncation = fyne.TextTruncateEllipsis
	status := widget.NewLabel("status")
	status.Truncation = fyne.TextTruncateEllipsis
	status.SizeName = theme.SizeNameCaptionText
	return container.NewBorder(nil, nil, widget.NewIcon(theme.ConfirmIcon()), nil,
		container.New(layout.NewCustomPaddedVBoxLayout(0), name, status))
}

func setAgentRow(o fyne.CanvasObject, a app.Agent) {
	c := o.(*fyne.Container)
	texts := c.Objects[0].(*fyne.Container)
	icon := c.Objects[1].(*widget.Icon)
	name := texts.Objects[0].(*widget.Label)
	status := texts.Objects[1].(*widget.Label)
	name.SetText(agentTitle(a))
	status.SetText(agentStatusText(a))
	icon.SetResource(agentStatusIcon(a.Status))
}

// agentTitle is the name to show for an agent.
func agentTitle(a app.Agent) string {
	if a.Name != "" {
		return a.Name
	}
	if a.Card != nil && a.Card.Name != "" {
		return a.Card.Name
	}
	return a.URL
}

func agentStatusText(a app.Agent) string {
	switch a.Status {
	case app.AgentReady:
		return "ready"
	case app.AgentConnecting:
		return "connecting…"
	case app.AgentOffline:
		if a.Error != "" {
			return "offline: " + userText(errors.New(a.Error))
		}
		return "offline"
	}
	return string(a.Status)
}

func agentStatusIcon(s app.AgentStatus) fyne.Resource {
	switch s {
	case app.AgentReady:
		return theme.NewSuccessThemedResource(theme.ConfirmIcon())
	case app.AgentOffline:
		return theme.NewWarningThemedResource(theme.WarningIcon())
	}
	return theme.ViewRefreshIcon()
}

func (s *sidebar) setAgents(list []app.Agent) {
	s.agents = list
	if len(list) == 0 {
		s.agentHint.Show()
	} else {
		s.agentHint.Hide()
	}
	s.agentList.Refresh()
	s.selectAgent(s.w.agentID)
	if s.w.agentID == "" {
		s.newConvBtn.Disable()
	}
}

// selectAgent shows id as selected without calling back.
func (s *sidebar) selectAgent(id string) {
	s.selecting = true
	defer func() { s.selecting = false }()
	for i, a := range s.agents {
		if a.ID == id {
			s.agentList.Select(i)
			s.newConvBtn.Enable()
			return
		}
	}
	s.agentList.UnselectAll()
}

// loadConversations reads an agent's conversations in the background.
func (s *sidebar) loadConversations(agentID string) {
	s.convAgent = agentID
	s.convs = nil
	s.convList.UnselectAll()
	s.convList.Refresh()
	go func() {
		list, err := s.w.core.Conversations(s.w.ctx, agentID)
		s.w.post(func() {
			if err != nil {
				s.w.showError(err)
				return
			}
			s.setConversations(&app.ConversationList{AgentID: agentID, List: list})
		})
	}()
}

func (s *sidebar) setConversations(cl *app.ConversationList) {
	if cl.AgentID != s.w.agentID {
		return
	}
	s.convAgent = cl.AgentID
	s.convs = cl.List
	if len(s.convs) == 0 {
		s.convHint.Show()
	} else {
		s.convHint.Hide()
	}
	s.convList.Refresh()
	s.selectConversation(s.w.chat.convID)
	if s.w.chat.agentID == cl.AgentID {
		s.w.chat.updateTitle()
	}
}

// selectConversation shows id as selected without calling back.
func (s *sidebar) selectConversation(id string) {
	s.selecting = true
	defer func() { s.selecting = false }()
	for i, c := range s.convs {
		if c.ID == id {
			s.convList.Select(i)
			return
		}
	}
	s.convList.UnselectAll()
}

// newConvRow is a conversation row: title, date and a delete button.
func (s *sidebar) newConvRow() fyne.CanvasObject {
	title := widget.NewLabel("Conversation title")
	title.Truncation = fyne.TextTruncateEllipsis
	when := widget.NewLabel("12 Jan 15:04")
	when.SizeName = theme.SizeNameCaptionText
	del := widget.NewButtonWithIcon("", theme.DeleteIcon(), nil)
	del.Importance = widget.LowImportance
	return container.NewBorder(nil, nil, nil, container.NewHBox(when, del), title)
}

func (s *sidebar) setConvRow(o fyne.CanvasObject, c app.Conversation) {
	box := o.(*fyne.Container)
	title := box.Objects[0].(*widget.Label)
	right := box.Objects[1].(*fyne.Container)
	when := right.Objects[0].(*widget.Label)
	del := right.Objects[1].(*widget.Button)
	title.SetText(c.Title)
	when.SetText(shortTime(c.UpdatedAt))
	del.OnTapped = func() { s.confirmDeleteConversation(c) }
}

func (s *sidebar) confirmDeleteConversation(c app.Conversation) {
	d := dialog.NewConfirm("Delete conversation?",
		fmt.Sprintf("“%s” and its messages are deleted from this computer. Tasks stay on the agent.", truncateRunes(c.Title, 60)),
		func(ok bool) {
			if !ok {
				return
			}
			go func() {
				err := s.w.core.DeleteConversation(s.w.ctx, c.ID)
				s.w.post(func() {
					if err != nil {
						s.w.showError(err)
						return
					}
					if s.w.chat.convID == c.ID {
						s.w.chat.showAgent(c.AgentID)
					}
				})
			}()
		}, s.w.Window)
	d.SetConfirmText("Delete")
	d.SetDismissText("Cancel")
	d.SetConfirmImportance(widget.DangerImportance)
	s.w.showDialog(d)
}

// shortTime is a message or conversation time for people.
func shortTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	now := time.Now()
	if t.Year() == now.Year() && t.YearDay() == now.YearDay() {
		return t.Format("15:04")
	}
	if t.Year() == now.Year() {
		return t.Format("2 Jan 15:04")
	}
	return t.Format("2 Jan 2006")
}

// agentForm is the add and edit dialog's content: the address, the plain
// HTTP permission, progress and the error.
type agentForm struct {
	name     *widget.Entry // the edit dialog's only (nil when adding)
	url      *escEntry
	plain    *widget.Check
	progress *widget.ProgressBarInfinite
	errLabel *widget.Label
	content  *fyne.Container
}

func newAgentForm(w *Window, u string, allowPlain bool) *agentForm {
	f := &agentForm{
		url: newEscEntry(w), plain: widget.NewCheck("Allow plain HTTP (unencrypted) for this agent", nil),
		progress: widget.NewProgressBarInfinite(), errLabel: widget.NewLabel(""),
	}
	f.url.SetPlaceHolder("https://agent.example.com")
	f.url.SetText(u)
	f.plain.SetChecked(allowPlain)
	f.progress.Stop()
	f.progress.Hide()
	f.errLabel.Wrapping = fyne.TextWrapWord
	f.errLabel.Importance = widget.DangerImportance
	f.errLabel.Hide()
	note := widget.NewLabel("aimdesk reads the agent's card from this address. Plain http is always allowed for agents on this computer (localhost).")
	note.Wrapping = fyne.TextWrapWord
	note.Importance = widget.LowImportance
	f.content = container.NewVBox(widget.NewLabel("Agent address"), f.url, f.plain, note, f.progress, f.errLabel)
	return f
}

func (f *agentForm) busy(on bool) {
	if on {
		f.errLabel.Hide()
		f.progress.Show()
		f.progress.Start()
		f.url.Disable()
		f.plain.Disable()
		if f.name != nil {
			f.name.Disable()
		}
		return
	}
	f.progress.Stop()
	f.progress.Hide()
	f.url.Enable()
	f.plain.Enable()
	if f.name != nil {
		f.name.Enable()
	}
}

func (f *agentForm) fail(err error) {
	f.busy(false)
	f.errLabel.SetText(agentErrorText(err))
	f.errLabel.Show()
}

// agentErrorText explains why an agent could not be added.
func agentErrorText(err error) string {
	switch {
	case errors.Is(err, app.ErrPlainHTTP):
		return "This agent is on another machine and uses plain http, which anyone on the network can read. Use its https address, or tick \"Allow plain HTTP\" if you trust the network."
	case errors.Is(err, a2a.ErrBadCard):
		return "The address answered, but not with a usable agent card: " + userText(err)
	case errors.Is(err, a2a.ErrNoInterface):
		return "The agent's card offers no interface aimdesk speaks (JSON-RPC, HTTP+JSON or gRPC at A2A 1.0; JSON-RPC at 0.3)."
	case errors.Is(err, context.DeadlineExceeded):
		return "The agent did not answer within 30 seconds. Check the address and that the agent is running."
	}
	return "Could not add the agent: " + userText(err)
}

// showAddAgent opens the add agent dialog.
func (w *Window) showAddAgent() { w.showAddAgentURL("") }

// showAddAgentURL opens the add agent dialog with u filled in (from a
// link or the command line: its host is shown too) and returns the address
// the dialog shows.
func (w *Window) showAddAgentURL(u string) string {
	f := newAgentForm(w, u, false)
	if u != "" {
		f.content.Objects = append([]fyne.CanvasObject{newAddAgentHostLabel(u)}, f.content.Objects...)
	}
	var d *dialog.CustomDialog
	var cancel context.CancelFunc
	addBtn := widget.NewButtonWithIcon("Add", theme.ConfirmIcon(), nil)
	addBtn.Importance = widget.HighImportance
	closeBtn := widget.NewButton("Cancel", nil)
	submit := func() {
		if strings.TrimSpace(f.url.Text) == "" {
			f.fail(errors.New("type the agent's address first"))
			return
		}
		if cancel != nil {
			return // already adding
		}
		var ctx context.Context
		ctx, cancel = context.WithTimeout(w.ctx, 30*time.Second)
		f.busy(true)
		addBtn.Disable()
		u, plain := f.url.Text, f.plain.Checked
		c := cancel
		go func() {
			a, err := w.core.AddAgent(ctx, u, plain)
			c()
			w.post(func() {
				cancel = nil
				addBtn.Enable()
				if err != nil {
					if !errors.Is(err, context.Canceled) {
						f.fail(err)
					}
					return
				}
				d.Hide()
				w.agents = upsertAgent(w.agents, a)
				w.selectAgent(a.ID)
			})
		}()
	}
	addBtn.OnTapped = submit
	f.url.OnSubmitted = func(string) { submit() }
	d = dialog.NewCustomWithoutButtons("Add agent", f.content, w.Window)
	closeBtn.OnTapped = func() { d.Hide() }
	d.SetButtons([]fyne.CanvasObject{closeBtn, addBtn})
	d.SetOnClosed(func() {
		if cancel != nil {
			cancel()
		}
	})
	d.Resize(fyne.NewSize(480, 300))
	w.showDialog(d)
	w.Canvas().Focus(f.url)
	return f.url.Text
}

// upsertAgent adds or replaces a in list (the Agents event may come after
// AddAgent returns).
func upsertAgent(list []app.Agent, a app.Agent) []app.Agent {
	for i := range list {
		if list[i].ID == a.ID {
			list[i] = a
			return list
		}
	}
	return append(list, a)
}

// editSelectedAgent opens the edit dialog for the selected agent.
func (w *Window) editSelectedAgent() {
	a, ok := w.agent(w.agentID)
	if !ok {
		return
	}
	if a.Demo {
		dialog.ShowInformation("Edit agent", "The reference agent runs inside aimdesk; its address cannot be changed.", w.Window)
		return
	}
	f := newAgentForm(w, a.URL, a.AllowPlainHTTP)
	f.name = widget.NewEntry()
	f.name.SetText(a.Name)
	if a.Card != nil {
		f.name.SetPlaceHolder(a.Card.Name + " (the name on its card)")
	}
	f.content.Objects = append([]fyne.CanvasObject{widget.NewLabel("Name"), f.name}, f.content.Objects...)
	var d *dialog.CustomDialog
	save := widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), nil)
	save.Importance = widget.HighImportance
	submit := func() {
		f.busy(true)
		save.Disable()
		name, u, plain := f.name.Text, f.url.Text, f.plain.Checked
		go func() {
			err := w.core.EditAgent(w.ctx, a.ID, name, u, plain)
			w.post(func() {
				save.Enable()
				if err != nil {
					f.fail(err)
					return
				}
				d.Hide()
			})
		}()
	}
	save.OnTapped = submit
	f.url.OnSubmitted = func(string) { submit() }
	f.name.OnSubmitted = func(string) { submit() }
	d = dialog.NewCustomWithoutButtons("Edit "+agentTitle(a), f.content, w.Window)
	d.SetButtons([]fyne.CanvasObject{widget.NewButton("Cancel", func() { d.Hide() }), save})
	d.Resize(fyne.NewSize(480, 360))
	w.showDialog(d)
}

// removeSelectedAgent asks, then removes the selected agent.
func (w *Window) removeSelectedAgent() {
	a, ok := w.agent(w.agentID)
	if !ok {
		return
	}
	d := dialog.NewConfirm("Remove "+agentTitle(a)+"?",
		"The agent and its conversations and tasks are deleted from this computer. Nothing is deleted on the agent.",
		func(ok bool) {
			if !ok {
				return
			}
			go func() {
				err := w.core.RemoveAgent(w.ctx, a.ID)
				w.post(func() {
					if err != nil {
						w.showError(err)
					}
				})
			}()
		}, w.Window)
	d.SetConfirmText("Remove")
	d.SetDismissText("Cancel")
	d.SetConfirmImportance(widget.DangerImportance)
	w.showDialog(d)
}

// agentDetails is the Agent tab: what the selected agent's card says.
type agentDetails struct {
	w      *Window
	box    *fyne.Container
	scroll *container.Scroll
	shown  string // agent id and card identity of what is shown
	// signin is the trust and sign-in section (signin.go); it outlives
	// the rebuilds of the view.
	signin *signinSection
}

func newAgentDetails(w *Window) *agentDetails {
	d := &agentDetails{w: w, box: container.NewVBox()}
	d.signin = newSigninSection(w) // sign-in and trust (signin.go)
	d.scroll = container.NewVScroll(d.box)
	d.show(nil)
	return d
}

func (d *agentDetails) Object() fyne.CanvasObject { return d.scroll }

// show fills the view for a (nil: no agent).
func (d *agentDetails) show(a *app.Agent) {
	key := ""
	if a != nil {
		key = fmt.Sprintf("%s|%s|%s|%p|%s|%v|%s|%s", a.ID, a.Status, a.Error, a.Card, a.URL, a.AllowPlainHTTP,
			a.Interface.ProtocolBinding, a.Binding)
	}
	// Sign-in and trust (signin.go) follow every agent event: a device
	// code or a permission request changes no card.
	d.signin.show(a)
	if key == d.shown && key != "" {
		return
	}
	d.shown = key
	d.box.Objects = nil
	if a == nil {
		d.box.Add(wrapLabel("Add an agent to see what it offers."))
		d.box.Refresh()
		return
	}
	d.box.Objects = agentDetailObjects(d.w, *a, d.signin)
	d.box.Refresh()
	// Wrapped labels know their height only once they have a width: lay
	// the view out once more after this pass.
	d.w.post(func() { d.scroll.Refresh() })
}

func wrapLabel(text string) *widget.Label { return uikit.WrapLabel(text) }

func lowLabel(text string) *widget.Label { return uikit.LowLabel(text) }

func section(title string) fyne.CanvasObject {
	return container.NewVBox(widget.NewSeparator(), heading(title))
}

// agentDetailObjects lays out an agent's card; si is the sign-in and
// trust section (signin.go).
func agentDetailObjects(w *Window, a app.Agent, si *signinSection) []fyne.CanvasObject {
	out := agentHeaderObjects(w, a, si)
	c := a.Card
	if c == nil {
		return append(out, lowLabel("aimdesk has not read this agent's card yet."))
	}
	out = append(out, cardFactObjects(w, a, c)...)
	// Sign-in and trust (signin.go): the card's signature, the sign-in
	// state, the ways to sign in.
	out = append(out, section("Trust and sign-in"), si.Object())
	out = append(out, section("Skills"))
	if len(c.Skills) == 0 {
		out = append(out, lowLabel("The card lists no skills."))
	}
	for _, sk := range c.Skills {
		out = append(out, skillObjects(w, a, sk)...)
	}
	out = append(out, section("Input and output"),
		wrapLabel("Takes: "+modes(c.DefaultInputModes)), wrapLabel("Gives: "+modes(c.DefaultOutputModes)),
		wrapLabel("Capabilities: "+capabilitiesText(c)))
	out = append(out, section("Interfaces"))
	out = append(out, bindingObjects(w, a)...)
	out = append(out, interfaceObjects(a, c)...)
	out = append(out, section("Extensions"))
	return append(out, extensionObjects(c)...)
}

// agentHeaderObjects are the name, status, address and the buttons (with
// si's "Sign in…" / "Sign out…").
func agentHeaderObjects(w *Window, a app.Agent, si *signinSection) []fyne.CanvasObject {
	title := widget.NewLabelWithStyle(agentTitle(a), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameSubHeadingText
	title.Wrapping = fyne.TextWrapWord
	status := wrapLabel("Status: " + agentStatusText(a))
	if a.Status == app.AgentOffline {
		status.Importance = widget.WarningImportance
	}
	buttons := container.NewHBox(
		widget.NewButtonWithIcon("Refresh", theme.ViewRefreshIcon(), func() { w.core.RefreshAgent(a.ID) }))
	if !a.Demo {
		buttons.Add(widget.NewButtonWithIcon("Edit…", theme.DocumentCreateIcon(), w.editSelectedAgent))
	}
	buttons.Add(widget.NewButtonWithIcon("Remove…", theme.DeleteIcon(), w.removeSelectedAgent))
	buttons.Add(si.Button()) // "Sign in…" / "Sign out…" (signin.go)
	return []fyne.CanvasObject{title, status, lowLabel("Address: " + a.URL), buttons, w.callControls(a)}
}

// cardFactObjects are the provider, version, description, documentation
// and where the card came from. Whether it is signed is in the sign-in
// and trust section (signin.go).
func cardFactObjects(w *Window, a app.Agent, c *a2a.AgentCard) []fyne.CanvasObject {
	var out []fyne.CanvasObject
	if c.Provider != nil && (c.Provider.Organization != "" || c.Provider.URL != "") {
		out = append(out, linkLine(w, "Provider: "+c.Provider.Organization, c.Provider.URL))
	}
	if c.Version != "" {
		out = append(out, wrapLabel("Version: "+c.Version))
	}
	if c.Description != "" {
		desc := widget.NewRichText(markdownSegments(c.Description, w.confirmOpenURL)...)
		desc.Wrapping = fyne.TextWrapWord
		out = append(out, desc)
	}
	if c.DocumentationURL != "" {
		out = append(out, linkLine(w, "Documentation", c.DocumentationURL))
	}
	if a.CardURL != "" {
		out = append(out, lowLabel("Card read from "+a.CardURL))
	}
	return out
}

// capabilitiesText lists the optional features the card declares.
func capabilitiesText(c *a2a.AgentCard) string {
	caps := []string{"no streaming (aimdesk polls for results)"}
	if c.Streams() {
		caps[0] = "streams answers"
	}
	if c.Capabilities.PushNotifications != nil && *c.Capabilities.PushNotifications {
		caps = append(caps, "push notifications")
	}
	if c.Capabilities.ExtendedAgentCard != nil && *c.Capabilities.ExtendedAgentCard {
		caps = append(caps, "an extended card for signed-in users")
	}
	return strings.Join(caps, ", ")
}

// Binding choices of the per-agent override, as shown.
const bindingAuto = "Automatic (the card's first aimdesk speaks)"

var bindingChoices = []string{bindingAuto, "JSON-RPC", "HTTP+JSON", "gRPC"}

// bindingText is the "Binding:" line: the binding in use, and why for an
// AIM agent.
func bindingText(a app.Agent) string {
	if a.Interface.ProtocolBinding == "" {
		return "Binding: none yet"
	}
	text := "Binding: " + a2a.BindingLabel(a.Interface.ProtocolBinding)
	if a.AIM && a.Interface.ProtocolBinding == a2a.BindingJSONRPC {
		return text + " (AIM agents use JSON-RPC)"
	}
	if a.Binding != "" {
		return text + " (chosen by you)"
	}
	return text
}

// bindingChoice is the override's entry in bindingChoices.
func bindingChoice(b string) string {
	if b == "" {
		return bindingAuto
	}
	return a2a.BindingLabel(b)
}

// bindingObjects are the binding in use and the override: JSON-RPC,
// HTTP+JSON or gRPC among those the card lists. An AIM agent has no
// override: the AIM dialect is a JSON-RPC contract.
func bindingObjects(w *Window, a app.Agent) []fyne.CanvasObject {
	out := []fyne.CanvasObject{wrapLabel(bindingText(a))}
	if a.AIM {
		return out
	}
	sel := widget.NewSelect(bindingChoices, nil)
	sel.SetSelected(bindingChoice(a.Binding))
	sel.OnChanged = func(choice string) {
		b := ""
		if choice != bindingAuto {
			b = choice
		}
		go func() {
			if err := w.core.SetAgentBinding(w.ctx, a.ID, b); err != nil {
				w.post(func() {
					h := sel.OnChanged
					sel.OnChanged = nil // putting it back is no new choice
					sel.SetSelected(bindingChoice(a.Binding))
					sel.OnChanged = h
					w.showError(err)
				})
			}
		}()
	}
	return append(out, container.NewBorder(nil, nil, widget.NewLabel("Use:"), nil, sel))
}

// interfaceObjects lists the card's interfaces, the one aimdesk uses
// marked with its protocol version.
func interfaceObjects(a app.Agent, c *a2a.AgentCard) []fyne.CanvasObject {
	var out []fyne.CanvasObject
	for _, i := range c.SupportedInterfaces {
		line := fmt.Sprintf("%s · %s · A2A %s", i.URL, i.ProtocolBinding, i.ProtocolVersion)
		l := wrapLabel(line)
		if i.URL == a.Interface.URL && strings.EqualFold(i.ProtocolBinding, a.Interface.ProtocolBinding) &&
			a2a.NormalizeVersion(i.ProtocolVersion) == a2a.NormalizeVersion(a.Interface.ProtocolVersion) {
			l.SetText("✓ " + line + " — used by aimdesk (protocol " + a.Interface.ProtocolVersion + ")")
			l.TextStyle = fyne.TextStyle{Bold: true}
		} else {
			l.Importance = widget.LowImportance
		}
		out = append(out, l)
	}
	return out
}

// extensionObjects lists the declared extensions, naming those aimdesk
// knows (realtime, A2UI, requirements).
func extensionObjects(c *a2a.AgentCard) []fyne.CanvasObject {
	if len(c.Capabilities.Extensions) == 0 {
		return []fyne.CanvasObject{lowLabel("None declared.")}
	}
	var out []fyne.CanvasObject
	for _, e := range c.Capabilities.Extensions {
		text := extensionName(e.URI) + " — " + e.URI
		if e.Required {
			text += " (required)"
		}
		out = append(out, wrapLabel(text))
		if e.Description != "" {
			out = append(out, lowLabel(e.Description))
		}
	}
	return out
}

// extensionName names the extensions aimdesk knows.
func extensionName(uri string) string {
	switch {
	case uri == a2a.RealtimeExtension:
		return "Realtime sessions (AIM)"
	case uri == aim.RequirementsExtension:
		return "Requirements and confirmations (AIM)"
	case strings.HasPrefix(uri, a2uiExtensionPrefix):
		return "Agent-drawn interfaces (A2UI " + strings.TrimPrefix(uri, a2uiExtensionPrefix) + ")"
	}
	return "Extension"
}

func modes(m []string) string {
	if len(m) == 0 {
		return "not stated"
	}
	return strings.Join(m, ", ")
}

// linkLine is a label with a link that opens after confirmation.
func linkLine(w *Window, label, raw string) fyne.CanvasObject {
	u, err := url.Parse(raw)
	if raw == "" || err != nil || safeLinkURL(u) == nil {
		if raw != "" {
			label += " (" + raw + ")"
		}
		return wrapLabel(label)
	}
	link := widget.NewHyperlink(displayHost(u), u)
	link.OnTapped = func() { w.confirmOpenURL(u) }
	return container.NewHBox(widget.NewLabel(label), link)
}

// skillObjects shows one skill with its examples as buttons that start a
// conversation.
func skillObjects(w *Window, a app.Agent, sk a2a.AgentSkill) []fyne.CanvasObject {
	name := sk.Name
	if name == "" {
		name = sk.ID
	}
	out := []fyne.CanvasObject{widget.NewLabelWithStyle(name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})}
	if sk.Description != "" {
		out = append(out, wrapLabel(sk.Description))
	}
	if len(sk.Tags) > 0 {
		out = append(out, lowLabel("Tags: "+strings.Join(sk.Tags, ", ")))
	}
	if len(sk.InputModes) > 0 || len(sk.OutputModes) > 0 {
		out = append(out, lowLabel("Takes "+modes(sk.InputModes)+"; gives "+modes(sk.OutputModes)))
	}
	for _, ex := range sk.Examples {
		out = append(out, exampleButton(w, a.ID, ex))
	}
	return out
}

// exampleButton starts a new conversation that sends text.
func exampleButton(w *Window, agentID, text string) *widget.Button {
	b := widget.NewButtonWithIcon(truncateRunes(text, 80), theme.MailSendIcon(), func() { w.startChat(agentID, text) })
	b.Alignment = widget.ButtonAlignLeading
	b.Importance = widget.LowImportance
	return b
}

// escEntry is an entry that closes the window's top dialog on Escape.
type escEntry struct {
	widget.Entry
	w *Window
}

func newEscEntry(w *Window) *escEntry {
	e := &escEntry{w: w}
	e.ExtendBaseWidget(e)
	return e
}

func (e *escEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && e.w.closeTopDialog() {
		return
	}
	e.Entry.TypedKey(k)
}
