package ui

// The audit log view: every decision sent to an agent (Core.Audit), newest
// first, with a search and an export of the whole log as JSON
// (Core.ExportAudit).

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app/store"
)

// Tuning of the audit view.
const (
	auditLimit       = 500                    // entries listed (Export writes all)
	auditSearchDelay = 250 * time.Millisecond // typing pause before searching
)

// auditColumns are the table's columns.
var auditColumns = []struct {
	title string
	width float32
}{
	{"Time", 160},
	{"Agent", 150},
	{"Task", 90},
	{"Requirement", 90},
	{"Version", 70},
	{"Digest", 150},
	{"Decision", 80},
	{"Outcome", 260},
}

// auditView is the audit log window.
type auditView struct {
	ui      *approvalsUI
	win     fyne.Window
	search  *widget.Entry
	table   *widget.Table
	count   *widget.Label
	export  *widget.Button
	entries []store.AuditEntry
	seq     int // the newest load; older answers are dropped
	typed   int // the newest keystroke in the search
	loaded  bool
}

// ShowAudit opens (or brings forward) the audit log window.
func (a *approvalsUI) ShowAudit() {
	if a.audit != nil {
		a.audit.reload()
		a.audit.win.Show()
		a.audit.win.RequestFocus()
		return
	}
	v := &auditView{ui: a}
	v.win = a.env.app.NewWindow("Audit log — aimdesk")
	v.search = widget.NewEntry()
	v.search.SetPlaceHolder("Search agent, task, requirement, decision, outcome…")
	v.search.OnChanged = func(string) { v.searchLater() }
	v.search.OnSubmitted = func(string) { v.reload() }
	v.count = widget.NewLabel("Loading…")
	v.count.Importance = widget.LowImportance
	v.export = widget.NewButtonWithIcon("Export…", theme.DocumentSaveIcon(), v.showExport)
	v.table = widget.NewTableWithHeaders(
		func() (int, int) { return len(v.entries), len(auditColumns) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.TableCellID, o fyne.CanvasObject) {
			l := o.(*widget.Label)
			if id.Row < 0 || id.Row >= len(v.entries) {
				l.SetText("")
				return
			}
			l.SetText(auditCell(&v.entries[id.Row], id.Col))
		})
	v.table.ShowHeaderColumn = false
	v.table.CreateHeader = func() fyne.CanvasObject {
		return widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	v.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		l := o.(*widget.Label)
		if id.Col >= 0 && id.Col < len(auditColumns) {
			l.SetText(auditColumns[id.Col].title)
		}
	}
	for i, c := range auditColumns {
		v.table.SetColumnWidth(i, c.width)
	}
	top := container.NewBorder(nil, nil, widget.NewIcon(theme.SearchIcon()), nil, v.search)
	bottom := container.NewBorder(nil, nil, nil, container.NewHBox(v.export, widget.NewButton("Close", func() { v.win.Close() })), v.count)
	v.win.SetContent(container.NewBorder(top, bottom, nil, nil, v.table))
	v.win.Resize(fyne.NewSize(1000, 520))
	v.win.SetOnClosed(func() { a.audit = nil })
	a.audit = v
	v.reload()
	v.win.Show()
	v.win.Canvas().Focus(v.search)
}

// auditCell is one cell of the table.
func auditCell(e *store.AuditEntry, col int) string {
	switch col {
	case 0:
		return approvalTime(e.Time)
	case 1:
		name := e.AgentName
		if name == "" {
			name = e.AgentID
		}
		return approvalShowInvisible(name)
	case 2:
		return approvalShort(e.TaskID)
	case 3:
		return approvalShort(e.RequirementID)
	case 4:
		return strconv.FormatInt(e.Version, 10)
	case 5:
		return auditShortDigest(e.Digest)
	case 6:
		return e.Decision
	case 7:
		return approvalShowInvisible(approvalOneLine(e.Outcome))
	}
	return ""
}

// auditShortDigest shortens "sha256:<64 hex>" to "sha256:0123456789ab…".
func auditShortDigest(d string) string {
	if d == "" {
		return "—"
	}
	hex, ok := strings.CutPrefix(d, "sha256:")
	if ok && len(hex) > 12 {
		return "sha256:" + hex[:12] + "…"
	}
	return approvalClipRunes(d, 20)
}

// searchLater searches once typing pauses.
func (v *auditView) searchLater() {
	v.typed++
	n := v.typed
	time.AfterFunc(auditSearchDelay, func() {
		approvalDo(v.ui.env, func() {
			if n == v.typed {
				v.reload()
			}
		})
	})
}

// reload reads the log again with the current search.
func (v *auditView) reload() {
	v.seq++
	seq, q := v.seq, strings.TrimSpace(v.search.Text)
	env := v.ui.env
	go func() {
		entries, err := env.core.Audit(env.ctx, q, auditLimit)
		approvalDo(env, func() {
			if seq != v.seq {
				return
			}
			v.loaded = true
			if err != nil {
				v.count.SetText("Could not read the audit log: " + userText(err))
				v.count.Importance = widget.DangerImportance
				v.count.Refresh()
				return
			}
			v.entries = entries
			v.table.Refresh()
			v.count.Importance = widget.LowImportance
			switch {
			case len(entries) == 0 && q != "":
				v.count.SetText(fmt.Sprintf("No decision matches %q.", q))
			case len(entries) == 0:
				v.count.SetText("No decisions yet.")
			case len(entries) >= auditLimit:
				v.count.SetText(fmt.Sprintf("Showing the newest %d decisions; search to narrow, or Export for all.", len(entries)))
			case len(entries) == 1:
				v.count.SetText("1 decision.")
			default:
				v.count.SetText(fmt.Sprintf("%d decisions.", len(entries)))
			}
			v.count.Refresh()
		})
	}()
}

// showExport asks where to save the log.
func (v *auditView) showExport() {
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil {
			v.ui.showErrorIn(v.win, err)
			return
		}
		if w == nil {
			return // cancelled
		}
		v.exportTo(w)
	}, v.win)
	d.SetFileName("aimdesk-audit-" + time.Now().Format("2006-01-02") + ".json")
	d.SetFilter(storage.NewExtensionFileFilter([]string{".json"}))
	d.Resize(fyne.NewSize(760, 520))
	d.Show()
}

// exportTo writes the whole log to w as JSON and closes it.
func (v *auditView) exportTo(w fyne.URIWriteCloser) {
	env := v.ui.env
	v.export.Disable()
	v.count.SetText("Exporting…")
	go func() {
		err := env.core.ExportAudit(env.ctx, w)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		approvalDo(env, func() {
			v.export.Enable()
			if err != nil {
				v.count.SetText("Export failed: " + userText(err))
				v.count.Importance = widget.DangerImportance
			} else {
				v.count.SetText("Exported the audit log to " + w.URI().Path() + ".")
				v.count.Importance = widget.SuccessImportance
			}
			v.count.Refresh()
		})
	}()
}

// showErrorIn shows err over win (the main window's error dialog when win
// is the main window).
func (a *approvalsUI) showErrorIn(win fyne.Window, err error) {
	if win == a.env.win || win == nil {
		a.showError(err)
		return
	}
	dialog.ShowError(err, win)
}
