package ui

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"log"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/a2ui"
	"aimdesk/a2ui/catalog"
	"aimdesk/a2ui/functions"
	"aimdesk/a2ui/fyner"
	"aimdesk/app"
	"aimdesk/app/a2a"
)

// This file shows agent-drawn interfaces (A2UI) in the chat. A window has
// one a2ui.Processor, driven on the Fyne goroutine, and one fyner
// renderer. The A2UI parts of agent messages are fed to the processor in
// message order, once each (keyed by message id and part index; a part is
// processed again only when a streaming message replaces it with other
// content). A surface is shown inside the message whose part created it;
// parts that only update a surface shown elsewhere show a compact note.
// What the user does goes back to the agent as a user message in the
// surface's conversation (core.SendParts), one data part per A2UI message.

// a2uiOutboundMediaType is the media type of the data parts aimdesk sends
// back: the data is the A2UI message object ({"version", "action"} or
// v0.8 {"userAction"}), as the A2UI A2A extension (v0.8) describes and the
// reference agent reads. Its metadata's mimeType names A2UI.
const a2uiOutboundMediaType = "application/json"

// processStarted splits messages into those that arrived while aimdesk
// runs (problems in their A2UI parts are reported to the agent) and
// history replayed from the store (not reported again). Set once.
var processStarted = time.Now()

// a2uiHost is the window's A2UI state. Use it on the Fyne goroutine.
type a2uiHost struct {
	cv       *chatView
	p        *a2ui.Processor
	r        *fyner.Renderer
	started  time.Time
	parts    map[string]*a2uiPartState
	surfaces map[string]*hostedSurface
}

// a2uiPartState is one processed A2UI part and what the chat shows for it.
type a2uiPartState struct {
	digest  [32]byte
	msgID   string
	holder  *fyne.Container
	created []*hostedSurface // surfaces this part created, shown in its message
	touched []string         // surfaces it changed
	errs    []error
	told    bool // the errors were reported to the agent
}

// hostedSurface is a surface and where the chat shows it.
type hostedSurface struct {
	id, convID, msgID, agentID string
	// live: the surface was created by a message that arrived while this
	// window was open (not replayed from history), so problems found in
	// it are reported to the agent.
	live    bool
	view    *fyner.View
	frame   fyne.CanvasObject
	lastH   float32
	windows []fyne.Window
}

// rendererCatalogs returns the catalogs the Fyne renderer draws: the basic
// catalog of every version (with the ids agents use for them). It fails
// if the renderer could not draw one of them in full.
func rendererCatalogs() (*catalog.Registry, error) {
	reg, err := catalog.NewBasicRegistry()
	if err != nil {
		return nil, err
	}
	for _, c := range reg.Catalogs() {
		if !fyner.SupportsCatalog(c.ComponentNames()) {
			return nil, fmt.Errorf("ui: the A2UI renderer cannot draw every component of catalog %s", c.ID)
		}
	}
	return reg, nil
}

// A2UIMessageMetadata returns the function for app.Config.MessageMetadata:
// every message to an agent carries the A2UI client capabilities
// (a2uiClientCapabilities, a2uiRendererCapabilities) of exactly the
// catalogs the Fyne renderer implements, with the catalogs inline when the
// agent card's A2UI extension says acceptsInlineCatalogs.
func A2UIMessageMetadata() (func(card *a2a.AgentCard) a2a.Metadata, error) {
	reg, err := rendererCatalogs()
	if err != nil {
		return nil, err
	}
	plain, err := a2ui.MessageMetadata(reg, false)
	if err != nil {
		return nil, err
	}
	inline, err := a2ui.MessageMetadata(reg, true)
	if err != nil {
		return nil, err
	}
	return func(card *a2a.AgentCard) a2a.Metadata {
		src := plain
		if card != nil {
			for _, e := range card.Capabilities.Extensions {
				if caps, ok := a2ui.ParseAgentExtension(e.URI, e.Params); ok && caps.AcceptsInlineCatalogs {
					src = inline
				}
			}
		}
		out := make(a2a.Metadata, len(src))
		for k, v := range src {
			out[k] = v
		}
		return out
	}, nil
}

