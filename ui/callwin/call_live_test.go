//go:build !nomedia

package callwin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"aimdesk/app"
	"aimdesk/app/aim"
	"aimdesk/app/devagent"
	"aimdesk/app/store"
	"aimdesk/media"
	"aimdesk/media/lktest"
)

// The call window against the real thing: the reference agent with
// LiveKit rooms on a livekit-server on loopback (media/lktest), the core
// and its approvals, and the media engine on miniaudio's null backend
// with a 440 Hz tone as the microphone, sharing an Xvfb screen
// (1920×1080, sent as 1280×720). A missing livekit-server or Xvfb fails
// (run `make setup`), as in the media tests.

var (
	liveXOnce sync.Once
	liveX     *lktest.Xvfb
	liveXErr  error
)

// liveDisplay starts one Xvfb for the package (it dies with the test
// process) and points DISPLAY at it before any media engine scans screens.
func liveDisplay(t testing.TB) {
	t.Helper()
	liveXOnce.Do(func() {
		liveX, liveXErr = lktest.StartXvfbDisplay(context.Background(), 1920, 1080)
		if liveXErr == nil {
			liveXErr = os.Setenv("DISPLAY", liveX.Display)
		}
	})
	if liveXErr != nil {
		t.Fatalf("Xvfb: %v", liveXErr)
	}
}

// sentCall is one realtime request the agent received.
type sentCall struct {
	method string
	typ    aim.InteractionType
	params json.RawMessage // SendInteraction's payload, or the whole params
}

// liveCallHarness is a call window over the core, the reference agent on
// LiveKit and the media engine.
type liveCallHarness struct {
	t         testing.TB
	ctx       context.Context
	q         *postQueue
	core      *app.Core
	agent     app.Agent
	env       *Env
	approvals *liveApprovals
	m         *Manager
	errs      []error

	mu   sync.Mutex
	sent []sentCall
}

