package fyner

import (
	"image"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// naturalMax bounds an Image without a variant, shown at its own size.
const naturalMax = 240

// imageSize returns the size an Image variant takes and whether it is
// fixed (icon, avatar, small feature, and no variant: the picture's own
// size, at most naturalMax) or stretches with its container.
func imageSize(variant string) (fyne.Size, bool) {
	switch variant {
	case "":
		return fyne.NewSize(96, 72), true
	case "icon":
		return fyne.NewSize(24, 24), true
	case "avatar":
		return fyne.NewSize(48, 48), true
	case "smallFeature":
		return fyne.NewSize(96, 96), true
	case "largeFeature":
		return fyne.NewSize(160, 240), false
	case "header":
		return fyne.NewSize(160, 180), false
	}
	return fyne.NewSize(120, 160), false // mediumFeature, the default
}

// imageFill maps an Image fit (CSS object-fit) to a Fyne fill mode.
func imageFill(fit string) canvas.ImageFill {
	switch fit {
	case "contain", "scaleDown", "none":
		return canvas.ImageFillContain
	case "cover":
		return canvas.ImageFillCover
	}
	return canvas.ImageFillStretch // "fill", the default
}

// picture is an image with a placeholder while it loads or when it
// cannot be shown.
type picture struct {
	img   *canvas.Image
	icon  *widget.Icon
	label *widget.Label
	ph    *fyne.Container
	box   *fyne.Container
	url   string
	seq   int
	// natural: size the picture by its pixels once loaded.
	natural bool
	// loaded runs after an image arrived (the view's size changed).
	loaded func()
}

func newPicture() *picture {
	p := &picture{img: canvas.NewImageFromImage(nil), icon: widget.NewIcon(theme.MediaPhotoIcon()), label: widget.NewLabel("")}
	p.label.Wrapping = fyne.TextWrapWord
	p.label.Alignment = fyne.TextAlignCenter
	p.label.Importance = widget.LowImportance
	p.label.SizeName = theme.SizeNameCaptionText
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	bg.CornerRadius = theme.InputRadiusSize()
	p.ph = container.NewStack(bg, container.NewCenter(container.NewVBox(p.icon, p.label)))
	p.img.Hide()
	p.box = container.NewStack(p.ph, p.img)
	return p
}

// show loads rawURL (when it changed) through loader; alt describes the
// image on its placeholder.
func (p *picture) show(loader ImageLoader, rawURL, alt string, size fyne.Size, fill canvas.ImageFill, round bool) {
	if !(p.natural && p.img.Image != nil && rawURL == p.url) {
		p.img.SetMinSize(size)
	}
	p.img.FillMode = fill
	p.img.CornerRadius = 0
	if round {
		p.img.CornerRadius = size.Width / 2
	}
	small := size.Height < 64
	p.label.Hidden = small
	if rawURL == p.url {
		p.img.Refresh()
		return
	}
	p.url = rawURL
	p.seq++
	seq := p.seq
	p.placeholder(theme.MediaPhotoIcon(), "Loading image…", alt)
	if rawURL == "" {
		p.placeholder(theme.BrokenImageIcon(), "No image", alt)
		return
	}
	loader.Load(rawURL, func(img image.Image, err error) {
		if seq != p.seq {
			return // the URL changed meanwhile
		}
		if err != nil || img == nil {
			p.placeholder(theme.BrokenImageIcon(), "Image unavailable", alt)
			return
		}
		p.img.Image = img
		if p.natural {
			p.img.SetMinSize(naturalSize(img.Bounds().Size()))
		}
		p.img.Show()
		p.ph.Hide()
		p.img.Refresh()
		if p.loaded != nil {
			p.loaded()
		}
	})
}

func (p *picture) placeholder(icon fyne.Resource, state, alt string) {
	p.img.Hide()
	p.img.Image = nil
	p.icon.SetResource(icon)
	text := state
	if alt != "" {
		text += "\n" + alt
	}
	p.label.SetText(text)
	p.ph.Show()
}

// naturalSize fits a picture's pixel size in naturalMax × naturalMax.
func naturalSize(px image.Point) fyne.Size {
	w, h := float32(px.X), float32(px.Y)
	if w <= 0 || h <= 0 {
		return fyne.NewSize(96, 72)
	}
	if s := fmin(naturalMax/w, naturalMax/h); s < 1 {
		w, h = w*s, h*s
	}
	return fyne.NewSize(w, h)
}

func buildImage(v *View, e *element) {
	p := newPicture()
	p.loaded = v.changed
	e.widget = p.img
	wrap := container.NewStack(p.box)
	fixedBox := container.New(fixedLayout{})
	pref := &prefLayout{}
	prefBox := container.New(pref)
	e.obj = wrap
	e.refresh = func() {
		size, fixed := imageSize(e.enum("variant"))
		p.natural = e.enum("variant") == ""
		p.show(v.r.images, e.str("url"), e.str("description"), size, imageFill(e.enum("fit")), e.enum("variant") == "avatar")
		content := prefBox
		if fixed {
			content = fixedBox
		} else {
			pref.width = 2 * size.Width
		}
		content.Objects = []fyne.CanvasObject{p.box}
		if wrap.Objects[0] != content {
			wrap.Objects[0] = content
			wrap.Refresh()
		}
	}
	e.refresh()
}