// newA2UIHost makes the window's processor and renderer.
func newA2UIHost(cv *chatView) *a2uiHost {
	h := &a2uiHost{cv: cv, started: processStarted, parts: map[string]*a2uiPartState{}, surfaces: map[string]*hostedSurface{}}
	reg, err := rendererCatalogs()
	opts := []a2ui.Option{a2ui.WithFunctions(functions.NewBasic(functions.WithLocation(time.Local)))}
	if err == nil {
		opts = append(opts, a2ui.WithCatalogs(reg))
	}
	p, err := a2ui.NewProcessor(opts...)
	if err != nil {
		log.Printf("aimdesk: A2UI: %v", err) // the embedded catalogs are broken: a build problem
		p, _ = a2ui.NewProcessor()
	}
	h.p = p
	images := fyner.NewHTTPImageLoader(cv.w.post)
	images.Agent = func() string { // on the Fyne goroutine
		if a, ok := cv.w.agent(cv.agentID); ok {
			return a.Interface.URL
		}
		return ""
	}
	images.Approved = cv.images.isApproved
	h.r = fyner.New(p, fyner.Config{
		Send:    h.sendFromView,
		OpenURL: cv.w.confirmOpenURL,
		Do:      cv.w.post,
		Logf:    log.Printf,
		Images:  images,
	})
	return h
}

// host returns the window's A2UI host.
func (cv *chatView) host() *a2uiHost {
	if cv.a2uiHost == nil {
		cv.a2uiHost = newA2UIHost(cv)
	}
	return cv.a2uiHost
}

func partKey(msgID string, i int) string { return fmt.Sprintf("%s#%d", msgID, i) }

// hostedKey names a hosted surface by its owner and id: surface ids are the
// agents' choice, so one agent's messages must not reach another's surface
// that happens to have the same id.
func hostedKey(agentID, surfaceID string) string { return agentID + "\x00" + surfaceID }

// render returns what the chat shows for part i of m: the view of the
// surfaces it created, a compact note, or nothing (a hidden object).
func (h *a2uiHost) render(m app.Message, i int, p a2a.Part) fyne.CanvasObject {
	if m.Role != a2a.RoleAgent {
		return sentNote(p)
	}
	h.catchUp(m)
	st := h.process(m, i, p)
	h.fill(st)
	return st.holder
}

// catchUp processes the A2UI parts of the loaded messages before m, in
// order, so that surfaces are built in the order the agent sent them even
// when the list draws a later message first.
func (h *a2uiHost) catchUp(m app.Message) {
	for _, x := range h.cv.msgs {
		if x.ID == m.ID {
			return
		}
		if x.Role != a2a.RoleAgent {
			continue
		}
		for i, p := range x.Parts {
			if isA2UIPart(p) {
				h.process(x, i, p)
			}
		}
	}
}

// process feeds part i of m to the processor unless it was processed
// with the same content before.
func (h *a2uiHost) process(m app.Message, i int, p a2a.Part) *a2uiPartState {
	key := partKey(m.ID, i)
	digest := sha256.Sum256(partPayload(p))
	st := h.parts[key]
	if st != nil && st.digest == digest {
		return st
	}
	if st == nil {
		st = &a2uiPartState{msgID: m.ID, holder: container.NewStack()}
		h.parts[key] = st
	}
	// A streaming message may replace the part: keep showing what the
	// earlier content created.
	st.digest, st.touched, st.errs, st.told = digest, nil, nil, false
	part := toA2UIPart(p)
	h.replaceSurfaces(m.ID, part)
	res, err := h.p.ProcessPart(h.cv.agentID, part)
	if err != nil {
		st.errs = append(st.errs, err)
		return st
	}
	live := !m.CreatedAt.Before(h.started)
	for _, sc := range res.Change.Surfaces {
		switch {
		case sc.Created:
			hs := &hostedSurface{id: sc.SurfaceID, convID: m.ConversationID, msgID: m.ID, agentID: h.cv.agentID, live: live}
			h.surfaces[hostedKey(h.cv.agentID, sc.SurfaceID)] = hs
			st.created = append(st.created, hs)
		default:
			st.touched = append(st.touched, hostedKey(h.cv.agentID, sc.SurfaceID))
		}
	}
	st.errs = res.Errors
	if live && len(res.Outgoing) > 0 {
		st.told = true
		h.send(m.ConversationID, res.Outgoing)
	}
	return st
}