func newLiveCallHarness(t testing.TB) *liveCallHarness {
	t.Helper()
	liveDisplay(t)
	lk := lktest.Start(t)
	a := test.NewTempApp(t)
	ctx, cancel := context.WithCancel(context.Background())
	h := &liveCallHarness{t: t, ctx: ctx, q: &postQueue{}}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "aimdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := devagent.Start(ctx, devagent.Config{Addr: "127.0.0.1:0", Handler: devagent.HandlerConfig{
		Hooks:   devagent.Hooks{BeforeMethod: h.record},
		LiveKit: &devagent.LiveKitConfig{URL: lk.URL, APIKey: lk.APIKey, APISecret: lk.APISecret, Video: devagent.VideoEnabled},
	}})
	if err != nil {
		t.Fatal(err)
	}
	core, err := app.New(ctx, app.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	h.core = core
	ag, err := core.AddAgent(ctx, srv.URL(), false)
	if err != nil {
		t.Fatal(err)
	}
	h.agent = ag
	win := a.NewWindow("aimdesk")
	win.Resize(fyne.NewSize(1000, 700))
	h.env = &Env{Ctx: ctx, App: a, Core: core, Do: h.q.Post}
	h.env.ShowError = func(err error) { h.errs = append(h.errs, err) }
	h.approvals = &liveApprovals{}
	h.m = NewManager(h.env, h.approvals)
	h.m.tone = 440
	h.m.newEngine = func() (callEngine, error) {
		e, err := media.New(media.Config{
			AudioBackend: media.BackendNull, DevicePoll: 250 * time.Millisecond,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
		if err != nil {
			return nil, err
		}
		return media.API(e), nil
	}
	t.Cleanup(func() {
		for _, cw := range h.m.open {
			cw.win.Close()
		}
		cancel()
		core.Close()
		_ = srv.Close()
		_ = st.Close()
		h.q.Drain()
	})
	return h
}

// liveApprovals stands in for the main window's approval dialog (package
// ui implements Approvals; its tests show that dialog over a call window):
// it keeps what the call asked it to show.
type liveApprovals struct {
	id, notice string
	win        fyne.Window
	closedOver []fyne.Window
}

func (a *liveApprovals) OpenOver(id string, win fyne.Window, notice string) {
	a.id, a.win, a.notice = id, win, notice
}

func (a *liveApprovals) CloseOver(win fyne.Window) { a.closedOver = append(a.closedOver, win) }

// record is the agent's BeforeMethod hook: it keeps the realtime requests.
func (h *liveCallHarness) record(method string, params json.RawMessage) error {
	if !strings.HasPrefix(method, "aim.realtime.") || method == aim.MethodGetCommand || method == aim.MethodGetSession ||
		method == aim.MethodGetOperation {
		return nil
	}
	c := sentCall{method: method, params: append(json.RawMessage(nil), params...)}
	if method == aim.MethodSendInteraction {
		var p aim.SendInteractionParams
		if err := json.Unmarshal(params, &p); err == nil {
			c.typ, c.params = p.Type, p.Payload
		}
	}
	h.mu.Lock()
	h.sent = append(h.sent, c)
	h.mu.Unlock()
	return nil
}

// sentOf returns the recorded interactions of a type (or requests of a
// method), oldest first.
func (h *liveCallHarness) sentOf(typ aim.InteractionType, method string) []sentCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []sentCall
	for _, c := range h.sent {
		if (typ != "" && c.typ == typ) || (method != "" && c.method == method) {
			out = append(out, c)
		}
	}
	return out
}

func (h *liveCallHarness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	h.q.WaitFor(h.t, 30*time.Second, what, cond, func() string { return fmt.Sprintf("errors shown: %v", h.errs) })
}

// pause runs the UI queue for d.
func (h *liveCallHarness) pause(d time.Duration) { h.q.RunFor(d) }

// open opens the call window and waits for the pre-join screen's devices.
func (h *liveCallHarness) open() *callWindow {
	h.t.Helper()
	cw := h.m.start(h.agent)
	if cw == nil {
		h.t.Fatalf("no call window: %v", h.errs)
	}
	cw.win.Resize(fyne.NewSize(1000, 700))
	p := cw.pre
	h.waitFor("the devices", func() bool {
		return p.engine != nil && len(p.micSel.Options) > 0 && len(p.devices.Screens) > 0
	})
	return cw
}

// join joins from the pre-join screen and waits until the call is up.
func (h *liveCallHarness) join(cw *callWindow) media.Event {
	h.t.Helper()
	test.Tap(cw.pre.joinBtn)
	h.waitFor("the call", func() bool {
		return cw.phase == callInCall && cw.local.Mic.Published && cw.conn.State == media.ConnConnected
	})
	_, c := cw.live.get()
	return c.State()
}

// payload decodes the newest recorded interaction of typ into v.
func (h *liveCallHarness) payload(typ aim.InteractionType, v any) {
	h.t.Helper()
	got := h.sentOf(typ, "")
	if len(got) == 0 {
		h.t.Fatalf("no %s sent", typ)
	}
	if err := json.Unmarshal(got[len(got)-1].params, v); err != nil {
		h.t.Fatal(err)
	}
}

func TestCallLivePrejoin(t *testing.T) {
	h := newLiveCallHarness(t)
	cw := h.open()
	p := cw.pre
	if len(p.devices.Mics) == 0 || len(p.devices.Speakers) == 0 || len(p.spkSel.Options) == 0 {
		t.Fatalf("the null backend's devices are not listed: %+v", p.devices)
	}
	if len(p.devices.Cameras) != 0 || !p.camNote.Visible() || !strings.Contains(p.camNote.Text, "No camera found.") {
		t.Fatalf("missing camera: cameras %v, note %q", p.devices.Cameras, p.camNote.Text)
	}
	if p.shareScreen.Disabled() || !p.shareScreen.Checked {
		t.Fatalf("the Xvfb screen is not offered: %q", p.shareScreen.Text)
	}
	// The null backend captures silence: the meter is fed (≤ 30 Hz) and stays low.
	h.waitFor("the microphone meter", func() bool { return p.micFrames >= 5 })
	if p.meter.Level() > 0.05 {
		t.Fatalf("silence shows as %.2f", p.meter.Level())
	}
}

// TestCallLive walks through a call: the pre-join choices, the in-call
// controls, the agent's screen request, pointing at the shared screen, an
// approval during the call, and the end.
func TestCallLive(t *testing.T) {
	h := newLiveCallHarness(t)
	cw := h.open()
	cw.pre.halfDuplex.SetChecked(false) // so that the agent's voice does not duck the push-to-talk checks
	st := h.join(cw)
	_, call := cw.live.get()
	if st.Local.Mic.Source == "" || st.Duplex.HalfDuplex {
		t.Fatalf("media state after joining: %+v %+v", st.Local.Mic, st.Duplex)
	}
	if got := h.sentOf("", aim.MethodRegisterEndpoint); len(got) != 1 || !strings.Contains(string(got[0].params), `"screen":true`) {
		t.Fatalf("RegisterEndpoint: %+v", got)
	}

	t.Run("agent state and voice", func(t *testing.T) {
		h.waitFor("the agent's greeting", func() bool { return strings.Contains(cw.transcriptText(), "AIM reference agent: Hello!") })
		h.waitFor("the agent's voice in the visualizer", func() bool {
			for _, l := range cw.viz.Levels() {
				if l > 0.05 {
					return true
				}
			}
			return false
		})
		h.waitFor("the agent listening", func() bool { return cw.agentState == string(aim.AgentListening) })
	})

	t.Run("the agent's video", func(t *testing.T) {
		if !devagent.VideoEnabled {
			t.Skip("this build's reference agent has no VP8 encoder (cgo, libvpx)")
		}
		testAgentVideo(t, h, cw, call.(*media.Call))
	})

	t.Run("mute", func(t *testing.T) {
		test.Tap(cw.muteBtn)
		h.waitFor("muted", func() bool { return call.State().Local.Mic.Muted && cw.muteBtn.Text == "Unmute" })
		test.Tap(cw.muteBtn)
		h.waitFor("unmuted", func() bool { return !call.State().Local.Mic.Muted && cw.muteBtn.Text == "Mute" })
	})

	t.Run("push-to-talk", func(t *testing.T) {
		if _, ok := cw.win.Canvas().(desktop.Canvas); ok {
			t.Log("the canvas takes key down/up handlers")
		}
		test.Tap(cw.pttBtn)
		h.waitFor("push-to-talk mode", func() bool {
			m := call.State().Local.Mic
			return m.PushToTalk && !m.Talking && cw.talkBtn.Visible()
		})
		space := &fyne.KeyEvent{Name: fyne.KeySpace}
		cw.win.Canvas().Unfocus()
		cw.keyDown(space)
		h.waitFor("talking while Space is held", func() bool { return call.State().Local.Mic.Talking })
		cw.keyUp(space)
		h.waitFor("silent after Space is released", func() bool { return !call.State().Local.Mic.Talking })
		// In the message box, Space is a space.
		cw.win.Canvas().Focus(cw.entry)
		cw.keyDown(space)
		h.pause(200 * time.Millisecond)
		if call.State().Local.Mic.Talking {
			t.Fatal("Space in the message box opened the microphone")
		}
		cw.keyUp(space)
		cw.win.Canvas().Unfocus()
		test.Tap(cw.pttBtn)
		h.waitFor("push-to-talk off", func() bool { return !call.State().Local.Mic.PushToTalk })
	})

	t.Run("typed text", func(t *testing.T) {
		cw.win.Canvas().Focus(cw.entry)
		test.Type(cw.entry, "hello agent")
		cw.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		// The agent participant is a LiveKit agent session (kind AGENT with
		// lk.agent.state): the text goes over lk.chat, not as input.text.
		h.waitFor("the answer", func() bool {
			return strings.Contains(cw.transcriptText(), "AIM reference agent: You said: hello agent\n")
		})
		h.pause(500 * time.Millisecond) // a second answer would be here by now
		if n := len(h.sentOf(aim.InputText, "")); n != 0 {
			t.Fatalf("typed text also sent as input.text (%d times)", n)
		}
		if n := strings.Count(cw.transcriptText(), "You: hello agent\n"); n != 1 {
			t.Fatalf("the typed line shows %d times:\n%s", n, cw.transcriptText())
		}
		// The answer came both as an AIM transcript event and as
		// lk.transcription streams: shown once, final.
		if n := strings.Count(cw.transcriptText(), "You said: hello agent"); n != 1 {
			t.Fatalf("the answer shows %d times:\n%s", n, cw.transcriptText())
		}
		// The header shows the connection's quality once the server rated it.
		h.waitFor("the connection quality", func() bool { return strings.HasSuffix(cw.connLabel.Text, " connection") })
		t.Logf("header: %q", cw.connLabel.Text)
		cw.win.Canvas().Unfocus()
	})

	t.Run("interrupt", func(t *testing.T) {
		test.Tap(cw.interruptBtn)
		h.waitFor("response.interrupt", func() bool { return len(h.sentOf(aim.ResponseInterrupt, "")) == 1 })
		cw.typedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
		h.waitFor("response.interrupt from Escape", func() bool { return len(h.sentOf(aim.ResponseInterrupt, "")) == 2 })
	})

	t.Run("media request allow once", func(t *testing.T) {
		h.waitFor("the agent's screen request", func() bool { return cw.reqBar.Visible() && cw.request != nil })
		id := cw.request.RequestID
		if !strings.Contains(cw.reqText.Text, "The agent asks to see your screen") {
			t.Fatalf("prompt: %q", cw.reqText.Text)
		}
		h.waitFor("Allow once to arm", func() bool { return !cw.allowOnce.Disabled() })
		test.Tap(cw.allowOnce)
		h.waitFor("media.decide", func() bool { return len(h.sentOf(aim.MediaDecide, "")) == 1 })
		var p aim.MediaDecidePayload
		h.payload(aim.MediaDecide, &p)
		if p.RequestID != id || p.Decision != aim.MediaAllow || p.Scope != aim.ScopeOnce {
			t.Fatalf("media.decide = %+v", p)
		}
		h.waitFor("the screen picker", func() bool { return cw.picker != nil && cw.picker.Visible() && !cw.reqBar.Visible() })
		if txt := visibleText(cw.picker.Content); !strings.Contains(txt, "You have one screen") {
			t.Fatalf("picker says:\n%s", txt)
		}
		test.Tap(cw.pickerShare)
		h.waitFor("sharing", func() bool {
			w, hh := call.ScreenFrameSize()
			return cw.screenOn && w == 1280 && hh == 720
		})
		if !cw.shareBar.Visible() || !cw.pointPanel.Visible() || !strings.Contains(cw.win.Title(), "Sharing your screen") {
			t.Fatalf("sharing indicator: bar %v, title %q", cw.shareBar.Visible(), cw.win.Title())
		}
		var prep aim.MediaPreparePayload
		h.payload(aim.MediaPrepare, &prep)
		if prep.Source != aim.SourceScreen || prep.TrackName != "screen" || len(h.sentOf(aim.MediaRequestType, "")) != 0 {
			t.Fatalf("media.prepare = %+v; media.request sent %d times", prep, len(h.sentOf(aim.MediaRequestType, "")))
		}
		h.waitFor("the agent seeing the screen", func() bool {
			return strings.Contains(cw.transcriptText(), "I see your screen, 1280×720")
		})
	})

	t.Run("point at the shared screen", func(t *testing.T) {
		// the pointing area shows a live thumbnail of what is sent
		h.waitFor("the screen thumbnail in the pointing area", func() bool {
			img := cw.preview.lastFrame
			return img != nil && cw.preview.img.Image == img && !cw.preview.area.Visible()
		})
		if b := cw.preview.lastFrame.Bounds(); b.Dx() != media.ScreenPreviewWidth || b.Dx()*720 != b.Dy()*1280 {
			t.Fatalf("thumbnail %v, want %d wide with the frame's 16:9 shape", b, media.ScreenPreviewWidth)
		}
		cw.noteEntry.SetText("this button")
		cw.preview.Resize(fyne.NewSize(320, 180)) // scale 1/4 of the 1280×720 frame, no letterbox
		cw.preview.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(40, 20)}, Button: desktop.MouseButtonPrimary})
		cw.preview.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(120, 60)}, Dragged: fyne.NewDelta(80, 40)})
		cw.preview.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(200, 110)}, Dragged: fyne.NewDelta(80, 50)})
		cw.preview.DragEnd()
		h.waitFor("visual.select", func() bool { return len(h.sentOf(aim.VisualSelect, "")) == 1 })
		var p aim.SelectPayload
		h.payload(aim.VisualSelect, &p)
		want := aim.SelectPayload{Source: aim.SourceScreen, X: 160, Y: 80, Width: 640, Height: 360, Note: "this button"}
		if p != want {
			t.Fatalf("visual.select = %+v, want %+v", p, want)
		}
		h.waitFor("the agent's answer", func() bool {
			return strings.Contains(cw.transcriptText(), "You pointed at a 640×360 region at (160, 80) of your screen. You wrote: this button")
		})
	})

	t.Run("minimised", func(t *testing.T) {
		testMinimised(t, h, cw, call.(*media.Call))
	})

	t.Run("stop sharing", func(t *testing.T) {
		test.Tap(cw.shareBtn)
		h.waitFor("stopped", func() bool { return !cw.screenOn && len(h.sentOf(aim.MediaStop, "")) == 1 })
		if w, _ := call.ScreenFrameSize(); w != 0 || cw.shareBar.Visible() || strings.Contains(cw.win.Title(), "Sharing") {
			t.Fatalf("still shown as sharing: frame width %d, bar %v, title %q", w, cw.shareBar.Visible(), cw.win.Title())
		}
		// The "once" permission is used up: sharing again offers the screen (media.request).
		if allowedRequest(&cw.session, aim.SourceScreen, cw.usedOnce) {
			t.Fatal("the once permission still counts")
		}
	})

	t.Run("approval during the call", func(t *testing.T) {
		cw.win.Canvas().Focus(cw.entry)
		test.Type(cw.entry, "note this call")
		cw.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		h.waitFor("the approval dialog over the call", func() bool { return h.approvals.win == cw.win })
		id := h.approvals.id
		ap, err := h.core.Approval(id)
		if err != nil || ap.State != app.ApprovalPending || !strings.Contains(ap.Requirement.Title+ap.Requirement.Summary, "note") {
			t.Fatalf("approval %s: %+v, %v", id, ap, err)
		}
		if !strings.Contains(h.approvals.notice, "From your live call with AIM reference agent") {
			t.Fatalf("the dialog does not say it comes from the call: %q", h.approvals.notice)
		}
		if !cw.opBar.Visible() {
			t.Fatal("the call does not show that an approval waits")
		}
		// The main window's dialog (package ui, TestApprovalsOverCallWindow)
		// sends this on Approve.
		if err := h.core.Decide(h.ctx, id, aim.DecisionApprove, ""); err != nil {
			t.Fatal(err)
		}
		h.waitFor("the operation to succeed", func() bool {
			ap, err := h.core.Approval(id)
			return err == nil && ap.State == app.ApprovalApproved && ap.Outcome == "operation succeeded"
		})
		var p aim.ConfirmPayload
		h.payload(aim.OperationConfirm, &p)
		if p.OperationID == "" || !strings.Contains(id, p.OperationID) || p.ActionDigest != ap.Requirement.ActionDigest {
			t.Fatalf("operation.confirm = %+v for approval %s", p, id)
		}
		h.waitFor("the call to say so", func() bool {
			return strings.Contains(cw.transcriptText(), "succeeded.") && !cw.opBar.Visible()
		})
	})

	t.Run("end call", func(t *testing.T) {
		test.Tap(cw.endBtn)
		h.waitFor("the window to close", func() bool { return h.m.open[h.agent.ID] == nil && cw.phase == callEnded })
		got := h.sentOf("", aim.MethodEndSession)
		if len(got) != 1 || !strings.Contains(string(got[0].params), `"reason":"ended by the user"`) {
			t.Fatalf("EndSession: %+v", got)
		}
		if call.State().Conn.State != media.ConnDisconnected {
			t.Fatalf("the media call is %s after the end", call.State().Conn.State)
		}
	})
}

