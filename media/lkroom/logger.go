package lkroom

import (
	"context"
	"log/slog"

	protoLogger "github.com/livekit/protocol/logger"
	"github.com/livekit/protocol/logger/zaputil"
	lksdk "github.com/livekit/server-sdk-go/v2"
)

// Logger adapts slog to the LiveKit SDK's logger. The SDK's info messages
// (every ICE and signalling state change) go to slog's Debug level; its
// warnings and errors keep theirs.
type Logger struct{ L *slog.Logger }

var _ protoLogger.Logger = Logger{}

// NewLogger returns the SDK logger for l (nil: slog.Default()).
func NewLogger(l *slog.Logger) Logger {
	if l == nil {
		l = slog.Default()
	}
	return Logger{L: l.With("component", "livekit")}
}

// UseForSDK makes l the SDK's process-wide logger (the pion loggers of
// every room come from it).
func UseForSDK(l *slog.Logger) { lksdk.SetLogger(NewLogger(l)) }

func (l Logger) log(level slog.Level, msg string, err error, kv []any) {
	if !l.L.Enabled(context.Background(), level) {
		return
	}
	if err != nil {
		kv = append(kv, "err", err)
	}
	l.L.Log(context.Background(), level, msg, kv...)
}

// Debugw implements protoLogger.Logger.
func (l Logger) Debugw(msg string, kv ...any) { l.log(slog.LevelDebug-1, msg, nil, kv) }

// Infow implements protoLogger.Logger.
func (l Logger) Infow(msg string, kv ...any) { l.log(slog.LevelDebug, msg, nil, kv) }

// Warnw implements protoLogger.Logger.
func (l Logger) Warnw(msg string, err error, kv ...any) { l.log(slog.LevelWarn, msg, err, kv) }

// Errorw implements protoLogger.Logger.
func (l Logger) Errorw(msg string, err error, kv ...any) { l.log(slog.LevelError, msg, err, kv) }

// WithValues implements protoLogger.Logger.
func (l Logger) WithValues(kv ...any) protoLogger.Logger { return Logger{L: l.L.With(kv...)} }

// WithUnlikelyValues implements protoLogger.Logger.
func (l Logger) WithUnlikelyValues(kv ...any) protoLogger.UnlikelyLogger {
	return protoLogger.NewUnlikelyLogger(l, kv...)
}

// WithName implements protoLogger.Logger.
func (l Logger) WithName(name string) protoLogger.Logger { return Logger{L: l.L.With("logger", name)} }

// WithComponent implements protoLogger.Logger.
func (l Logger) WithComponent(c string) protoLogger.Logger { return Logger{L: l.L.With("sub", c)} }

// WithCallDepth implements protoLogger.Logger.
func (l Logger) WithCallDepth(int) protoLogger.Logger { return l }

// WithItemSampler implements protoLogger.Logger.
func (l Logger) WithItemSampler() protoLogger.Logger { return l }

// WithoutSampler implements protoLogger.Logger.
func (l Logger) WithoutSampler() protoLogger.Logger { return l }

// WithDeferredValues implements protoLogger.Logger.
func (l Logger) WithDeferredValues() (protoLogger.Logger, protoLogger.DeferredFieldResolver) {
	return l, zaputil.NoOpDeferrer{}
}
