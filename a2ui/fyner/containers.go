package fyner

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/a2ui"
	"aimdesk/a2ui/functions"
)

// maxListHeight bounds a virtualized list inside a message.
const maxListHeight = 420

func buildRow(v *View, e *element) { buildFlex(v, e, true) }

func buildColumn(v *View, e *element) { buildFlex(v, e, false) }

// buildFlex draws a Row or Column: a flexLayout with justify, align and
// the children's weights.
func buildFlex(v *View, e *element, horizontal bool) {
	lay := &flexLayout{horizontal: horizontal}
	box := container.New(lay)
	e.obj = box
	e.refresh = func() {
		lay.justify, lay.align = e.enum("justify"), e.enum("align")
		e.redraw(box)
	}
	e.rebuild = func() {
		box.Objects, lay.items = v.kids(e.n, "")
		e.redraw(box)
	}
	lay.justify, lay.align = e.enum("justify"), e.enum("align")
	box.Objects, lay.items = v.kids(e.n, "")
}

// isTemplate reports whether a node's children come from a template.
func isTemplate(n *a2ui.Node) bool {
	m, ok := n.Prop("children")
	if !ok {
		return false
	}
	obj, ok := m.(map[string]any)
	if !ok {
		return false
	}
	if _, ok := obj["componentId"]; ok {
		return true
	}
	_, ok = obj["template"]
	return ok
}

// buildList draws a List: a column (or a scrolling row when horizontal);
// a long template list becomes a virtualized widget.List whose rows get
// widgets only when they are visible.
func buildList(v *View, e *element) {
	holder := container.NewStack()
	e.obj = holder
	mode := ""
	var inner *element
	e.rebuild = func() {
		want := "column"
		switch {
		case e.enum("direction") == "horizontal":
			want = "row"
		case v.r.cfg.VirtualizeAbove >= 0 && isTemplate(e.n) && len(e.n.Children()) > v.r.cfg.VirtualizeAbove:
			want = "virtual"
		}
		if want == mode && inner != nil {
			inner.rebuild()
			return
		}
		mode = want
		inner = &element{v: v, n: e.n}
		switch mode {
		case "virtual":
			buildVirtualList(v, inner)
		case "row":
			buildFlex(v, inner, true)
			inner.obj = container.NewHScroll(inner.obj)
		default:
			buildFlex(v, inner, false)
		}
		inner.ready = true
		holder.Objects = []fyne.CanvasObject{inner.obj}
		e.redraw(holder)
	}
	e.refresh = func() {
		if inner != nil && inner.refresh != nil {
			inner.refresh()
		}
	}
	e.rebuild()
}

// buildVirtualList draws a long vertical list with widget.List.
func buildVirtualList(v *View, e *element) {
	est := fyne.NewSize(0, theme.TextSize()+4*theme.Padding())
	if kids := e.n.Children(); len(kids) > 0 {
		est = est.Max(v.element(kids[0]).obj.MinSize())
	}
	heights := map[int]float32{}
	var lst *widget.List
	lst = widget.NewList(
		func() int { return len(e.n.Children()) },
		func() fyne.CanvasObject {
			sizer := canvas.NewRectangle(color.Transparent)
			sizer.SetMinSize(fyne.NewSize(0, est.Height))
			return container.NewStack(sizer)
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			kids := e.n.Children()
			if id >= len(kids) {
				return
			}
			ce := v.element(kids[id])
			holder := o.(*fyne.Container)
			if len(holder.Objects) != 2 || holder.Objects[1] != ce.obj {
				holder.Objects = []fyne.CanvasObject{holder.Objects[0], ce.obj}
				holder.Refresh()
			}
			h := ce.obj.MinSize().Height
			if old, ok := heights[id]; (!ok && h > est.Height+0.5) || (ok && old != h) {
				heights[id] = h
				v.r.cfg.Do(func() { lst.SetItemHeight(id, h) })
			}
		})
	lst.HideSeparators = true
	pad := theme.Padding()
	e.obj = container.New(&capLayout{max: maxListHeight, want: func() float32 {
		n := float32(len(e.n.Children()))
		return n*est.Height + (n-1)*pad
	}}, lst)
	e.rebuild = func() {
		clear(heights)
		lst.Refresh()
	}
	e.refresh = func() {}
}