// TestCallScreenshot is the smoke test's helper: it shows the call window
// in a live call (sharing the Xvfb screen, the agent answering) and saves
// it as a PNG at $AIMDESK_CALL_SCREENSHOT (relative paths are from the
// module root), e.g.
//
//	AIMDESK_CALL_SCREENSHOT=build/screenshots/call.png go test ./ui/callwin -run '^TestCallScreenshot$' -count=1
//
// Without the variable it does nothing.
func TestCallScreenshot(t *testing.T) {
	out := os.Getenv("AIMDESK_CALL_SCREENSHOT")
	if out == "" {
		t.Skip("set AIMDESK_CALL_SCREENSHOT=build/screenshots/call.png to save a screenshot of a live call")
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join("..", "..", out)
	}
	h := newLiveCallHarness(t)
	h.env.App.Settings().SetTheme(theme.DefaultTheme())
	cw := h.open()
	h.join(cw)
	h.waitFor("the agent's screen request", func() bool { return cw.reqBar.Visible() })
	h.waitFor("Allow for this call to arm", func() bool { return !cw.allowSession.Disabled() })
	test.Tap(cw.allowSession)
	h.waitFor("the screen picker", func() bool { return cw.picker != nil && cw.picker.Visible() })
	test.Tap(cw.pickerShare)
	h.waitFor("sharing", func() bool { return cw.screenOn })
	h.waitFor("the agent seeing the screen", func() bool { return strings.Contains(cw.transcriptText(), "I see your screen") })
	test.Type(cw.entry, "What do you see on my screen?")
	cw.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor("the agent speaking", func() bool {
		return cw.agentState == string(aim.AgentSpeaking) && strings.Contains(cw.transcriptText(), "You said:")
	})
	h.pause(400 * time.Millisecond) // let the visualizer fill
	cw.win.Canvas().Unfocus()
	img := cw.win.Canvas().Capture()
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("saved %s (%dx%d)", out, img.Bounds().Dx(), img.Bounds().Dy())
}

