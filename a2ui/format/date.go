package format

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	"2006-01-02",
	"2006-01",
	"15:04:05",
	"15:04",
	time.RFC1123Z,
	time.RFC1123,
}

// ParseDate reads an ISO 8601 string (with or without zone; zone-less
// values are taken in loc), or a number of milliseconds since the Unix
// epoch (as JavaScript's Date does).
func ParseDate(v any, loc *time.Location) (time.Time, error) {
	if loc == nil {
		loc = time.UTC
	}
	switch x := v.(type) {
	case time.Time:
		return x, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 8.64e15 {
			return time.Time{}, ErrBadDate
		}
		return time.UnixMilli(int64(x)).In(loc), nil
	case int:
		return time.UnixMilli(int64(x)).In(loc), nil
	case int64:
		return time.UnixMilli(x).In(loc), nil
	case string:
		s := strings.TrimSpace(x)
		for _, layout := range dateLayouts {
			if t, err := time.ParseInLocation(layout, s, loc); err == nil {
				return t, nil
			}
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return ParseDate(f, loc)
		}
	}
	return time.Time{}, fmt.Errorf("%w: %v", ErrBadDate, v)
}

// FormatDate renders t with a Unicode TR35 pattern. Supported letters:
// G y Y u Q q M L w d D E e c a b h H k K m s S z Z X x O and 'quoted'
// literals (” is an apostrophe). Other ASCII letters are rejected so a typo
// shows up instead of silently rendering.
func (l Locale) FormatDate(t time.Time, pattern string) (string, error) {
	var b strings.Builder
	rs := []rune(pattern)
	for i := 0; i < len(rs); {
		c := rs[i]
		if c == '\'' {
			i = quotedLiteral(&b, rs, i)
			continue
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b.WriteRune(c)
			i++
			continue
		}
		n := 1
		for i+n < len(rs) && rs[i+n] == c {
			n++
		}
		i += n
		if err := l.field(&b, t, c, n); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// quotedLiteral writes the literal that starts with the apostrophe at
// rs[i] (” is an apostrophe, in and out of quotes) and returns the index
// after it.
func quotedLiteral(b *strings.Builder, rs []rune, i int) int {
	if i+1 < len(rs) && rs[i+1] == '\'' {
		b.WriteRune('\'')
		return i + 2
	}
	j := i + 1
	for j < len(rs) {
		if rs[j] == '\'' {
			if j+1 < len(rs) && rs[j+1] == '\'' {
				b.WriteRune('\'')
				j += 2
				continue
			}
			break
		}
		b.WriteRune(rs[j])
		j++
	}
	return j + 1
}

func pad(v, n int) string {
	s := strconv.Itoa(v)
	for len(s) < n {
		s = "0" + s
	}
	return s
}

func (l Locale) field(b *strings.Builder, t time.Time, c rune, n int) error {
	f, ok := dateFields[c]
	if !ok {
		return fmt.Errorf("format: unsupported date pattern letter %q", c)
	}
	b.WriteString(f(l, t, c, n))
	return nil
}

// dateField renders the pattern letter c repeated n times.
type dateField func(l Locale, t time.Time, c rune, n int) string

// dateFields holds the renderer of each supported pattern letter.
var dateFields = map[rune]dateField{
	'G': fieldEra,
	'y': fieldYear, 'Y': fieldYear, 'u': fieldYear,
	'Q': fieldQuarter, 'q': fieldQuarter,
	'M': fieldMonth, 'L': fieldMonth,
	'w': func(_ Locale, t time.Time, _ rune, n int) string { _, w := t.ISOWeek(); return pad(w, n) },
	'd': func(_ Locale, t time.Time, _ rune, n int) string { return pad(t.Day(), n) },
	'D': func(_ Locale, t time.Time, _ rune, n int) string { return pad(t.YearDay(), n) },
	'E': fieldWeekday, 'e': fieldWeekday, 'c': fieldWeekday,
	'a': fieldDayPeriod, 'b': fieldDayPeriod, 'B': fieldDayPeriod,
	'h': fieldHour, 'H': fieldHour, 'k': fieldHour, 'K': fieldHour,
	'm': func(_ Locale, t time.Time, _ rune, n int) string { return pad(t.Minute(), n) },
	's': func(_ Locale, t time.Time, _ rune, n int) string { return pad(t.Second(), n) },
	'S': fieldFraction,
	'A': func(_ Locale, t time.Time, _ rune, n int) string {
		return pad(((t.Hour()*60+t.Minute())*60+t.Second())*1000+t.Nanosecond()/1e6, n)
	},
	'z': fieldZoneName, 'v': fieldZoneName, 'V': fieldZoneName,
	'O': func(_ Locale, t time.Time, _ rune, n int) string {
		_, off := t.Zone()
		return "GMT" + offset(off, n >= 4, false)
	},
	'Z': fieldZoneZ,
	'X': fieldZoneX, 'x': fieldZoneX,
}

func fieldEra(_ Locale, t time.Time, _ rune, n int) string {
	switch {
	case t.Year() > 0 && n == 4:
		return "Anno Domini"
	case t.Year() > 0:
		return "AD"
	case n == 4:
		return "Before Christ"
	}
	return "BC"
}

func fieldYear(_ Locale, t time.Time, c rune, n int) string {
	y := t.Year()
	if c == 'Y' {
		y, _ = t.ISOWeek()
	}
	if n == 2 {
		return pad(((y%100)+100)%100, 2)
	}
	return pad(y, n)
}

func fieldQuarter(_ Locale, t time.Time, _ rune, n int) string {
	q := (int(t.Month())-1)/3 + 1
	switch {
	case n <= 2:
		return pad(q, n)
	case n == 3:
		return "Q" + strconv.Itoa(q)
	}
	return []string{"1st", "2nd", "3rd", "4th"}[q-1] + " quarter"
}

func fieldMonth(l Locale, t time.Time, _ rune, n int) string {
	m := int(t.Month())
	switch {
	case n <= 2:
		return pad(m, n)
	case n == 3:
		return abbrev(l.Months[m-1])
	case n == 4:
		return l.Months[m-1]
	}
	return string([]rune(l.Months[m-1])[:1])
}

func fieldWeekday(l Locale, t time.Time, c rune, n int) string {
	wd := int(t.Weekday())
	if (c == 'e' || c == 'c') && n <= 2 {
		return pad(wd+1, n)
	}
	switch {
	case n <= 3:
		return abbrev(l.Weekdays[wd])
	case n == 4:
		return l.Weekdays[wd]
	case n == 5:
		return string([]rune(l.Weekdays[wd])[:1])
	}
	return string([]rune(l.Weekdays[wd])[:2])
}

func fieldDayPeriod(l Locale, t time.Time, _ rune, _ int) string {
	if t.Hour() < 12 {
		return l.AM
	}
	return l.PM
}

// fieldHour renders h (1-12), H (0-23), k (1-24) and K (0-11).
func fieldHour(_ Locale, t time.Time, c rune, n int) string {
	h := t.Hour()
	switch c {
	case 'h':
		h %= 12
		if h == 0 {
			h = 12
		}
	case 'k':
		if h == 0 {
			h = 24
		}
	case 'K':
		h %= 12
	}
	return pad(h, n)
}

func fieldFraction(_ Locale, t time.Time, _ rune, n int) string {
	frac := pad(t.Nanosecond(), 9)
	if n <= 9 {
		return frac[:n]
	}
	return frac + strings.Repeat("0", n-9)
}

func fieldZoneName(_ Locale, t time.Time, _ rune, n int) string {
	name, off := t.Zone()
	if n >= 4 || name == "" || strings.HasPrefix(name, "+") || strings.HasPrefix(name, "-") {
		return "GMT" + offset(off, true, false)
	}
	return name
}

func fieldZoneZ(_ Locale, t time.Time, _ rune, n int) string {
	_, off := t.Zone()
	switch {
	case n <= 3:
		return strings.ReplaceAll(offset(off, true, true), ":", "")
	case n == 4:
		return "GMT" + offset(off, true, false)
	case off == 0:
		return "Z"
	}
	return offset(off, true, true)
}

func fieldZoneX(_ Locale, t time.Time, c rune, n int) string {
	_, off := t.Zone()
	if off == 0 && c == 'X' {
		return "Z"
	}
	s := offset(off, true, true)
	if n == 1 {
		s = s[:3]
	} else if n == 2 || n == 4 {
		s = strings.ReplaceAll(s, ":", "")
	}
	return s
}

func offset(sec int, long, zero bool) string {
	if sec == 0 && !zero {
		return ""
	}
	sign := "+"
	if sec < 0 {
		sign = "-"
		sec = -sec
	}
	h, m := sec/3600, sec%3600/60
	if !long && m == 0 {
		return sign + strconv.Itoa(h)
	}
	return sign + pad(h, 2) + ":" + pad(m, 2)
}

func abbrev(s string) string {
	r := []rune(s)
	if len(r) <= 3 {
		return s
	}
	return string(r[:3])
}
