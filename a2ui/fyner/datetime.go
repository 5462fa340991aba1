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
	label := newInputLabel()
	date := widget.NewDateEntry()
	clock := widget.NewEntry()
	clock.SetPlaceHolder("HH:MM")
	sizer := canvas.NewRectangle(color.Transparent)
	sizer.SetMinSize(fyne.NewSize(76, 0))
	clockBox := container.NewStack(sizer, clock)
	row := container.NewBorder(nil, nil, nil, clockBox, date)
	e.msg = newCheckLabel()
	e.obj = container.New(&prefLayout{width: inputWidth + 40}, inputBox(label, row, e.msg))
	e.widget = date
	zone := ""
	withDate, withTime := true, true
	compose := func() {
		if e.writing {
			return
		}
		problem := ""
		var d, c string
		if withDate && date.Date != nil {
			d = date.Date.Format("2006-01-02")
		}
		if withTime && clock.Text != "" {
			t, ok := parseClock(clock.Text)
			if !ok {
				problem = "Enter a time as HH:MM."
			} else {
				c = t.Format("15:04")
			}
		}
		if problem == "" {
			value := d + c
			if d != "" && c != "" {
				value = d + "T" + c + ":00" + zone
			}
			v.write(e, "value", value)
		}
		e.touched = true
		e.checkMessage(false, problem)
	}
	date.OnChanged = func(*time.Time) { compose() }
	clock.OnChanged = func(string) { compose() }
	e.refresh = func() {
		withDate, withTime = e.flag("enableDate", false), e.flag("enableTime", false)
		if !withDate && !withTime {
			withDate, withTime = true, true
		}
		date.Hidden, clock.Hidden = !withDate, !withTime
		if withDate {
			row.Objects, row.Layout = []fyne.CanvasObject{date, clockBox}, layout.NewBorderLayout(nil, nil, nil, clockBox)
		} else {
			row.Objects, row.Layout = []fyne.CanvasObject{clockBox}, layout.NewStackLayout()
		}
		if withTime && !withDate {
			e.widget = clock
		} else {
			e.widget = date
		}
		setLabel(e, label, e.str("label"))
		raw := e.str("value")
		zone = ""
		if t, ok := parseDateTime(raw); ok {
			if strings.HasSuffix(raw, "Z") {
				zone = "Z"
			} else if i := strings.LastIndexAny(raw, "+-"); i > 10 && strings.Contains(raw, "T") {
				zone = raw[i:]
			}
			e.writing = true
			if withDate && strings.Contains(raw, "-") && (date.Date == nil || !sameDay(*date.Date, t)) {
				d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
				date.SetDate(&d)
			}
			if withTime && strings.Contains(raw, ":") {
				if c := t.Format("15:04"); clock.Text != c {
					clock.SetText(c)
				}
			}
			e.writing = false
		} else if raw == "" && !e.touched {
			e.writing = true
			date.SetDate(nil)
			clock.SetText("")
			e.writing = false
		}
		on := inputEnabled(e)
		setEnabled(date, on)
		setEnabled(clock, on)
		e.checkMessage(false, rangeProblem(e, raw))
		e.redraw(row)
	}
	e.refresh()
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
