package format

import (
	"math"
	"strconv"
	"strings"
)

// Category is a CLDR plural category.
type Category string

// CLDR plural categories.
const (
	Zero  Category = "zero"
	One   Category = "one"
	Two   Category = "two"
	Few   Category = "few"
	Many  Category = "many"
	Other Category = "other"
)

// Plural returns the cardinal plural category of n in the locale.
func (l Locale) Plural(n float64) Category {
	if l.plural == nil {
		return pluralEnglish(n, visibleFraction(n))
	}
	return l.plural(n, visibleFraction(n))
}

func visibleFraction(n float64) int {
	s := strconv.FormatFloat(n, 'f', -1, 64)
	if _, f, ok := strings.Cut(s, "."); ok {
		return len(f)
	}
	return 0
}

func isInt(n float64) bool { return n == math.Trunc(n) }

func pluralEnglish(n float64, v int) Category {
	if math.Abs(n) == 1 && v == 0 {
		return One
	}
	return Other
}

func pluralFrench(n float64, v int) Category {
	a := math.Abs(n)
	if a < 2 && math.Trunc(a) <= 1 && (v == 0 || a < 2) {
		return One
	}
	return Other
}

func pluralRussian(n float64, v int) Category {
	if v != 0 || !isInt(n) {
		return Other
	}
	i := int64(math.Abs(n))
	switch {
	case i%10 == 1 && i%100 != 11:
		return One
	case i%10 >= 2 && i%10 <= 4 && (i%100 < 12 || i%100 > 14):
		return Few
	default:
		return Many
	}
}

func pluralPolish(n float64, v int) Category {
	if v != 0 || !isInt(n) {
		return Other
	}
	i := int64(math.Abs(n))
	switch {
	case i == 1:
		return One
	case i%10 >= 2 && i%10 <= 4 && (i%100 < 12 || i%100 > 14):
		return Few
	default:
		return Many
	}
}

func pluralArabic(n float64, v int) Category {
	if v != 0 || !isInt(n) {
		return Other
	}
	i := int64(math.Abs(n))
	switch {
	case i == 0:
		return Zero
	case i == 1:
		return One
	case i == 2:
		return Two
	case i%100 >= 3 && i%100 <= 10:
		return Few
	case i%100 >= 11 && i%100 <= 99:
		return Many
	default:
		return Other
	}
}