// testMinimised: while the window is minimised (what ui/winstate reports
// when a window manager iconifies it; TestCallWindowMinimise has a real
// window manager do it) the agent's video track is disabled at the SFU
// (nothing arrives, nothing is decoded or drawn) and the screen-share
// thumbnail stops; both come back when the window is restored.
func testMinimised(t *testing.T, h *liveCallHarness, cw *callWindow, call *media.Call) {
	v := &cw.video
	sid := v.sid
	video := devagent.VideoEnabled
	if video {
		h.waitFor("the agent's video shown", func() bool { return sid != "" && call.RemoteVideoStats()[sid].Enabled })
	}
	h.waitFor("the screen thumbnail", func() bool { return cw.screenOn && cw.preview.lastFrame != nil })

	cw.setWindowShown(false)
	if cw.previewStop != nil || v.area.Visible() != !v.hidden {
		t.Fatalf("minimised: thumbnail loop %v, video area shown %v", cw.previewStop != nil, v.area.Visible())
	}
	if video {
		h.waitFor("the track disabled", func() bool { return !call.RemoteVideoStats()[sid].Enabled })
	}
	h.pause(time.Second) // what was in flight arrives
	st0, shown0, thumb0 := call.RemoteVideoStats()[sid], v.frames, cw.preview.lastFrame
	h.pause(2 * time.Second)
	st1, thumb1 := call.RemoteVideoStats()[sid], cw.preview.lastFrame
	t.Logf("minimised for 2 s: %d packets, %d frames of the agent's video arrived, %d shown; thumbnail changed %v",
		st1.Packets-st0.Packets, st1.Frames-st0.Frames, v.frames-shown0, thumb1 != thumb0)
	if st1.Frames != st0.Frames || st1.Packets-st0.Packets > 5 || v.frames != shown0 || thumb1 != thumb0 {
		t.Fatal("video or thumbnails go on while minimised")
	}

	cw.setWindowShown(true)
	h.waitFor("the thumbnail again once restored", func() bool { return cw.preview.lastFrame != thumb0 })
	if video {
		h.waitFor("the agent's video again once restored", func() bool {
			st := call.RemoteVideoStats()[sid]
			return st.Enabled && st.Frames >= st1.Frames+5 && v.frames >= shown0+5
		})
	}
}

