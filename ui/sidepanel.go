package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
)

// chatShare is the conversation's share of the width beside the side
// panel: the conversation is the widest pane.
const chatShare = 0.68

// lazyTab is a side-panel tab whose content is built when the tab is
// first selected.
type lazyTab struct {
	title   string
	content func() fyne.CanvasObject
}

// newLazyTabs makes tabs whose contents are made when first shown. AppTabs
// sizes itself to the largest content's MinSize, so eager contents would
// build every hidden tab's widgets (and load their fonts, such as the
// console's monospace) at start-up and let the widest hidden tab push the
// conversation narrower.
func newLazyTabs(tabs ...lazyTab) *container.AppTabs {
	items := make([]*container.TabItem, len(tabs))
	build := make(map[*container.TabItem]func() fyne.CanvasObject, len(tabs))
	for i, t := range tabs {
		items[i] = container.NewTabItem(t.title, container.NewStack())
		build[items[i]] = t.content
	}
	fill := func(it *container.TabItem) {
		f, ok := build[it]
		if !ok {
			return
		}
		delete(build, it)
		it.Content.(*fyne.Container).Objects = []fyne.CanvasObject{f()}
		it.Content.Refresh()
	}
	fill(items[0])
	tabs0 := container.NewAppTabs(items...)
	tabs0.OnSelected = fill
	return tabs0
}

// showSideTab shows the side panel (if hidden) on tab i.
func (w *Window) showSideTab(i int) {
	w.setSidePanel(true)
	w.sideTabs.SelectIndex(i)
}

// setSidePanel shows or hides the side panel (agent, tasks, console); when
// hidden the conversation takes the whole width right of the sidebar.
func (w *Window) setSidePanel(show bool) {
	if w.sideShown == show {
		return
	}
	w.sideShown = show
	if show {
		w.chatSplit.Leading = w.chat.Object()
		w.right.Objects = []fyne.CanvasObject{w.chatSplit}
	} else {
		w.right.Objects = []fyne.CanvasObject{w.chat.Object()}
	}
	w.chatSplit.Refresh()
	w.right.Refresh()
}
