//go:build !nomedia

package media

import (
	"context"
	"image"

	"aimdesk/media/video"
)

// ScreenThumbnail returns the latest screen frame sent, scaled down to at
// most maxW pixels wide (0 = the frame's size), as a new image the caller
// may keep; nil when not sharing or before the first frame. The thumbnail
// has the frame's aspect ratio, so positions on it map to frame pixels
// (ScreenFrameSize) by one scale factor.
func (c *Call) ScreenThumbnail(maxW int) image.Image {
	src := c.screenSrc.Load()
	if src == nil {
		return nil
	}
	img, _ := src.Thumbnail(maxW)
	return img
}

// ScreenPreview calls fn with a ScreenPreviewWidth-wide thumbnail of each
// new screen frame sent, at most every ScreenPreviewInterval, until ctx
// ends or the call is left. It only reads frames the encoder already gets:
// no extra capture.
func (c *Call) ScreenPreview(ctx context.Context, fn func(image.Image)) error {
	var seen uint64
	var cur *video.Source
	return c.everyTick(ctx, ScreenPreviewInterval, func() {
		src := c.screenSrc.Load()
		if src == nil {
			return
		}
		if src != cur { // a new share
			cur, seen = src, 0
		}
		if src.Frames() == seen {
			return // no new frame: a still screen costs no scaling
		}
		img, n := src.Thumbnail(ScreenPreviewWidth)
		if img == nil || n == seen {
			return
		}
		seen = n
		fn(img)
	})
}