func buildCard(v *View, e *element) {
	card := widget.NewCard("", "", nil)
	e.obj = card
	e.rebuild = func() {
		var content fyne.CanvasObject
		if objs, _ := v.kids(e.n, "child"); len(objs) > 0 {
			content = objs[0]
		}
		if !e.ready {
			card.Content = content
		} else {
			card.SetContent(content)
		}
	}
	e.rebuild()
}

// tabEntries returns the title and child id of each tab.
func tabEntries(e *element) (titles, ids []string) {
	raw, _ := e.n.Prop(e.name("tabs"))
	list, _ := raw.([]any)
	for _, t := range list {
		m, ok := t.(map[string]any)
		if !ok {
			continue
		}
		title := ""
		if tv, ok := m["title"]; ok {
			x, _ := e.n.Eval(tv)
			title = markdownPlain(functions.Stringify(x))
		}
		id, _ := m["child"].(string)
		titles = append(titles, title)
		ids = append(ids, id)
	}
	return titles, ids
}

func buildTabs(v *View, e *element) {
	tabs := container.NewAppTabs()
	e.obj = tabs
	e.widget = tabs
	e.rebuild = func() {
		titles, ids := tabEntries(e)
		byID := map[string]*a2ui.Node{}
		for _, c := range e.n.Slot(e.name("tabs")) {
			byID[c.ID()] = c
		}
		items := make([]*container.TabItem, 0, len(ids))
		for i, id := range ids {
			var content fyne.CanvasObject
			if c := byID[id]; c != nil {
				content = v.element(c).obj
			} else {
				content = note(theme.WarningIcon(), "This tab has no content yet.")
			}
			items = append(items, container.NewTabItem(titles[i], content))
		}
		if !e.ready {
			tabs.Items = items
			return
		}
		sel := tabs.SelectedIndex()
		tabs.SetItems(items)
		if sel > 0 && sel < len(items) {
			tabs.SelectIndex(sel)
		}
	}
	e.refresh = func() {
		titles, _ := tabEntries(e)
		for i, it := range tabs.Items {
			if i < len(titles) {
				it.Text = titles[i]
			}
		}
		tabs.Refresh()
	}
	e.rebuild()
}

func buildDivider(_ *View, e *element) {
	sep := widget.NewSeparator()
	e.obj = sep
}

// buildModal draws a Modal's trigger; using it opens a dialog with the
// content. A Button trigger keeps its own action too (as in the web
// renderers, where the click reaches both).
func buildModal(v *View, e *element) {
	holder := container.NewStack()
	e.obj = holder
	open := func() {
		cs := e.n.Slot(e.name("content"))
		if len(cs) == 0 {
			return
		}
		win := windowFor(holder)
		if win == nil {
			return
		}
		content := v.element(cs[0]).obj
		d := dialog.NewCustom(e.n.Accessibility().Label, "Close", container.NewVScroll(content), win)
		min := content.MinSize()
		d.Resize(fyne.NewSize(fmax(min.Width+64, 360), fmin(min.Height+120, 600)))
		d.Show()
	}
	e.widget = nil
	e.rebuild = func() {
		for _, c := range e.n.Slot(e.name("content")) {
			v.element(c) // follows updates while the dialog is closed
		}
		var trigger fyne.CanvasObject
		if ts := e.n.Slot(e.name("trigger")); len(ts) > 0 {
			te := v.element(ts[0])
			if ts[0].Type() == "Button" {
				te.onTap = open
				trigger = te.obj
			} else {
				trigger = newTapArea(te.obj, open)
			}
		} else {
			trigger = widget.NewButtonWithIcon("Open", theme.ViewFullScreenIcon(), open)
		}
		e.widget = trigger
		holder.Objects = []fyne.CanvasObject{trigger}
		e.redraw(holder)
	}
	e.rebuild()
}
