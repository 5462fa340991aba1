// Package uikit holds the small pieces of look and wording that the main
// window (package ui) and the call window (package ui/callwin) share:
// label styles, errors in words, text clipping, and the arming delay of
// buttons that act on what an agent asked. It has no state.
package uikit

import (
	"strings"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// Arming of buttons that act on an agent's request (the approval dialog,
// the call's media requests).
const (
	// ArmDelay is how long such a button stays inactive after the request
	// is shown (and after the agent changed it).
	ArmDelay = time.Second
	// ArmTick is the countdown's refresh while the button arms.
	ArmTick = 100 * time.Millisecond
)

// Heading is a bold label.
func Heading(text string) *widget.Label {
	return widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
}

// WrapLabel is a label that wraps at words.
func WrapLabel(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// LowLabel is a wrapping label of low importance (secondary text).
func LowLabel(text string) *widget.Label {
	l := WrapLabel(text)
	l.Importance = widget.LowImportance
	return l
}

// UserText is an error in words for people: the core's sentinels have an
// "app: " prefix that means nothing to them.
func UserText(err error) string {
	s := err.Error()
	for _, p := range []string{"app: ", "a2a: ", "store: "} {
		s = strings.ReplaceAll(s, p, "")
	}
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

// ClipRunes cuts s to at most n runes, the last one an ellipsis when cut.
func ClipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// OneLine folds runs of white space (newlines too) into single spaces.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
