package fyner

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Fyne plays no audio or video: Video and AudioPlayer are cards with the
// source and a button that opens an http(s) source in the user's player
// (through Config.OpenURL, which shows the host first).

func buildVideo(v *View, e *element) { buildMedia(v, e, true) }

func buildAudio(v *View, e *element) { buildMedia(v, e, false) }

func buildMedia(v *View, e *element, video bool) {
	icon := widget.NewIcon(theme.MediaMusicIcon())
	kind := "Audio"
	if video {
		icon.SetResource(theme.MediaVideoIcon())
		kind = "Video"
	}
	title := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Wrapping = fyne.TextWrapWord
	source := widget.NewLabel("")
	source.Truncation = fyne.TextTruncateEllipsis
	source.Importance = widget.LowImportance
	hint := widget.NewLabel("")
	hint.Wrapping = fyne.TextWrapWord
	hint.Importance = widget.LowImportance
	hint.SizeName = theme.SizeNameCaptionText
	open := widget.NewButtonWithIcon("Open in your player…", theme.MediaPlayIcon(), nil)
	poster := newPicture()
	posterBox := container.New(fixedLayout{}, poster.box)
	lead := container.NewStack(container.New(fixedLayout{}, icon))
	texts := container.NewVBox(title, source, hint)
	e.widget = open
	e.obj = widget.NewCard("", "", container.NewBorder(nil, container.NewHBox(open), lead, nil, texts))
	e.refresh = func() {
		raw := e.str("url")
		t := kind
		if d := e.str("description"); d != "" {
			t = d
		}
		title.SetText(t)
		u := safeURL(raw)
		open.OnTapped = func() { v.openURL(raw) }
		switch {
		case u != nil:
			source.SetText(u.Hostname() + u.EscapedPath())
			hint.SetText("aimdesk cannot play " + lower(kind) + " here. Open it in your player: you will see where it comes from first.")
			open.Enable()
		case raw == "":
			source.SetText("(no source)")
			hint.SetText("The agent gave no address to play.")
			open.Disable()
		default:
			source.SetText(raw)
			hint.SetText("aimdesk opens only web (http and https) addresses.")
			open.Disable()
		}
		if p := e.str("posterUrl"); video && p != "" {
			poster.show(v.r.images, p, "", fyne.NewSize(64, 64), imageFill("cover"), false)
			lead.Objects = []fyne.CanvasObject{posterBox}
		} else {
			lead.Objects = []fyne.CanvasObject{container.New(fixedLayout{}, icon)}
		}
		lead.Refresh()
	}
	e.refresh()
}

func lower(s string) string {
	if s == "" {
		return s
	}
	b := []byte(s)
	if b[0] >= 'A' && b[0] <= 'Z' {
		b[0] += 'a' - 'A'
	}
	return string(b)
}