// replaceSurfaces deletes the surfaces a part creates (createSurface)
// when another message created them: agents reuse surface ids (the
// reference agent's form always has one id), and a new message creating
// the surface means the newer one. The older message then shows that the
// view was closed. (The spec makes a second createSurface an error; the
// core still reports it when one message creates a surface twice.)
func (h *a2uiHost) replaceSurfaces(msgID string, part a2ui.Part) {
	if !part.IsA2UI() {
		return
	}
	var v any
	switch d := part.Data.(type) {
	case json.RawMessage:
		if json.Unmarshal(d, &v) != nil {
			return
		}
	default:
		return
	}
	list, err := a2ui.SplitMessages(v)
	if err != nil {
		return
	}
	for i, raw := range list {
		msg, err := a2ui.DecodeMessage(raw, i)
		if err != nil || msg.Kind != a2ui.KindCreateSurface {
			continue // v0.8 has no create message: a later message updates
		}
		hs := h.surfaces[hostedKey(h.cv.agentID, msg.SurfaceID)]
		s, live := h.p.SurfaceOf(h.cv.agentID, msg.SurfaceID)
		if hs == nil || !live || hs.msgID == msgID || s.Version() == a2ui.V08 {
			continue
		}
		h.p.ProcessValue(s.AgentID(), map[string]any{
			"version":       string(s.Version()),
			"deleteSurface": map[string]any{"surfaceId": msg.SurfaceID},
		})
	}
}

// fill puts into a part's holder what the part shows.
func (h *a2uiHost) fill(st *a2uiPartState) {
	var objs []fyne.CanvasObject
	for _, hs := range st.created {
		if f := h.frame(hs); f != nil {
			objs = append(objs, f)
		}
	}
	if len(st.created) == 0 {
		for _, key := range st.touched {
			if hs := h.surfaces[key]; hs != nil && hs.msgID != st.msgID {
				objs = append(objs, h.updateNote(hs))
				break
			}
		}
	}
	if len(st.errs) > 0 {
		objs = append(objs, errorNote(st.errs, st.told))
	}
	if len(objs) == 0 {
		st.holder.Objects = nil
		st.holder.Hide()
		return
	}
	st.holder.Objects = objs
	if len(objs) > 1 {
		st.holder.Objects = []fyne.CanvasObject{container.NewVBox(objs...)}
	}
	st.holder.Show()
	st.holder.Refresh()
}

// frame is a surface's view in the chat, with its "Pop out" button.
func (h *a2uiHost) frame(hs *hostedSurface) fyne.CanvasObject {
	if hs.frame != nil {
		return hs.frame
	}
	s, ok := h.p.SurfaceOf(hs.agentID, hs.id)
	if !ok || h.surfaces[hostedKey(hs.agentID, hs.id)] != hs {
		return nil // deleted (or replaced) before it was ever drawn
	}
	hs.view = h.r.View(s)
	hs.lastH = hs.view.Object().MinSize().Height
	pop := widget.NewButtonWithIcon("Pop out", theme.ViewFullScreenIcon(), func() { h.popOut(hs) })
	pop.Importance = widget.LowImportance
	hs.view.OnChange = func() {
		if hs.view.Deleted() {
			pop.Hide()
		}
		h.resized(hs)
	}
	title := widget.NewLabel("Interactive view")
	title.Importance = widget.LowImportance
	head := container.NewBorder(nil, nil, widget.NewIcon(theme.GridIcon()), pop, title)
	hs.frame = container.NewBorder(head, nil, nil, nil, hs.view.Object())
	return hs.frame
}

