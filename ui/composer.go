package ui

import (
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
)

// composer is where the user writes: a multi-line entry (Enter sends,
// Shift+Enter adds a line), attachments as removable chips, and Send.
type composer struct {
	cv      *chatView
	entry   *composerEntry
	send    *widget.Button
	attach  *widget.Button
	chips   *fyne.Container
	chipBar *container.Scroll
	errText *widget.Label
	files   []app.Attachment
	enabled bool
	box     *fyne.Container
}

func newComposer(cv *chatView) *composer {
	c := &composer{cv: cv, chips: container.NewHBox(), errText: widget.NewLabel("")}
	c.entry = newComposerEntry()
	c.entry.onSend = c.submit
	c.entry.onShortcut = func(s fyne.Shortcut) bool { return cv.w.handleShortcut(s) }
	c.entry.OnChanged = func(string) {
		c.clearError()
		c.updateSend()
	}
	c.send = widget.NewButtonWithIcon("Send", theme.MailSendIcon(), c.submit)
	c.send.Importance = widget.HighImportance
	c.attach = widget.NewButtonWithIcon("", theme.MailAttachmentIcon(), c.pickFile)
	c.errText.Wrapping = fyne.TextWrapWord
	c.errText.Importance = widget.DangerImportance
	c.errText.Hide()
	c.chipBar = container.NewHScroll(c.chips)
	c.chipBar.Hide()
	c.box = container.NewVBox(c.chipBar, c.errText,
		container.NewBorder(nil, nil, c.attach, c.send, c.entry))
	c.setEnabled(false)
	return c
}

func (c *composer) Object() fyne.CanvasObject { return c.box }

// setEnabled turns the composer on when there is an agent to write to.
func (c *composer) setEnabled(on bool) {
	c.enabled = on
	if on {
		c.entry.Enable()
		c.attach.Enable()
	} else {
		c.entry.Disable()
		c.attach.Disable()
	}
	c.updateSend()
}

// updateSend enables Send when there is something to send.
func (c *composer) updateSend() {
	if c.enabled && (strings.TrimSpace(c.entry.Text) != "" || len(c.files) > 0) {
		c.send.Enable()
	} else {
		c.send.Disable()
	}
}

func (c *composer) focus() {
	if c.enabled {
		c.cv.w.Canvas().Focus(c.entry)
	}
}

func (c *composer) conversationChanged() { c.clearError() }

func (c *composer) clearError() {
	if c.errText.Visible() {
		c.errText.Hide()
		c.cv.relayout()
	}
}

func (c *composer) showError(msg string) {
	c.errText.SetText(msg)
	c.errText.Show()
	c.cv.relayout()
}

// submit sends the text and attachments, in a new conversation when none
// is open. The composer empties at once and gets its content back if the
// message could not be queued.
func (c *composer) submit() {
	text := strings.TrimRight(c.entry.Text, " \t\r\n")
	files := c.files
	cv := c.cv
	if !c.enabled || cv.agentID == "" || (strings.TrimSpace(text) == "" && len(files) == 0) {
		return
	}
	if err := cv.w.core.CheckAttachments(cv.agentID, files, strings.TrimSpace(text) != ""); err != nil {
		c.showError(err.Error())
		return
	}
	agentID, convID := cv.agentID, cv.convID
	c.entry.SetText("")
	c.setFiles(nil)
	restore := func(err error) {
		if c.entry.Text == "" && len(c.files) == 0 {
			c.entry.SetText(text)
			c.setFiles(files)
		}
		c.showError("Not sent: " + userText(err))
	}
	go func() {
		if convID == "" {
			conv, err := cv.w.core.NewConversation(cv.w.ctx, agentID)
			if err != nil {
				cv.w.post(func() { restore(err) })
				return
			}
			convID = conv.ID
			done := make(chan struct{})
			cv.w.post(func() {
				if cv.agentID == agentID && cv.convID == "" {
					cv.w.openConversation(agentID, convID)
				}
				close(done)
			})
			select {
			case <-done:
			case <-cv.w.ctx.Done():
				return
			}
		}
		if _, err := cv.w.core.Send(cv.w.ctx, convID, text, files); err != nil {
			cv.w.post(func() { restore(err) })
		}
	}()
}

// pickFile attaches a file chosen in a file dialog.
func (c *composer) pickFile() {
	d := dialog.NewFileOpen(func(rc fyne.URIReadCloser, err error) {
		if err != nil {
			c.cv.w.showError(err)
			return
		}
		if rc == nil {
			return // cancelled
		}
		uri := rc.URI()
		_ = rc.Close()
		c.attachURIs([]fyne.URI{uri})
	}, c.cv.w.Window)
	d.Show()
}

// attachURIs reads files (from the file dialog or dropped on the window)
// in the background and attaches those the agent takes.
func (c *composer) attachURIs(uris []fyne.URI) {
	if !c.enabled || c.cv.agentID == "" {
		c.cv.w.showError(fmt.Errorf("choose an agent before attaching files"))
		return
	}
	maxBytes, _ := c.cv.w.core.AttachmentLimits(c.cv.agentID)
	agentID := c.cv.agentID
	core := c.cv.w.core
	check := func(name string, size int64) error { return core.CheckAttachmentSize(agentID, name, size) }
	go func() {
		var got []app.Attachment
		var problems []string
		for _, u := range uris {
			a, err := readAttachment(u, maxBytes, check)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			got = append(got, a)
		}
		c.cv.w.post(func() {
			if c.cv.agentID != agentID {
				return
			}
			for _, a := range got {
				candidate := append(append([]app.Attachment(nil), c.files...), a)
				if err := c.cv.w.core.CheckAttachments(agentID, candidate, strings.TrimSpace(c.entry.Text) != ""); err != nil {
					problems = append(problems, err.Error())
					continue
				}
				c.setFiles(candidate)
			}
			if len(problems) > 0 {
				c.showError(strings.Join(problems, "\n"))
			} else {
				c.clearError()
			}
		})
	}()
}

