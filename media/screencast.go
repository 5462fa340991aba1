//go:build !nomedia

package media

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"strconv"
	"sync"
	"time"

	"aimdesk/media/screen"
	"aimdesk/media/screen/portal"
	"aimdesk/media/screen/pwstream"
	"aimdesk/media/video"
)

// portalDeviceID is the one screen "device" listed with the portal: the
// desktop's picker chooses what is shared.
const portalDeviceID = "portal"

// screenCapture is how this engine captures screens.
func (e *Engine) screenCapture() ScreenCapture {
	return e.cfg.ScreenCapture.Resolve(os.Getenv)
}

// ScreenCapture says how screens are captured in this session and its
// name for the share picker, without the portal check Capabilities does
// (cheap: for the UI thread).
func (e *Engine) ScreenCapture() (c ScreenCapture, label string) {
	c = e.screenCapture()
	return c, screenLabel(c)
}

// portalCheck says whether the ScreenCast portal answers ("" when it
// does, else the reason for Capabilities).
func (e *Engine) portalCheck() string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	p, err := portal.Connect(ctx, e.cfg.PortalBus)
	if err != nil {
		return fmt.Sprintf("No screen to share: the desktop's screen-cast portal does not answer (%v).", err)
	}
	_ = p.Close()
	return ""
}

// ResetScreenChoice forgets the screen or window chosen in the desktop's
// picker (the portal's restore token): the next share asks again. It does
// nothing with X11 capture, which has no such choice.
func (e *Engine) ResetScreenChoice() error {
	if err := tokenFile(e.cfg).Reset(); err != nil {
		return fmt.Errorf("media: reset screen choice: %w", err)
	}
	return nil
}

// portalReader is the portal's PipeWire stream with the session and bus
// connection it lives in; closing it ends all three.
type portalReader struct {
	*pwstream.Stream
	sess  *portal.Session
	p     *portal.Portal
	onEnd func(error) // once, when the stream ends by itself (nil: nobody listens)
	once  sync.Once
}

// Read is the stream's Read that reports the stream's own end (the user
// stopped sharing in the desktop, the source went away) to onEnd.
func (r *portalReader) Read() (image.Image, func(), error) {
	img, release, err := r.Stream.Read()
	if errors.Is(err, pwstream.ErrEnded) && r.onEnd != nil {
		r.once.Do(func() { go r.onEnd(err) })
	}
	return img, release, err
}

func (r *portalReader) Close() error {
	return errors.Join(r.Stream.Close(), r.sess.Close(), r.p.Close())
}

// openPortalScreen asks the desktop's ScreenCast portal for a screen or
// window (its picker, unless the kept restore token is accepted), keeps
// the new restore token and opens the PipeWire stream. It blocks while the
// picker is open; ctx bounds it.
//
// onEnd, if not nil, is called (on a goroutine of its own) when the stream
// ends by itself.
func (e *Engine) openPortalScreen(ctx context.Context, o ScreenOptions, onEnd func(error)) (_ *video.Source, err error) {
	tf := tokenFile(e.cfg)
	tok, terr := tf.Load()
	if terr != nil {
		e.log.Warn("screen share: restore token not read; the picker will ask", "err", terr)
	}
	p, err := portal.Connect(ctx, e.cfg.PortalBus)
	if err != nil {
		return nil, fmt.Errorf("media: start screen: %w: %v", ErrNoScreen, err)
	}
	sess, err := p.Start(ctx, portal.Options{RestoreToken: tok, Cursor: true})
	if err != nil {
		_ = p.Close()
		if errors.Is(err, portal.ErrCancelled) {
			return nil, fmt.Errorf("media: start screen: %w", ErrScreenCancelled)
		}
		return nil, fmt.Errorf("media: start screen: %w: %v", ErrNoScreen, err)
	}
	defer func() {
		if err != nil {
			_ = sess.Close()
			_ = p.Close()
		}
	}()
	if sess.RestoreToken != tok {
		if serr := tf.Save(sess.RestoreToken); serr != nil {
			e.log.Warn("screen share: restore token not kept; the picker will ask next time", "err", serr)
		}
	}
	fd, err := sess.OpenPipeWireRemote(ctx)
	if err != nil {
		return nil, fmt.Errorf("media: start screen: %w", err)
	}
	node := sess.Streams[0].NodeID
	st, err := pwstream.Open(ctx, fd, node)
	if err != nil {
		return nil, fmt.Errorf("media: start screen: %w", err)
	}
	e.log.Info("screen share: portal stream", "node", node, "size", fmt.Sprint(sess.Streams[0].Width, "x", sess.Streams[0].Height), "restored", tok != "" && tok == sess.RestoreToken)
	rd := &portalReader{Stream: st, sess: sess, p: p, onEnd: onEnd}
	return video.NewScreenSource(portalDeviceID+":"+strconv.FormatUint(uint64(node), 10), rd,
		video.SourceOptions{MaxWidth: o.MaxWidth, MaxHeight: o.MaxHeight, FPS: o.FPS}), nil
}

// screenLabel is the share picker's name of the capture in use.
func screenLabel(c ScreenCapture) string { return screen.Capture(c).Label() }

// portalShareEnded stops the screen share whose source is src when its
// portal stream ended by itself, and says so in an Event.
func (c *Call) portalShareEnded(src *video.Source, cause error) {
	c.post(func() {
		if c.screen == nil || c.screenSrc.Load() != src {
			return // already stopped, or another share since
		}
		_ = c.stopVideo(&c.screen)
		c.n.send(Event{Err: fmt.Errorf("media: screen share ended by the desktop: %w", cause)})
	})
}
