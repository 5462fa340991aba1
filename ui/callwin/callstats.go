package callwin

// The call window's statistics panel: how the agent's voice arrives
// (jitter, loss, the jitter buffer's delay, concealment) and how ours
// leaves (round trip, uplink loss, the congestion-control estimate and
// the video target), from mediaapi.Event.Stats about once a
// second. Hidden until the user asks for it.

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/media/mediaapi"
	"aimdesk/ui/uikit"
)

// statsFigures are the panel's rows, in order.
var statsFigures = []string{"Jitter", "Packet loss", "Round trip", "Uplink loss", "Playout delay", "Underruns", "Concealed", "FEC recovered", "Late packets", "Longest gap", "Uplink estimate", "Video target"}

const (
	statsShowText = "Statistics"
	statsHideText = "Hide statistics"
)

func (cw *callWindow) buildStats() {
	cw.statsValues = map[string]*widget.Label{}
	grid := container.New(layout.NewGridLayoutWithColumns(4))
	for _, name := range statsFigures {
		v := widget.NewLabel("—")
		cw.statsValues[name] = v
		k := widget.NewLabel(name)
		k.Importance = widget.LowImportance
		grid.Add(k)
		grid.Add(v)
	}
	cw.statsPanel = container.NewVBox(uikit.Heading("Call statistics"), grid)
	cw.setShown(cw.statsPanel, false)
	cw.statsBtn = widget.NewButtonWithIcon(statsShowText, theme.InfoIcon(), cw.toggleStats)
	cw.statsBtn.Importance = widget.LowImportance
}

func (cw *callWindow) toggleStats() {
	on := !cw.statsPanel.Visible()
	cw.setShown(cw.statsPanel, on)
	if on {
		cw.statsBtn.SetText(statsHideText)
	} else {
		cw.statsBtn.SetText(statsShowText)
	}
}

// showStats writes s into the panel (also while it is hidden, so it is
// current when shown).
func (cw *callWindow) showStats(s mediaapi.CallStats) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%d ms", d.Round(time.Millisecond).Milliseconds()) }
	set := func(name, v string) {
		if l := cw.statsValues[name]; l != nil && l.Text != v {
			l.SetText(v)
		}
	}
	set("Jitter", ms(s.Jitter))
	set("Packet loss", fmt.Sprintf("%.1f %%", s.LossPercent))
	if s.RTT > 0 {
		set("Round trip", ms(s.RTT))
		set("Uplink loss", fmt.Sprintf("%.1f %%", s.UplinkLossPercent))
	} else {
		set("Round trip", "—")
		set("Uplink loss", "—")
	}
	set("Playout delay", fmt.Sprintf("%s (target %s)", ms(s.Delay), ms(s.TargetDelay)))
	set("Underruns", fmt.Sprint(s.Underruns))
	set("Concealed", fmt.Sprintf("%d (%.1f %%)", s.Concealed, s.ConcealedPercent))
	set("FEC recovered", fmt.Sprint(s.FECRecovered))
	set("Late packets", fmt.Sprint(s.Late))
	set("Longest gap", ms(s.MaxGap))
	// congestion control: no estimate before the SFU's first feedback (it
	// only comes while video is sent), no target without video
	kbps := func(bps int) string {
		if bps <= 0 {
			return "—"
		}
		return fmt.Sprintf("%d kbit/s", (bps+500)/1000)
	}
	set("Uplink estimate", kbps(s.UplinkEstimate))
	set("Video target", kbps(s.VideoTargetBitRate))
}

// statsText is the panel as "Name: value" lines (tests).
func (cw *callWindow) statsText() string {
	t := ""
	for _, name := range statsFigures {
		t += name + ": " + cw.statsValues[name].Text + "\n"
	}
	return t
}