// readAttachment reads a file, refusing one the agent would not take
// (check, the core's rule) before reading it when the file system tells its
// size, and after reading at most maxBytes+1 bytes otherwise.
func readAttachment(u fyne.URI, maxBytes int, check func(name string, size int64) error) (app.Attachment, error) {
	name := u.Name()
	a := app.Attachment{Name: name, MediaType: mediaTypeOf(u)}
	if u.Scheme() == "file" {
		fi, err := os.Stat(u.Path())
		if err != nil {
			return a, fmt.Errorf("%s cannot be read: %v", name, err)
		}
		if fi.IsDir() {
			return a, fmt.Errorf("%s is a folder; attach files one by one", name)
		}
		if err := check(name, fi.Size()); err != nil {
			return a, err
		}
	}
	r, err := storage.Reader(u)
	if err != nil {
		return a, fmt.Errorf("%s cannot be read: %v", name, err)
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, int64(maxBytes)+1))
	if err != nil {
		return a, fmt.Errorf("%s cannot be read: %v", name, err)
	}
	if len(data) > maxBytes {
		return a, fmt.Errorf("%s is larger than %s, the most this agent takes", name, app.HumanBytes(int64(maxBytes)))
	}
	a.Data = data
	return a, nil
}

func mediaTypeOf(u fyne.URI) string {
	if mt := u.MimeType(); mt != "" && mt != "text/plain" {
		return mt
	}
	if mt := mime.TypeByExtension(strings.ToLower(filepath.Ext(u.Name()))); mt != "" {
		return mt
	}
	if u.MimeType() != "" {
		return u.MimeType()
	}
	return "application/octet-stream"
}

// setFiles replaces the attachments and their chips.
func (c *composer) setFiles(files []app.Attachment) {
	c.files = files
	c.chips.Objects = c.chips.Objects[:0]
	for i, f := range files {
		idx := i
		label := widget.NewLabel(truncateRunes(f.Name, 40) + " · " + app.HumanBytes(int64(len(f.Data))))
		remove := widget.NewButtonWithIcon("", theme.CancelIcon(), func() { c.removeFile(idx) })
		remove.Importance = widget.LowImportance
		c.chips.Add(container.NewHBox(widget.NewIcon(fileIcon(f.MediaType)), label, remove))
	}
	if len(files) == 0 {
		c.chipBar.Hide()
	} else {
		c.chipBar.Show()
	}
	c.chips.Refresh()
	c.cv.relayout()
	c.updateSend()
}

func (c *composer) removeFile(i int) {
	if i < 0 || i >= len(c.files) {
		return
	}
	files := append(append([]app.Attachment(nil), c.files[:i]...), c.files[i+1:]...)
	c.setFiles(files)
	c.clearError()
}

// composerEntry is a multi-line entry where Enter sends and Shift+Enter
// adds a line. Window shortcuts typed while it has the focus are passed to
// the window.
type composerEntry struct {
	widget.Entry
	onSend     func()
	onShortcut func(fyne.Shortcut) bool
	shift      bool
}

func newComposerEntry() *composerEntry {
	e := &composerEntry{}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapWord
	e.SetPlaceHolder("Write a message — Enter sends, Shift+Enter adds a line")
	e.SetMinRowsVisible(2)
	e.ExtendBaseWidget(e)
	return e
}

func (e *composerEntry) shiftHeld() bool {
	if e.shift {
		return true
	}
	if d, ok := fyne.CurrentApp().Driver().(desktop.Driver); ok {
		return d.CurrentKeyModifiers()&fyne.KeyModifierShift != 0
	}
	return false
}

// TypedKey sends on Enter unless Shift is held.
func (e *composerEntry) TypedKey(k *fyne.KeyEvent) {
	if (k.Name == fyne.KeyReturn || k.Name == fyne.KeyEnter) && !e.shiftHeld() {
		if e.onSend != nil && !e.Disabled() {
			e.onSend()
		}
		return
	}
	e.Entry.TypedKey(k)
}

// KeyDown tracks Shift.
func (e *composerEntry) KeyDown(k *fyne.KeyEvent) {
	if k.Name == desktop.KeyShiftLeft || k.Name == desktop.KeyShiftRight {
		e.shift = true
	}
	e.Entry.KeyDown(k)
}

// KeyUp tracks Shift.
func (e *composerEntry) KeyUp(k *fyne.KeyEvent) {
	if k.Name == desktop.KeyShiftLeft || k.Name == desktop.KeyShiftRight {
		e.shift = false
	}
	e.Entry.KeyUp(k)
}

// TypedShortcut gives the window's shortcuts to the window.
func (e *composerEntry) TypedShortcut(s fyne.Shortcut) {
	if e.onShortcut != nil && e.onShortcut(s) {
		return
	}
	e.Entry.TypedShortcut(s)
}
