package format

import (
	"math"
	"strconv"
	"strings"
)

// Locale holds the conventions used to render numbers, dates and plurals.
type Locale struct {
	Tag      string
	Decimal  string
	Group    string
	Months   [12]string
	Weekdays [7]string // Sunday first
	AM, PM   string
	// CurrencyAfter places the currency symbol after the amount ("1.234,50 €").
	CurrencyAfter bool
	plural        func(n float64, v int) Category
}

var (
	enMonths = [12]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	enDays   = [7]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
)

// LookupLocale returns the locale for a BCP 47 tag ("en", "en-US", "de-DE",
// "fr", …), falling back to en-US.
func LookupLocale(tag string) Locale {
	base := strings.ToLower(tag)
	if i := strings.IndexAny(base, "-_"); i >= 0 {
		base = base[:i]
	}
	l := Locale{Tag: "en-US", Decimal: ".", Group: ",", Months: enMonths, Weekdays: enDays, AM: "AM", PM: "PM", plural: pluralEnglish}
	switch base {
	case "de":
		l = Locale{
			Tag: tag, Decimal: ",", Group: ".", Months: [12]string{"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"},
			Weekdays: [7]string{"Sonntag", "Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag"}, AM: "AM", PM: "PM", CurrencyAfter: true, plural: pluralEnglish,
		}
	case "fr":
		l = Locale{
			Tag: tag, Decimal: ",", Group: "\u202f", Months: [12]string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"},
			Weekdays: [7]string{"dimanche", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi"}, AM: "AM", PM: "PM", CurrencyAfter: true, plural: pluralFrench,
		}
	case "ru":
		l = Locale{Tag: tag, Decimal: ",", Group: "\u00a0", Months: enMonths, Weekdays: enDays, AM: "AM", PM: "PM", CurrencyAfter: true, plural: pluralRussian}
	case "pl":
		l = Locale{Tag: tag, Decimal: ",", Group: "\u00a0", Months: enMonths, Weekdays: enDays, AM: "AM", PM: "PM", CurrencyAfter: true, plural: pluralPolish}
	case "ar":
		l.Tag, l.plural = tag, pluralArabic
	case "ja", "zh", "ko":
		l.Tag, l.plural = tag, func(float64, int) Category { return Other }
	case "en", "":
	default:
		return l
	}
	if l.Tag == "" {
		l.Tag = tag
	}
	return l
}

// NumberOptions controls FormatNumber. Decimals < 0 means "locale default"
// (0 to 3 fraction digits, like Intl.NumberFormat).
type NumberOptions struct {
	Decimals int
	Grouping bool
}

// FormatNumber renders v with fixed (Decimals >= 0) or up to three fraction
// digits, and optional grouping separators.
func (l Locale) FormatNumber(v float64, o NumberOptions) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	if math.IsInf(v, 0) {
		if v < 0 {
			return "-∞"
		}
		return "∞"
	}
	var s string
	if o.Decimals >= 0 {
		d := o.Decimals
		if d > 20 {
			d = 20
		}
		s = strconv.FormatFloat(roundHalfAway(v, d), 'f', d, 64)
	} else {
		s = strconv.FormatFloat(roundHalfAway(v, 3), 'f', 3, 64)
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	if o.Grouping && len(intPart) > 3 {
		var b strings.Builder
		pre := len(intPart) % 3
		if pre > 0 {
			b.WriteString(intPart[:pre])
		}
		for i := pre; i < len(intPart); i += 3 {
			if b.Len() > 0 {
				b.WriteString(l.Group)
			}
			b.WriteString(intPart[i : i+3])
		}
		intPart = b.String()
	}
	out := intPart
	if frac != "" {
		out += l.Decimal + frac
	}
	if neg && strings.Trim(out, "0.,\u00a0\u202f") != "" {
		out = "-" + out
	}
	return out
}

func roundHalfAway(v float64, d int) float64 {
	if d > 15 {
		return v
	}
	p := math.Pow(10, float64(d))
	r := math.Round(v*p) / p
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return v
	}
	return r
}

type currencyInfo struct {
	symbol   string
	decimals int
}

var currencies = map[string]currencyInfo{
	"USD": {"$", 2}, "EUR": {"€", 2}, "GBP": {"£", 2}, "JPY": {"¥", 0}, "CNY": {"CN¥", 2},
	"INR": {"₹", 2}, "CAD": {"CA$", 2}, "AUD": {"A$", 2}, "CHF": {"CHF", 2}, "KRW": {"₩", 0},
	"BRL": {"R$", 2}, "MXN": {"MX$", 2}, "RUB": {"RUB", 2}, "SEK": {"SEK", 2}, "NZD": {"NZ$", 2},
	"HKD": {"HK$", 2}, "SGD": {"SGD", 2}, "PLN": {"PLN", 2}, "ILS": {"₪", 2}, "VND": {"₫", 0},
	"TWD": {"NT$", 2}, "BTC": {"BTC", 8},
}

// FormatCurrency renders v as an amount of the ISO 4217 currency code.
// Decimals < 0 uses the currency's minor unit (2 for most, 0 for JPY).
func (l Locale) FormatCurrency(v float64, code string, o NumberOptions) string {
	code = strings.ToUpper(strings.TrimSpace(code))
	info, ok := currencies[code]
	if !ok {
		info = currencyInfo{symbol: code, decimals: 2}
	}
	if o.Decimals < 0 {
		o.Decimals = info.decimals
	}
	n := l.FormatNumber(math.Abs(v), o)
	neg := v < 0 && strings.Trim(n, "0.,\u00a0\u202f") != ""
	sym := info.symbol
	var out string
	switch {
	case l.CurrencyAfter:
		out = n + "\u00a0" + sym
	case len(sym) > 1 && isLetters(sym):
		out = sym + "\u00a0" + n
	default:
		out = sym + n
	}
	if neg {
		out = "-" + out
	}
	return out
}

func isLetters(s string) bool {
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}
