package format

import (
	"testing"
	"time"
)

func TestFormatNumber(t *testing.T) {
	en := LookupLocale("en-US")
	de := LookupLocale("de-DE")
	tests := []struct {
		name string
		l    Locale
		v    float64
		o    NumberOptions
		want string
	}{
		{"default", en, 1234.5678, NumberOptions{Decimals: -1, Grouping: true}, "1,234.568"},
		{"fixed", en, 1234.5, NumberOptions{Decimals: 2, Grouping: true}, "1,234.50"},
		{"nogroup", en, 1234567, NumberOptions{Decimals: 0}, "1234567"},
		{"negative", en, -1234.4, NumberOptions{Decimals: 0, Grouping: true}, "-1,234"},
		{"neg zero", en, -0.001, NumberOptions{Decimals: 2, Grouping: true}, "0.00"},
		{"german", de, 1234.5, NumberOptions{Decimals: 2, Grouping: true}, "1.234,50"},
		{"round half", en, 2.5, NumberOptions{Decimals: 0}, "3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.l.FormatNumber(tc.v, tc.o); got != tc.want {
				t.Fatalf("got %q want %q", got, tc.want)
			}
		})
	}
}

func TestFormatCurrency(t *testing.T) {
	en := LookupLocale("en")
	tests := []struct {
		v    float64
		code string
		want string
	}{
		{1234.5, "USD", "$1,234.50"},
		{-5, "EUR", "-€5.00"},
		{1234, "JPY", "¥1,234"},
		{10, "XYZ", "XYZ\u00a010.00"},
	}
	for _, tc := range tests {
		t.Run(tc.code, func(t *testing.T) {
			if got := en.FormatCurrency(tc.v, tc.code, NumberOptions{Decimals: -1, Grouping: true}); got != tc.want {
				t.Fatalf("got %q want %q", got, tc.want)
			}
		})
	}
}

func TestFormatDate(t *testing.T) {
	en := LookupLocale("en")
	tm := time.Date(2026, 1, 16, 14, 30, 5, 0, time.UTC)
	tests := []struct{ pattern, want string }{
		{"MMM dd, yyyy", "Jan 16, 2026"},
		{"HH:mm", "14:30"},
		{"h:mm a", "2:30 PM"},
		{"EEEE, d MMMM", "Friday, 16 January"},
		{"yy-M-d E", "26-1-16 Fri"},
		{"'Today is' EEEE", "Today is Friday"},
		{"hh 'o''clock'", "02 o'clock"},
		{"yyyy-MM-dd'T'HH:mm:ssXXX", "2026-01-16T14:30:05Z"},
		{"QQQ D", "Q1 16"},
	}
	for _, tc := range tests {
		t.Run(tc.pattern, func(t *testing.T) {
			got, err := en.FormatDate(tm, tc.pattern)
			if err != nil || got != tc.want {
				t.Fatalf("got %q,%v want %q", got, err, tc.want)
			}
		})
	}
	if _, err := en.FormatDate(tm, "yyyy-JJ"); err == nil {
		t.Fatal("unknown letter accepted")
	}
}

func TestParseDate(t *testing.T) {
	for _, in := range []any{"2026-01-16T14:30:00Z", "2026-01-16", "2026-01-16T14:30:00", 1768573800000.0} {
		if _, err := ParseDate(in, time.UTC); err != nil {
			t.Errorf("ParseDate(%v): %v", in, err)
		}
	}
	if _, err := ParseDate("soon", time.UTC); err == nil {
		t.Error("accepted garbage")
	}
}

func TestPlural(t *testing.T) {
	tests := []struct {
		tag  string
		n    float64
		want Category
	}{
		{"en", 1, One},
		{"en", 0, Other},
		{"en", 2, Other},
		{"en", 1.5, Other},
		{"fr", 0, One},
		{"fr", 1.5, One},
		{"ru", 21, One},
		{"ru", 3, Few},
		{"ru", 11, Many},
		{"pl", 22, Few},
		{"ar", 2, Two},
		{"ar", 0, Zero},
	}
	for _, tc := range tests {
		t.Run(tc.tag, func(t *testing.T) {
			if got := LookupLocale(tc.tag).Plural(tc.n); got != tc.want {
				t.Fatalf("%s %v: got %s want %s", tc.tag, tc.n, got, tc.want)
			}
		})
	}
}
