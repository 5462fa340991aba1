package lkroom

import (
	"errors"
	"io"
	"maps"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
)

// MaxStreamText bounds the text kept of one incoming text stream: a peer
// may stream without end; what comes after this is read and dropped.
const MaxStreamText = 64 << 10

// StreamText is an incoming text stream (LiveKit data streams) as read so
// far. A stream is one message (lk.chat) or one transcription segment's
// text (lk.transcription: either the whole text so far in one stream per
// update, or deltas appended to one stream that ends with the segment).
type StreamText struct {
	ID     string
	Topic  string
	Sender string // the identity of the participant that sent it
	// Attributes are the header's; when Done, with the trailer's merged in
	// (LiveKit Agents send lk.transcription_final "true" in the trailer of
	// a delta stream).
	Attributes map[string]string
	Text       string    // everything received so far (at most MaxStreamText bytes)
	Truncated  bool      // text beyond MaxStreamText was dropped
	Done       bool      // the stream ended
	At         time.Time // the header's timestamp (when the sender opened it)
}

// textStreamHandler reads every stream of a topic into TextStream signals.
func textStreamHandler(sink Sink) lksdk.TextStreamHandler {
	return func(r *lksdk.TextStreamReader, sender string) {
		if r.Info.Attributes == nil {
			// the SDK merges trailer attributes into this map: never nil
			r.Info.Attributes = map[string]string{}
		}
		info := StreamText{
			ID: r.Info.Id, Topic: r.Info.Topic, Sender: sender,
			Attributes: maps.Clone(r.Info.Attributes), At: time.UnixMilli(r.Info.Timestamp),
		}
		ReadTextStream(r, info, func() map[string]string { return r.Info.Attributes }, func(st StreamText) {
			sink(Signal{Kind: TextStream, Stream: &st})
		})
	}
}

// ReadTextStream reads r to its end and calls emit with the text so far
// after every read that added whole characters, and once more with Done
// set and the attributes end returns (read after the stream ended). A
// character split between reads waits for its rest; invalid UTF-8 is
// replaced.
func ReadTextStream(r io.Reader, info StreamText, end func() map[string]string, emit func(StreamText)) {
	var text strings.Builder
	var pending []byte // an incomplete character at the end of the last read
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			data := append(pending, buf[:n]...)
			cut := completePrefix(data)
			pending = append([]byte(nil), data[cut:]...)
			if cut > 0 && !info.Truncated {
				add := strings.ToValidUTF8(string(data[:cut]), "\uFFFD")
				if text.Len()+len(add) > MaxStreamText {
					add, info.Truncated = clipUTF8(add, MaxStreamText-text.Len()), true
				}
				text.WriteString(add)
				info.Text = text.String()
				emit(cloneStream(info))
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				info.Truncated = true
			}
			break
		}
	}
	if len(pending) > 0 && !info.Truncated && text.Len()+len("\uFFFD") <= MaxStreamText {
		text.WriteString("\uFFFD")
		info.Text = text.String()
	}
	if end != nil {
		info.Attributes = maps.Clone(end())
	}
	info.Done = true
	emit(cloneStream(info))
}

func cloneStream(s StreamText) StreamText {
	s.Attributes = maps.Clone(s.Attributes)
	return s
}

// completePrefix is the length of p without an incomplete UTF-8 sequence
// at its end.
func completePrefix(p []byte) int {
	for back := 1; back <= utf8.UTFMax && back <= len(p); back++ {
		b := p[len(p)-back]
		if b < utf8.RuneSelf {
			return len(p) // ASCII: nothing pending after it
		}
		if utf8.RuneStart(b) {
			if utf8.FullRune(p[len(p)-back:]) {
				return len(p)
			}
			return len(p) - back
		}
	}
	return len(p)
}

// clipUTF8 cuts s to at most n bytes on a character boundary.
func clipUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// QualityName is a connection quality in lower case: "excellent",
// "good", "poor" or "lost".
func QualityName(q livekit.ConnectionQuality) string {
	return strings.ToLower(q.String())
}
