// Package errtext turns errors into what a person is shown: a sentence
// for the cases people meet (no microphone, the agent is unreachable, the
// history is in use…) and, apart, the wrapped chain as details for a bug
// report. The UI shows Sentence where an error reaches a person and offers
// Details behind a "Details" disclosure; it never shows the chain itself
// ("Media: mic level: media: no usable audio device: audio: open default
// input: miniaudio: Failed to open backend device").
package errtext

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/store"
	"aimdesk/media/mediaapi"
	"aimdesk/parts"
)

// known maps typed errors to the sentence shown for them, first match
// first: the more specific sentinels come before the general ones.
var known = []struct {
	err  error
	text string
}{
	{mediaapi.ErrNoAudioDevice, "No microphone or speaker could be opened on this computer. Check that one is connected and not used by another program."},
	{mediaapi.ErrNoSoundSystem, "No sound system is running on this computer (PipeWire or PulseAudio), so calls cannot use audio."},
	{mediaapi.ErrNoCamera, "No camera was found on this computer."},
	{mediaapi.ErrNoScreen, "There is no screen that can be shared here."},
	{mediaapi.ErrDisabled, "This copy of aimdesk was built without audio and video."},
	{parts.ErrNoPlugin, "A part of aimdesk (" + parts.FileName + ", which calls and gRPC agents need) is missing or does not match this aimdesk. Reinstalling aimdesk should fix this."},
	{mediaapi.ErrNotConnected, "The call is not connected."},
	{store.ErrLocked, "Your history is in use by another aimdesk that is already running."},
	{store.ErrDamaged, "Your history file is damaged."},
	{store.ErrTooNew, "Your history was written by a newer aimdesk; update aimdesk to open it."},
	{store.ErrReadOnly, "Your history cannot be saved: its folder is not writable."},
	{a2a.ErrIdleTimeout, "The agent stopped answering."},
	{a2a.ErrResponseTooLarge, "The agent's answer was too large to accept."},
	{a2a.ErrBadResponse, "The agent answered with something aimdesk cannot read."},
	{a2a.ErrInvalidAgentResponse, "The agent answered with something aimdesk cannot read."},
	{a2a.ErrNoInterface, "This agent offers no protocol aimdesk speaks (A2A 1.0 or 0.3 over JSON-RPC)."},
	{a2a.ErrTaskNotFound, "The agent no longer knows this task."},
	{a2a.ErrTaskNotCancelable, "This task can no longer be cancelled."},
	{a2a.ErrInternal, "The agent ran into a problem of its own."},
	{context.DeadlineExceeded, "The agent took too long to answer."},
	{syscall.ECONNREFUSED, "The agent could not be reached: nothing answers at its address."},
	{syscall.EHOSTUNREACH, "The agent could not be reached: its machine is not reachable from here."},
	{syscall.ENETUNREACH, "The agent could not be reached: this computer seems to be offline."},
}

// Sentence is err as one or two sentences for a person: a known typed
// error's sentence, else the message without its code labels. "" for a
// nil error.
func Sentence(err error) string {
	if err == nil {
		return ""
	}
	for _, k := range known {
		if errors.Is(err, k.err) {
			return k.text
		}
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return "The agent's address (" + dns.Name + ") could not be found."
	}
	var unknownCA x509.UnknownAuthorityError
	var badHost x509.HostnameError
	var invalid x509.CertificateInvalidError
	if errors.As(err, &unknownCA) || errors.As(err, &badHost) || errors.As(err, &invalid) {
		return "The agent's certificate is not trusted, so aimdesk did not talk to it."
	}
	if s, ok := appSentence(err); ok {
		return s
	}
	return sentence(stripLabels(err.Error()))
}

// Details is the whole chain, for the "Details" part of an error message
// (and bug reports).
func Details(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// appSentence finds the core's own sentinel anywhere in the chain: its
// messages are written for people after the "app: " prefix, and what the
// core wrapped around them is about the user's input.
func appSentence(err error) (string, bool) {
	for _, e := range []error{
		app.ErrPlainHTTP, app.ErrInterfaceOnThisMachine, app.ErrPlanChanged, app.ErrNotApprovable,
		app.ErrUnknownApproval, app.ErrUnknownAgent, app.ErrUnknownConversation, app.ErrUnknownMessage,
		app.ErrNotConnected, app.ErrNothingToSend, app.ErrNoRequirement, app.ErrNotRealtimeApproval,
		app.ErrPermissionDeclined, app.ErrAlreadyFollowing, app.ErrInvalidAnswer,
	} {
		if errors.Is(err, e) {
			// The core's message with its details ("…: minimum is 3"),
			// without the package labels inside it.
			return sentence(stripLabels(err.Error())), true
		}
	}
	return "", false
}

// codeLabels are the package labels aimdesk's own errors start with; they
// name code, not what happened. (Labels are not guessed from the shape of
// a segment: "price: not a number" and "minimum: got -1" are for people.)
var codeLabels = []string{"app: ", "a2a: ", "store: ", "media: ", "audio: "}

// stripLabels drops codeLabels anywhere in a message.
func stripLabels(s string) string {
	for _, p := range codeLabels {
		s = strings.ReplaceAll(s, p, "")
	}
	return s
}

// sentence capitalises s and ends it with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "Something went wrong."
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "!") {
		s += "."
	}
	return s
}