// resized measures the message again when a surface's height changed.
func (h *a2uiHost) resized(hs *hostedSurface) {
	height := hs.view.Object().MinSize().Height
	if height == hs.lastH {
		return
	}
	hs.lastH = height
	msgID := hs.msgID
	h.cv.w.post(func() { h.cv.refreshMessage(msgID) })
}

// updateNote is shown for a part that only changed a surface shown in
// another message.
func (h *a2uiHost) updateNote(hs *hostedSurface) fyne.CanvasObject {
	text := "Updated the interactive view shown earlier in this conversation."
	if _, ok := h.p.SurfaceOf(hs.agentID, hs.id); !ok {
		text = "Closed the interactive view shown earlier in this conversation."
	}
	l := lowLabel(text)
	l.Wrapping = fyne.TextWrapWord
	open := widget.NewButtonWithIcon("Show", theme.ViewFullScreenIcon(), func() { h.popOut(hs) })
	open.Importance = widget.LowImportance
	if _, ok := h.p.SurfaceOf(hs.agentID, hs.id); !ok {
		open.Disable()
	}
	return container.NewBorder(nil, nil, widget.NewIcon(theme.GridIcon()), open, l)
}

// popOut shows a surface in its own window: a second view of the same
// surface, kept in sync by the renderer.
func (h *a2uiHost) popOut(hs *hostedSurface) {
	s, ok := h.p.SurfaceOf(hs.agentID, hs.id)
	if !ok || (hs.view != nil && (hs.view.Deleted() || hs.view.Surface() != s)) {
		return
	}
	title := "Interactive view"
	if a, ok := h.cv.w.agent(hs.agentID); ok {
		title += " · " + agentTitle(a)
	}
	win := h.cv.w.env.app.NewWindow(title)
	v := h.r.View(s)
	win.SetContent(container.NewVScroll(container.NewPadded(v.Object())))
	win.SetOnClosed(func() {
		v.Close()
		for i, w := range hs.windows {
			if w == win {
				hs.windows = append(hs.windows[:i], hs.windows[i+1:]...)
				break
			}
		}
	})
	height := v.Object().MinSize().Height + 4*theme.Padding()
	win.Resize(fyne.NewSize(520, min(max(height, 240), 760)))
	hs.windows = append(hs.windows, win)
	win.Show()
}

// sendFromView sends what the renderer produced (actions, errors about
// components it cannot draw) in the conversations of their surfaces.
// Errors about surfaces replayed from history are not sent again.
func (h *a2uiHost) sendFromView(outs []a2ui.Outbound) {
	byConv := map[string][]a2ui.Outbound{}
	var order []string
	for _, o := range outs {
		hs := h.surfaces[hostedKey(o.AgentID, o.SurfaceID)]
		if hs == nil {
			continue
		}
		if _, isErr := o.Message["error"]; isErr && !hs.live {
			continue
		}
		if _, seen := byConv[hs.convID]; !seen {
			order = append(order, hs.convID)
		}
		byConv[hs.convID] = append(byConv[hs.convID], o)
	}
	for _, conv := range order {
		h.send(conv, byConv[conv])
	}
}

