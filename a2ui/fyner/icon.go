package fyner

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// IconNames returns the 59 icon names of the basic catalog (v0.9, v1.0;
// v0.8 has 48 of them), each drawn with a Fyne theme icon or a drawn
// fallback.
func IconNames() []string {
	return []string{
		"accountCircle", "add", "arrowBack", "arrowForward", "attachFile", "calendarToday", "call", "camera", "check",
		"close", "delete", "download", "edit", "event", "error", "fastForward", "favorite", "favoriteOff", "folder",
		"help", "home", "info", "locationOn", "lock", "lockOpen", "mail", "menu", "moreVert", "moreHoriz",
		"notificationsOff", "notifications", "pause", "payment", "person", "phone", "photo", "play", "print", "refresh",
		"rewind", "search", "send", "settings", "share", "shoppingCart", "skipNext", "skipPrevious", "star", "starHalf",
		"starOff", "stop", "upload", "visibility", "visibilityOff", "volumeDown", "volumeMute", "volumeOff", "volumeUp",
		"warning",
	}
}

// themeIcon maps a basic-catalog icon name to the Fyne theme icon that
// shows the same thing (nil when the theme has none).
func themeIcon(name string) fyne.Resource {
	if icon, ok := themeIcons[name]; ok {
		return icon()
	}
	return nil
}

// themeIcons maps basic-catalog icon names to the Fyne theme icons that
// show the same thing.
var themeIcons = map[string]func() fyne.Resource{
	"accountCircle": theme.AccountIcon,
	"add":           theme.ContentAddIcon,
	"arrowBack":     theme.NavigateBackIcon,
	"arrowForward":  theme.NavigateNextIcon,
	"attachFile":    theme.MailAttachmentIcon,
	"calendarToday": theme.CalendarIcon,
	"event":         theme.CalendarIcon,
	"check":         theme.ConfirmIcon,
	"close":         theme.CancelIcon,
	"delete":        theme.DeleteIcon,
	"download":      theme.DownloadIcon,
	"edit":          theme.DocumentCreateIcon,
	"error":         theme.ErrorIcon,
	"fastForward":   theme.MediaFastForwardIcon,
	"folder":        theme.FolderIcon,
	"help":          theme.HelpIcon,
	"home":          theme.HomeIcon,
	"info":          theme.InfoIcon,
	"menu":          theme.MenuIcon,
	"moreVert":      theme.MoreVerticalIcon,
	"moreHoriz":     theme.MoreHorizontalIcon,
	"pause":         theme.MediaPauseIcon,
	"photo":         theme.MediaPhotoIcon,
	"play":          theme.MediaPlayIcon,
	"print":         theme.DocumentPrintIcon,
	"refresh":       theme.ViewRefreshIcon,
	"rewind":        theme.MediaFastRewindIcon,
	"search":        theme.SearchIcon,
	"send":          theme.MailSendIcon,
	"settings":      theme.SettingsIcon,
	"skipNext":      theme.MediaSkipNextIcon,
	"skipPrevious":  theme.MediaSkipPreviousIcon,
	"stop":          theme.MediaStopIcon,
	"upload":        theme.UploadIcon,
	"visibility":    theme.VisibilityIcon,
	"visibilityOff": theme.VisibilityOffIcon,
	"volumeDown":    theme.VolumeDownIcon,
	"volumeMute":    theme.VolumeMuteIcon,
	"volumeUp":      theme.VolumeUpIcon,
	"warning":       theme.WarningIcon,
}

// camelName turns snake_case or kebab-case names ("arrow_back") into the
// catalog's camelCase.
func camelName(name string) string {
	if !strings.ContainsAny(name, "_-") {
		return name
	}
	var b strings.Builder
	up := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-':
			up = b.Len() > 0
		case up:
			b.WriteRune(unicode.ToUpper(r))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// icon returns the resource of an icon name; ok is false for names the
// catalog does not have (a question mark is shown).
func (r *Renderer) icon(name string) (res fyne.Resource, ok bool) {
	name = camelName(strings.TrimSpace(name))
	if res := themeIcon(name); res != nil {
		return res, true
	}
	if svg := drawnSVG(name); svg != "" {
		return r.svgResource("a2ui-icon-"+name+".svg", svg), true
	}
	return theme.QuestionIcon(), false
}

// svgPathIcon returns a themed icon from an SVG path (a 24×24 view box),
// or nil when the path has characters path data cannot have (no markup
// can be injected).
func (r *Renderer) svgPathIcon(d string) fyne.Resource {
	d = strings.TrimSpace(d)
	if d == "" || len(d) > 20000 || strings.IndexFunc(d, func(c rune) bool {
		return !strings.ContainsRune("MmZzLlHhVvCcSsQqTtAaEe0123456789.,+- \t\r\n", c)
	}) >= 0 {
		return nil
	}
	sum := sha256.Sum256([]byte(d))
	name := "a2ui-svgpath-" + hex.EncodeToString(sum[:8]) + ".svg"
	return r.svgResource(name, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="`+d+`" /></svg>`)
}

// svgResource returns a theme-coloured SVG resource, cached by name.
func (r *Renderer) svgResource(name, svg string) fyne.Resource {
	if r.icons == nil {
		r.icons = map[string]fyne.Resource{}
	}
	if res, ok := r.icons[name]; ok {
		return res
	}
	res := theme.NewThemedResource(fyne.NewStaticResource(name, []byte(svg)))
	r.icons[name] = res
	return res
}

// iconOf resolves an Icon node's name property (a name, {"svgPath"} or a
// binding to either).
func iconOf(v *View, e *element) (fyne.Resource, string) {
	val, _ := e.n.Value("name")
	switch x := val.(type) {
	case string:
		res, ok := v.r.icon(x)
		if !ok {
			v.r.logf("a2ui/fyner: surface %s: unknown icon %q in %s", e.n.Surface().ID(), x, e.n.Key())
		}
		return res, x
	case map[string]any:
		if p, ok := x["svgPath"]; ok {
			pv, _ := e.n.Eval(p)
			if s, ok := pv.(string); ok {
				if res := v.r.svgPathIcon(s); res != nil {
					return res, "custom icon"
				}
			}
		}
	}
	return theme.QuestionIcon(), ""
}

func buildIcon(v *View, e *element) {
	ic := widget.NewIcon(nil)
	e.widget = ic
	e.obj = container.New(fixedLayout{}, ic)
	e.refresh = func() {
		res, _ := iconOf(v, e)
		if ic.Resource != res {
			ic.Resource = res
			e.redraw(ic)
		}
	}
	e.refresh()
}
