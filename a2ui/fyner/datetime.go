package fyner

import (
	"image/color"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"
)

// parseDateTime reads an ISO 8601 date, time or date-time.
func parseDateTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range [...]string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02", "15:04:05", "15:04"} {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// parseClock reads "15:04" or "15:04:05".
func parseClock(s string) (time.Time, bool) {
	for _, l := range []string{"15:04", "15:04:05"} {
		if t, err := time.Parse(l, strings.TrimSpace(s)); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// buildDateTime draws a DateTimeInput: a DateEntry for the date and an
// entry checked as HH:MM for the time, as enableDate and enableTime ask
// (both when neither is set). The value written back is ISO 8601: a date
// (2006-01-02), a time (15:04) or a date-time (2006-01-02T15:04:05 with
// the zone of the value it replaces).
func buildDateTime(v *View, e *element) {
	in := &dateTimeInput{v: v, e: e, label: newInputLabel(), date: widget.NewDateEntry(), clock: widget.NewEntry(), withDate: true, withTime: true}
	in.clock.SetPlaceHolder("HH:MM")
	sizer := canvas.NewRectangle(color.Transparent)
	sizer.SetMinSize(fyne.NewSize(76, 0))
	in.clockBox = container.NewStack(sizer, in.clock)
	in.row = container.NewBorder(nil, nil, nil, in.clockBox, in.date)
	e.msg = newCheckLabel()
	e.obj = container.New(&prefLayout{width: inputWidth + 40}, inputBox(in.label, in.row, e.msg))
	e.widget = in.date
	in.date.OnChanged = func(*time.Time) { in.compose() }
	in.clock.OnChanged = func(string) { in.compose() }
	e.refresh = in.refresh
	e.refresh()
}

// dateTimeInput is a DateTimeInput: a date entry and an HH:MM entry, either
// of which enableDate and enableTime may hide.
type dateTimeInput struct {
	v                  *View
	e                  *element
	label              *widget.Label
	date               *widget.DateEntry
	clock              *widget.Entry
	clockBox, row      *fyne.Container
	zone               string // the UTC offset of the value shown, kept when writing
	withDate, withTime bool
}

// compose writes the value the entries make, or says why they make none.
func (in *dateTimeInput) compose() {
	e := in.e
	if e.writing {
		return
	}
	problem := ""
	var d, c string
	if in.withDate && in.date.Date != nil {
		d = in.date.Date.Format("2006-01-02")
	}
	if in.withTime && in.clock.Text != "" {
		t, ok := parseClock(in.clock.Text)
		if !ok {
			problem = "Enter a time as HH:MM."
		} else {
			c = t.Format("15:04")
		}
	}
	if problem == "" {
		value := d + c
		if d != "" && c != "" {
			value = d + "T" + c + ":00" + in.zone
		}
		in.v.write(e, "value", value)
	}
	e.touched = true
	e.checkMessage(false, problem)
}

func (in *dateTimeInput) refresh() {
	e := in.e
	in.withDate, in.withTime = e.flag("enableDate", false), e.flag("enableTime", false)
	if !in.withDate && !in.withTime {
		in.withDate, in.withTime = true, true
	}
	in.arrange()
	setLabel(e, in.label, e.str("label"))
	raw := e.str("value")
	in.zone = ""
	if t, ok := parseDateTime(raw); ok {
		in.show(raw, t)
	} else if raw == "" && !e.touched {
		e.writing = true
		in.date.SetDate(nil)
		in.clock.SetText("")
		e.writing = false
	}
	on := inputEnabled(e)
	setEnabled(in.date, on)
	setEnabled(in.clock, on)
	e.checkMessage(false, rangeProblem(e, raw))
	e.redraw(in.row)
}

// arrange shows the entries enableDate and enableTime ask for.
func (in *dateTimeInput) arrange() {
	in.date.Hidden, in.clock.Hidden = !in.withDate, !in.withTime
	if in.withDate {
		in.row.Objects, in.row.Layout = []fyne.CanvasObject{in.date, in.clockBox}, layout.NewBorderLayout(nil, nil, nil, in.clockBox)
	} else {
		in.row.Objects, in.row.Layout = []fyne.CanvasObject{in.clockBox}, layout.NewStackLayout()
	}
	if in.withTime && !in.withDate {
		in.e.widget = in.clock
	} else {
		in.e.widget = in.date
	}
}

// show puts the value raw (t parsed) into the entries, keeping its UTC
// offset for the next write.
func (in *dateTimeInput) show(raw string, t time.Time) {
	if strings.HasSuffix(raw, "Z") {
		in.zone = "Z"
	} else if i := strings.LastIndexAny(raw, "+-"); i > 10 && strings.Contains(raw, "T") {
		in.zone = raw[i:]
	}
	in.e.writing = true
	if in.withDate && strings.Contains(raw, "-") && (in.date.Date == nil || !sameDay(*in.date.Date, t)) {
		d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		in.date.SetDate(&d)
	}
	if in.withTime && strings.Contains(raw, ":") {
		if c := t.Format("15:04"); in.clock.Text != c {
			in.clock.SetText(c)
		}
	}
	in.e.writing = false
}

func sameDay(a, b time.Time) bool {
	return a.Year() == b.Year() && a.Month() == b.Month() && a.Day() == b.Day()
}

// rangeProblem checks a value against the node's min and max.
func rangeProblem(e *element, raw string) string {
	t, ok := parseDateTime(raw)
	if !ok {
		return ""
	}
	if min, ok := parseDateTime(e.str("min")); ok && t.Before(min) {
		return "Choose " + e.str("min") + " or later."
	}
	if max, ok := parseDateTime(e.str("max")); ok && t.After(max) {
		return "Choose " + e.str("max") + " or earlier."
	}
	return ""
}