// send sends A2UI messages to the agent of a conversation, as one user
// message with a data part per A2UI message; the outbound metadata (the
// data models of sendDataModel surfaces) goes into the message's metadata.
func (h *a2uiHost) send(convID string, outs []a2ui.Outbound) {
	parts := make([]a2a.Part, 0, len(outs))
	meta := a2a.Metadata{}
	for _, o := range outs {
		p, err := outboundPart(o)
		if err != nil {
			log.Printf("aimdesk: A2UI: %v", err)
			continue
		}
		parts = append(parts, p)
		for k, v := range o.Metadata {
			b, err := json.Marshal(v)
			if err != nil {
				log.Printf("aimdesk: A2UI: encode %s: %v", k, err)
				continue
			}
			meta[k] = b
		}
	}
	if len(parts) == 0 || convID == "" {
		return
	}
	w := h.cv.w
	go func() {
		if _, err := w.core.SendParts(w.ctx, convID, parts, meta); err != nil {
			w.post(func() { w.showError(err) })
		}
	}()
}

// outboundPart encodes an A2UI message for the agent: a data part whose
// data is the message and whose metadata names A2UI (mimeType).
func outboundPart(o a2ui.Outbound) (a2a.Part, error) {
	data, err := json.Marshal(o.Message)
	if err != nil {
		return a2a.Part{}, fmt.Errorf("a2ui: encode %s message: %w", o.Version, err)
	}
	mt := a2ui.MIMETypeAlt
	if o.Version == a2ui.V08 {
		mt = a2ui.MIMEType
	}
	md := a2a.Metadata{"mimeType": json.RawMessage(`"` + mt + `"`)}
	return a2a.Part{Kind: a2a.PartData, Data: data, MediaType: a2uiOutboundMediaType, Metadata: md}, nil
}

// partPayload is what identifies a part's content.
func partPayload(p a2a.Part) []byte {
	switch p.Kind {
	case a2a.PartRaw:
		return p.Raw
	case a2a.PartText:
		return []byte(p.Text)
	}
	return p.Data
}

// toA2UIPart converts a transport part for the processor.
func toA2UIPart(p a2a.Part) a2ui.Part {
	md := make(map[string]any, len(p.Metadata))
	for k, raw := range p.Metadata {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			md[k] = v
		}
	}
	out := a2ui.Part{MediaType: p.MediaType, Metadata: md}
	switch p.Kind {
	case a2a.PartRaw:
		out.Data = p.Raw
	case a2a.PartText:
		out.Data = p.Text
	default:
		out.Data = json.RawMessage(p.Data)
	}
	return out
}

// sentNote describes an A2UI message the user's side sent.
func sentNote(p a2a.Part) fyne.CanvasObject {
	var msg map[string]json.RawMessage
	text := "Sent an answer from the interactive view."
	if json.Unmarshal(partPayload(p), &msg) == nil {
		for _, k := range []string{"action", "userAction"} {
			var a struct {
				Name string `json:"name"`
			}
			if raw, ok := msg[k]; ok && json.Unmarshal(raw, &a) == nil && a.Name != "" {
				text = fmt.Sprintf("Used “%s” in the interactive view.", a.Name)
			}
		}
		if raw, ok := msg["error"]; ok {
			var e struct {
				Message string `json:"message"`
			}
			_ = json.Unmarshal(raw, &e)
			text = "Told the agent about a problem with its interactive view: " + truncateRunes(e.Message, 160)
		}
	}
	l := lowLabel(text)
	l.Wrapping = fyne.TextWrapWord
	return container.NewBorder(nil, nil, widget.NewIcon(theme.GridIcon()), nil, l)
}

// errorNote shows what was wrong with an A2UI part.
func errorNote(errs []error, told bool) fyne.CanvasObject {
	first := strings.TrimPrefix(errs[0].Error(), "a2ui: ")
	text := fmt.Sprintf("The agent's interface description had a problem: %s", truncateRunes(first, 200))
	if len(errs) > 1 {
		text = fmt.Sprintf("The agent's interface description had %d problems; the first: %s", len(errs), truncateRunes(first, 200))
	}
	if told {
		text += " aimdesk told the agent."
	}
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.WarningImportance
	return container.NewBorder(nil, nil, widget.NewIcon(theme.WarningIcon()), nil, l)
}
