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
			if i+1 < len(rs) && rs[i+1] == '\'' {
				b.WriteRune('\'')
				i += 2
				continue
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
			i = j + 1
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

func pad(v, n int) string {
	s := strconv.Itoa(v)
	for len(s) < n {
		s = "0" + s
	}
	return s
}

func (l Locale) field(b *strings.Builder, t time.Time, c rune, n int) error {
	switch c {
	case 'G':
		if t.Year() > 0 {
			if n == 4 {
				b.WriteString("Anno Domini")
			} else {
				b.WriteString("AD")
			}
		} else {
			if n == 4 {
				b.WriteString("Before Christ")
			} else {
				b.WriteString("BC")
			}
		}
	case 'y', 'Y', 'u':
		y := t.Year()
		if c == 'Y' {
			y, _ = t.ISOWeek()
		}
		if n == 2 {
			b.WriteString(pad(((y%100)+100)%100, 2))
		} else {
			b.WriteString(pad(y, n))
		}
	case 'Q', 'q':
		q := (int(t.Month())-1)/3 + 1
		switch {
		case n <= 2:
			b.WriteString(pad(q, n))
		case n == 3:
			b.WriteString("Q" + strconv.Itoa(q))
		default:
			b.WriteString([]string{"1st", "2nd", "3rd", "4th"}[q-1] + " quarter")
		}
	case 'M', 'L':
		m := int(t.Month())
		switch {
		case n <= 2:
			b.WriteString(pad(m, n))
		case n == 3:
			b.WriteString(abbrev(l.Months[m-1]))
		case n == 4:
			b.WriteString(l.Months[m-1])
		default:
			b.WriteString(string([]rune(l.Months[m-1])[:1]))
		}
	case 'w':
		_, w := t.ISOWeek()
		b.WriteString(pad(w, n))
	case 'd':
		b.WriteString(pad(t.Day(), n))
	case 'D':
		b.WriteString(pad(t.YearDay(), n))
	case 'E', 'e', 'c':
		wd := int(t.Weekday())
		if (c == 'e' || c == 'c') && n <= 2 {
			b.WriteString(pad(wd+1, n))
			break
		}
		switch {
		case n <= 3:
			b.WriteString(abbrev(l.Weekdays[wd]))
		case n == 4:
			b.WriteString(l.Weekdays[wd])
		case n == 5:
			b.WriteString(string([]rune(l.Weekdays[wd])[:1]))
		default:
			b.WriteString(string([]rune(l.Weekdays[wd])[:2]))
		}
	case 'a', 'b', 'B':
		if t.Hour() < 12 {
			b.WriteString(l.AM)
		} else {
			b.WriteString(l.PM)
		}
	case 'h':
		h := t.Hour() % 12
		if h == 0 {
			h = 12
		}
		b.WriteString(pad(h, n))
	case 'H':
		b.WriteString(pad(t.Hour(), n))
	case 'k':
		h := t.Hour()
		if h == 0 {
			h = 24
		}
		b.WriteString(pad(h, n))
	case 'K':
		b.WriteString(pad(t.Hour()%12, n))
	case 'm':
		b.WriteString(pad(t.Minute(), n))
	case 's':
		b.WriteString(pad(t.Second(), n))
	case 'S':
		frac := pad(t.Nanosecond(), 9)
		if n <= 9 {
			b.WriteString(frac[:n])
		} else {
			b.WriteString(frac + strings.Repeat("0", n-9))
		}
	case 'A':
		ms := ((t.Hour()*60+t.Minute())*60+t.Second())*1000 + t.Nanosecond()/1e6
		b.WriteString(pad(ms, n))
	case 'z', 'v', 'V':
		name, off := t.Zone()
		if n >= 4 || name == "" || strings.HasPrefix(name, "+") || strings.HasPrefix(name, "-") {
			b.WriteString("GMT" + offset(off, true, false))
		} else {
			b.WriteString(name)
		}
	case 'O':
		_, off := t.Zone()
		b.WriteString("GMT" + offset(off, n >= 4, false))
	case 'Z':
		_, off := t.Zone()
		switch {
		case n <= 3:
			b.WriteString(strings.ReplaceAll(offset(off, true, true), ":", ""))
		case n == 4:
			b.WriteString("GMT" + offset(off, true, false))
		default:
			if off == 0 {
				b.WriteString("Z")
			} else {
				b.WriteString(offset(off, true, true))
			}
		}
	case 'X', 'x':
		_, off := t.Zone()
		if off == 0 && c == 'X' {
			b.WriteString("Z")
			break
		}
		s := offset(off, true, true)
		if n == 1 {
			s = s[:3]
		} else if n == 2 || n == 4 {
			s = strings.ReplaceAll(s, ":", "")
		}
		b.WriteString(s)
	default:
		return fmt.Errorf("format: unsupported date pattern letter %q", c)
	}
	return nil
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