// testAgentVideo: the reference agent's synthetic video reaches the call
// window's image (its pixels change over time), the area asks the SFU for
// the size it is shown at, and hiding it disables the track at the SFU
// (no more packets arrive) until it is shown again.
func testAgentVideo(t *testing.T, h *liveCallHarness, cw *callWindow, call *media.Call) {
	v := &cw.video
	h.waitFor("the agent's video area", func() bool { return v.panel.Visible() && v.sid != "" })
	h.waitFor("5 frames of the agent's video", func() bool { return v.frames >= 5 })
	first, ok := v.img.Image.(*image.YCbCr)
	if !ok || first.Rect.Dx() != devagent.AgentVideoWidth || first.Rect.Dy() != devagent.AgentVideoHeight {
		t.Fatalf("the image is %T %v", v.img.Image, v.img.Image.Bounds())
	}
	n0 := v.frames
	h.waitFor("5 more frames", func() bool { return v.frames >= n0+5 })
	later := v.img.Image.(*image.YCbCr)
	if later == first || bytes.Equal(later.Y, first.Y) {
		t.Fatal("the agent's video does not change")
	}
	sid := v.sid
	h.waitFor("the size shown sent to the SFU", func() bool {
		st := call.RemoteVideoStats()[sid]
		return st.Enabled && st.Width >= int(callVideoMin.Width) && st.Height >= int(callVideoMin.Height)
	})

	test.Tap(v.hideBtn)
	if v.area.Visible() || v.hideBtn.Text != "Show video" {
		t.Fatal("Hide video did not hide the area")
	}
	h.waitFor("the track disabled", func() bool { return !call.RemoteVideoStats()[sid].Enabled })
	h.pause(time.Second) // what was in flight arrives
	st0, shown0 := call.RemoteVideoStats()[sid], v.frames
	h.pause(2 * time.Second)
	st1 := call.RemoteVideoStats()[sid]
	t.Logf("hidden for 2 s: %d packets, %d frames arrived; %d shown", st1.Packets-st0.Packets, st1.Frames-st0.Frames, v.frames-shown0)
	if st1.Frames != st0.Frames || st1.Packets-st0.Packets > 5 || v.frames != shown0 {
		t.Fatalf("video still arrives while hidden: %d packets, %d frames", st1.Packets-st0.Packets, st1.Frames-st0.Frames)
	}

	test.Tap(v.hideBtn)
	h.waitFor("frames again once shown", func() bool { return v.frames >= shown0+5 && call.RemoteVideoStats()[sid].Enabled })
}
