package devagent

import (
	"fmt"
	"strings"

	protoLogger "github.com/livekit/protocol/logger"
)

// sdkLogger hands the LiveKit SDK's warnings and errors to the handler's
// Logf and drops its info and debug lines (every ICE and signalling state
// change).
type sdkLogger struct {
	logf func(string, ...any)
	name string
}

var _ protoLogger.Logger = sdkLogger{}

func (l sdkLogger) line(level, msg string, err error, kv []any) {
	var b strings.Builder
	fmt.Fprintf(&b, "devagent: livekit %s%s: %s", level, l.name, msg)
	if err != nil {
		fmt.Fprintf(&b, ": %v", err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(&b, " %v=%v", kv[i], kv[i+1])
	}
	l.logf("%s", b.String())
}

func (l sdkLogger) Debugw(string, ...any)                     {}
func (l sdkLogger) Infow(string, ...any)                      {}
func (l sdkLogger) Warnw(msg string, err error, kv ...any)    { l.line("warning", msg, err, kv) }
func (l sdkLogger) Errorw(msg string, err error, kv ...any)   { l.line("error", msg, err, kv) }
func (l sdkLogger) WithValues(...any) protoLogger.Logger      { return l }
func (l sdkLogger) WithName(name string) protoLogger.Logger   { l.name += " " + name; return l }
func (l sdkLogger) WithComponent(c string) protoLogger.Logger { l.name += " " + c; return l }
func (l sdkLogger) WithCallDepth(int) protoLogger.Logger      { return l }
func (l sdkLogger) WithItemSampler() protoLogger.Logger       { return l }
func (l sdkLogger) WithoutSampler() protoLogger.Logger        { return l }
func (l sdkLogger) WithUnlikelyValues(kv ...any) protoLogger.UnlikelyLogger {
	return protoLogger.NewUnlikelyLogger(l, kv...)
}

func (l sdkLogger) WithDeferredValues() (protoLogger.Logger, protoLogger.DeferredFieldResolver) {
	return l, noResolver{}
}

type noResolver struct{}

func (noResolver) Resolve(...any) {}
func (noResolver) Reset()         {}
