package a2a

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"
)

// A fast path for decoding stream events.
//
// Every event of a stream is one JSON-RPC response, and encoding/json spends
// most of a stream's time on them: it validates each event, then decodes it
// again through reflection. fastStreamEvent and fastStreamEventV03 parse the
// events streams are made of (status and artifact updates, tasks, messages)
// in one pass into the values encoding/json would produce. They give up,
// returning false, on anything outside the plain subset they handle: an
// error response, a null, a value of an unexpected type, a repeated key, a
// key that matches a field only when case is ignored, a field they do not
// handle (such as a v1.0 raw part), nesting deeper than maxFastDepth inside
// metadata or data, or bytes after the value. The caller then decodes the
// event with encoding/json, so results and errors are encoding/json's either
// way; the fast path only saves time. Field names come from the Go types by
// reflection, so a field added to a type later makes the fast path give up
// on events that carry it rather than drop it. TestDecodeStreamEventFastPath
// and FuzzStreamEventFastPath (bench_decode_test.go) check the fast path
// against the encoding/json path, on corner cases and on recorded streams.

// maxFastDepth bounds the nesting of the JSON values (metadata values, data
// parts) the fast path copies; deeper values go to encoding/json.
const maxFastDepth = 64

type fastScan struct {
	b   []byte
	i   int
	bad bool // sticky: give up
}

func (s *fastScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, or 0 at the end.
func (s *fastScan) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *fastScan) eat(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

func (s *fastScan) expect(c byte) {
	if !s.eat(c) {
		s.bad = true
	}
}

// once records that the field numbered bit was seen, and gives up if it
// was seen before (encoding/json would merge the two values).
func (s *fastScan) once(seen *uint64, bit uint) bool {
	if *seen&(1<<bit) != 0 {
		s.bad = true
		return false
	}
	*seen |= 1 << bit
	return true
}

// The …Once helpers decode a member into dst the first time its bit is
// seen (see once), so the per-type decoders stay one line per member.
func (s *fastScan) strOnce(seen *uint64, bit uint, dst *string) {
	if s.once(seen, bit) {
		*dst = s.str()
	}
}

func (s *fastScan) strPtrOnce(seen *uint64, bit uint, dst **string) {
	if s.once(seen, bit) {
		*dst = s.strPtr()
	}
}

func (s *fastScan) stringsOnce(seen *uint64, bit uint, dst *[]string) {
	if s.once(seen, bit) {
		*dst = s.strings()
	}
}

func (s *fastScan) boolOnce(seen *uint64, bit uint, dst *bool) {
	if s.once(seen, bit) {
		*dst = s.boolean()
	}
}

func (s *fastScan) rawOnce(seen *uint64, bit uint, dst *json.RawMessage) {
	if s.once(seen, bit) {
		*dst = s.raw()
	}
}

func (s *fastScan) metadataOnce(seen *uint64, bit uint, dst *Metadata) {
	if s.once(seen, bit) {
		*dst = s.metadata()
	}
}

func fastArrayOnce[T any](s *fastScan, seen *uint64, bit uint, dst *[]T, elem func(*T)) {
	if s.once(seen, bit) {
		*dst = fastArray(s, elem)
	}
}

// fastObject parses an object into a new T with fill, or gives up (nil)
// on anything but an object.
func fastObject[T any](s *fastScan, fill func(*T)) *T {
	if s.peek() != '{' {
		s.bad = true
		return nil
	}
	v := new(T)
	fill(v)
	return v
}

// object parses an object, calling member for each key with the scanner
// at the member's value, which member must consume.
func (s *fastScan) object(member func(key []byte)) {
	if !s.eat('{') {
		s.bad = true
		return
	}
	if s.eat('}') {
		return
	}
	for !s.bad {
		key := s.strBytes()
		s.expect(':')
		if s.bad {
			return
		}
		member(key)
		if s.bad || s.eat(',') {
			continue
		}
		s.expect('}')
		return
	}
}

// unknown handles a key the decoder has no case for: encoding/json ignores
// it unless it matches a field of the type when case is ignored.
func (s *fastScan) unknown(key []byte, fields []string) {
	for _, f := range fields {
		if bytes.EqualFold(key, []byte(f)) {
			s.bad = true
			return
		}
	}
	s.skip(0)
}

// array parses an array, calling elem for each element; an empty array
// gives a non-nil empty slice, as with encoding/json.
func fastArray[T any](s *fastScan, elem func(*T)) []T {
	if !s.eat('[') {
		s.bad = true
		return nil
	}
	out := []T{}
	if s.eat(']') {
		return out
	}
	var zero T
	for !s.bad {
		out = append(out, zero)
		elem(&out[len(out)-1]) // in place: a local would escape through elem
		if s.bad || s.eat(',') {
			continue
		}
		s.expect(']')
		break
	}
	return out
}

// strBytes parses a string. Plain strings alias the input; others (escapes,
// non-ASCII) are decoded exactly as encoding/json decodes them.
func (s *fastScan) strBytes() []byte {
	if s.peek() != '"' {
		s.bad = true
		return nil
	}
	b := s.b
	start := s.i + 1
	for i := start; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			s.i = i + 1
			return b[start:i]
		case c == '\\' || c >= utf8.RuneSelf:
			return s.strSlow()
		case c < 0x20:
			s.bad = true
			return nil
		}
	}
	s.bad = true
	return nil
}

func (s *fastScan) strSlow() []byte {
	b := s.b
	start := s.i + 1
	escaped := false
	for i := start; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\\':
			escaped = true
			i++
		case c == '"':
			s.i = i + 1
			if !escaped && utf8.Valid(b[start:i]) {
				return b[start:i] // what encoding/json keeps as is
			}
			var out string
			if json.Unmarshal(b[start-1:i+1], &out) != nil {
				s.bad = true
				return nil
			}
			return []byte(out)
		case c < 0x20:
			s.bad = true
			return nil
		}
	}
	s.bad = true
	return nil
}

func (s *fastScan) str() string { return string(s.strBytes()) }

func (s *fastScan) strPtr() *string {
	v := s.str()
	return &v
}

func (s *fastScan) strings() []string {
	return fastArray(s, func(v *string) { *v = s.str() })
}

func (s *fastScan) boolean() bool {
	switch s.peek() {
	case 't':
		if bytes.HasPrefix(s.b[s.i:], []byte("true")) {
			s.i += 4
			return true
		}
	case 'f':
		if bytes.HasPrefix(s.b[s.i:], []byte("false")) {
			s.i += 5
			return false
		}
	}
	s.bad = true
	return false
}

// raw returns a copy of the next value's bytes, validated.
func (s *fastScan) raw() json.RawMessage {
	s.ws()
	start := s.i
	s.skip(0)
	if s.bad {
		return nil
	}
	return append(json.RawMessage(nil), s.b[start:s.i]...)
}

// metadata parses an object of raw values (null is left to encoding/json).
func (s *fastScan) metadata() Metadata {
	if s.peek() != '{' {
		s.bad = true
		return nil
	}
	m := Metadata{}
	s.object(func(key []byte) { m[string(key)] = s.raw() })
	return m
}

// skip validates and passes over any value.
func (s *fastScan) skip(depth int) {
	if depth > maxFastDepth {
		s.bad = true
		return
	}
	switch c := s.peek(); {
	case c == '{':
		s.skipObject(depth)
	case c == '[':
		s.skipArray(depth)
	case c == '"':
		s.skipString()
	case c == '-' || c >= '0' && c <= '9':
		s.skipNumber()
	case c == 't':
		s.literal("true")
	case c == 'f':
		s.literal("false")
	case c == 'n':
		s.literal("null")
	default:
		s.bad = true
	}
}

// skipObject passes over an object whose members are at depth+1.
func (s *fastScan) skipObject(depth int) {
	s.i++
	if s.eat('}') {
		return
	}
	for !s.bad {
		s.skipString()
		s.expect(':')
		s.skip(depth + 1)
		if s.bad || s.eat(',') {
			continue
		}
		s.expect('}')
		return
	}
}

// skipArray passes over an array whose elements are at depth+1.
func (s *fastScan) skipArray(depth int) {
	s.i++
	if s.eat(']') {
		return
	}
	for !s.bad {
		s.skip(depth + 1)
		if s.bad || s.eat(',') {
			continue
		}
		s.expect(']')
		return
	}
}

func (s *fastScan) literal(lit string) {
	if bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		s.i += len(lit)
		return
	}
	s.bad = true
}

func (s *fastScan) skipString() {
	if s.peek() != '"' {
		s.bad = true
		return
	}
	b := s.b
	for i := s.i + 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return
		case c == '\\':
			i++
			if i >= len(b) {
				s.bad = true
				return
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					s.bad = true
					return
				}
				i += 4
			default:
				s.bad = true
				return
			}
		case c < 0x20:
			s.bad = true
			return
		}
	}
	s.bad = true
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// skipNumber passes over a number with JSON's grammar.
func (s *fastScan) skipNumber() {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	i, ok := numberInt(b, i)
	if ok {
		i, ok = numberFraction(b, i)
	}
	if ok {
		i, ok = numberExponent(b, i)
	}
	if !ok {
		s.bad = true
		return
	}
	s.i = i
}

// numberInt passes over a number's integer part (0, or 1-9 and digits)
// at b[i:]; false if there is none.
func numberInt(b []byte, i int) (int, bool) {
	switch {
	case i < len(b) && b[i] == '0':
		return i + 1, true
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		return skipDigits(b, i+1), true
	}
	return i, false
}

// numberFraction passes over an optional fraction ('.' and digits); false
// if the '.' has no digit after it.
func numberFraction(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '.' {
		return i, true
	}
	i++
	if i >= len(b) || !isDigit(b[i]) {
		return i, false
	}
	return skipDigits(b, i), true
}

// numberExponent passes over an optional exponent ('e' or 'E', a sign,
// digits); false if it has no digit.
func numberExponent(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != 'e' && b[i] != 'E' {
		return i, true
	}
	i++
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	if i >= len(b) || !isDigit(b[i]) {
		return i, false
	}
	return skipDigits(b, i), true
}

// skipDigits returns the index of the first non-digit at or after i.
func skipDigits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// end checks that only white space follows the top-level value.
func (s *fastScan) end() bool {
	s.ws()
	return !s.bad && s.i == len(s.b)
}

// jsonFields lists the names encoding/json matches a struct's fields by
// (the fields of embedded structs included, as it promotes them).
func jsonFields(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				names = append(names, jsonFields(ft)...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	return names
}

// The fields of every type the fast path fills, as encoding/json sees them.
var (
	fieldsEnvelope       = jsonFields(reflect.TypeFor[streamEnvelope]())
	fieldsEnvelopeV03    = jsonFields(reflect.TypeFor[Response]())
	fieldsStream         = jsonFields(reflect.TypeFor[StreamResponse]())
	fieldsTask           = jsonFields(reflect.TypeFor[Task]())
	fieldsMessage        = jsonFields(reflect.TypeFor[Message]())
	fieldsStatus         = jsonFields(reflect.TypeFor[TaskStatus]())
	fieldsArtifact       = jsonFields(reflect.TypeFor[Artifact]())
	fieldsStatusUpdate   = jsonFields(reflect.TypeFor[TaskStatusUpdateEvent]())
	fieldsArtifactUpdate = jsonFields(reflect.TypeFor[TaskArtifactUpdateEvent]())
	fieldsPart           = jsonFields(reflect.TypeFor[partJSON]())
	fieldsEventV03       = jsonFields(reflect.TypeFor[EventV03]())
	fieldsStatusV03      = jsonFields(reflect.TypeFor[TaskStatusV03]())
	fieldsMessageV03     = jsonFields(reflect.TypeFor[MessageV03]())
	fieldsArtifactV03    = jsonFields(reflect.TypeFor[ArtifactV03]())
	fieldsPartV03        = jsonFields(reflect.TypeFor[PartV03]())
	fieldsFileV03        = jsonFields(reflect.TypeFor[FileV03]())
)

// fastStreamEvent decodes a v1.0 stream event, or returns false (see above).
func fastStreamEvent(b []byte) (*StreamResponse, bool) {
	s := fastScan{b: b}
	var ev *StreamResponse
	version := false
	var seen uint64
	s.object(func(key []byte) {
		switch string(key) {
		case "jsonrpc":
			if s.once(&seen, 0) {
				version = s.str() == "2.0"
			}
		case "id":
			if s.once(&seen, 1) {
				s.skip(0)
			}
		case "result":
			if s.once(&seen, 2) {
				ev = s.streamResponse()
			}
		default:
			s.unknown(key, fieldsEnvelope)
		}
	})
	// Results without exactly one field set are left to DecodeStreamEvent.
	if !s.end() || !version || ev == nil || setFields(ev) != 1 {
		return nil, false
	}
	return ev, true
}

func (s *fastScan) streamResponse() *StreamResponse {
	if s.peek() != '{' {
		s.bad = true
		return nil
	}
	r := &StreamResponse{}
	var seen uint64
	s.object(func(key []byte) {
		switch string(key) {
		case "task":
			if s.once(&seen, 0) {
				r.Task = s.task()
			}
		case "message":
			if s.once(&seen, 1) {
				r.Message = s.message()
			}
		case "statusUpdate":
			if s.once(&seen, 2) {
				r.StatusUpdate = s.statusUpdate()
			}
		case "artifactUpdate":
			if s.once(&seen, 3) {
				r.ArtifactUpdate = s.artifactUpdate()
			}
		default:
			s.unknown(key, fieldsStream)
		}
	})
	return r
}

func (s *fastScan) task() *Task {
	t := &Task{}
	var seen uint64
	s.object(func(key []byte) {
		switch string(key) {
		case "id":
			if s.once(&seen, 0) {
				t.ID = s.str()
			}
		case "contextId":
			if s.once(&seen, 1) {
				t.ContextID = s.str()
			}
		case "status":
			if s.once(&seen, 2) {
				s.status(&t.Status)
			}
		case "artifacts":
			if s.once(&seen, 3) {
				t.Artifacts = fastArray(s, s.artifact)
			}
		case "history":
			if s.once(&seen, 4) {
				t.History = fastArray(s, s.messageInto)
			}
		case "metadata":
			if s.once(&seen, 5) {
				t.Metadata = s.metadata()
			}
		default:
			s.unknown(key, fieldsTask)
		}
	})
	return t
}

func (s *fastScan) message() *Message {
	if s.peek() != '{' {
		s.bad = true
		return nil
	}
	m := &Message{}
	s.messageInto(m)
	return m
}

func (s *fastScan) messageInto(m *Message) {
	fastMessage(s, s.part, fieldsMessage, nil, func(r string) { m.Role = Role(r) },
		&m.MessageID, &m.ContextID, &m.TaskID, &m.Parts, &m.Metadata, &m.Extensions, &m.ReferenceTaskIDs)
}

// fastMessage decodes the members v1.0 and v0.3 messages share; they
// differ in the part shape, the role's type and v0.3's "kind" (kind nil:
// the member is unknown, as in v1.0).
func fastMessage[P any](s *fastScan, part func(*P), fields []string, kind *string, role func(string),
	id, contextID, taskID *string, parts *[]P, meta *Metadata, ext, refs *[]string,
) {
	var seen uint64
	s.object(func(key []byte) {
		switch k := string(key); {
		case k == "kind" && kind != nil:
			s.strOnce(&seen, 0, kind)
		case k == "messageId":
			s.strOnce(&seen, 1, id)
		case k == "contextId":
			s.strOnce(&seen, 2, contextID)
		case k == "taskId":
			s.strOnce(&seen, 3, taskID)
		case k == "role":
			if s.once(&seen, 4) {
				role(s.str())
			}
		case k == "parts":
			fastArrayOnce(s, &seen, 5, parts, part)
		case k == "metadata":
			s.metadataOnce(&seen, 6, meta)
		case k == "extensions":
			s.stringsOnce(&seen, 7, ext)
		case k == "referenceTaskIds":
			s.stringsOnce(&seen, 8, refs)
		default:
			s.unknown(key, fields)
		}
	})
}

func (s *fastScan) status(st *TaskStatus) {
	var seen uint64
	s.object(func(key []byte) {
		switch string(key) {
		case "state":
			if s.once(&seen, 0) {
				st.State = TaskState(s.str())
			}
		case "message":
			if s.once(&seen, 1) {
				st.Message = s.message()
			}
		case "timestamp":
			if s.once(&seen, 2) {
				// encoding/json hands *time.Time the raw token.
				s.ws()
				start := s.i
				s.skipString()
				t := new(time.Time)
				if s.bad || t.UnmarshalJSON(s.b[start:s.i]) != nil {
					s.bad = true
					return
				}
				st.Timestamp = t
			}
		default:
			s.unknown(key, fieldsStatus)
		}
	})
}

func (s *fastScan) artifact(a *Artifact) {
	fastArtifact(s, s.part, fieldsArtifact, &a.ArtifactID, &a.Name, &a.Description, &a.Parts, &a.Metadata, &a.Extensions)
}

// fastArtifact decodes an artifact; v1.0 and v0.3 differ only in the part
// shape.
func fastArtifact[P any](s *fastScan, part func(*P), fields []string,
	id, name, description *string, parts *[]P, meta *Metadata, ext *[]string,
) {
	var seen uint64
	s.object(func(key []byte) {
		switch string(key) {
		case "artifactId":
			if s.once(&seen, 0) {
				*id = s.str()
			}
		case "name":
			if s.once(&seen, 1) {
				*name = s.str()
			}
		case "description":
			if s.once(&seen, 2) {
				*description = s.str()
			}
		case "parts":
			if s.once(&seen, 3) {
				*parts = fastArray(s, part)
			}
		case "metadata":
			if s.once(&seen, 4) {
				*meta = s.metadata()
			}
		case "extensions":
			if s.once(&seen, 5) {
				*ext = s.strings()
			}
		default:
			s.unknown(key, fields)
		}
	})
}

// part decodes a v1.0 part as Part.UnmarshalJSON does, for parts without
// raw bytes; anything else is left to Part.UnmarshalJSON.
func (s *fastScan) part(p *Part) {
	var (
		seen                uint64
		text, url           *string
		data                json.RawMessage
		meta                Metadata
		filename, mediaType string
	)
	s.object(func(key []byte) {
		switch string(key) {
		case "text":
			s.strPtrOnce(&seen, 0, &text)
		case "url":
			s.strPtrOnce(&seen, 1, &url)
		case "data":
			s.rawOnce(&seen, 2, &data)
		case "metadata":
			s.metadataOnce(&seen, 3, &meta)
		case "filename":
			s.strOnce(&seen, 4, &filename)
		case "mediaType":
			s.strOnce(&seen, 5, &mediaType)
		default:
			s.unknown(key, fieldsPart) // "raw" included: give up
		}
	})
	*p = Part{Metadata: meta, Filename: filename, MediaType: mediaType}
	n := 0
	if text != nil {
		n++
		p.Kind, p.Text = PartText, *text
	}
	if url != nil {
		n++
		p.Kind, p.URL = PartURL, *url
	}
	if data != nil {
		n++
		p.Kind, p.Data = PartData, data
	}
	if n != 1 {
		s.bad = true // Part.UnmarshalJSON's error
	}
}

func (s *fastScan) statusUpdate() *TaskStatusUpdateEvent {
	u := &TaskStatusUpdateEvent{}
	var seen uint64
	s.object(func(key []byte) {
		switch string(key) {
		case "taskId":
			if s.once(&seen, 0) {
				u.TaskID = s.str()
			}
		case "contextId":
			if s.once(&seen, 1) {
				u.ContextID = s.str()
			}
		case "status":
			if s.once(&seen, 2) {
				s.status(&u.Status)
			}
		case "metadata":
			if s.once(&seen, 3) {
				u.Metadata = s.metadata()
			}
		case "final":
			if s.once(&seen, 4) {
				u.Final = s.boolean()
			}
		default:
			s.unknown(key, fieldsStatusUpdate)
		}
	})
	return u
}

func (s *fastScan) artifactUpdate() *TaskArtifactUpdateEvent {
	u := &TaskArtifactUpdateEvent{}
	var seen uint64
	s.object(func(key []byte) {
		switch string(key) {
		case "taskId":
			if s.once(&seen, 0) {
				u.TaskID = s.str()
			}
		case "contextId":
			if s.once(&seen, 1) {
				u.ContextID = s.str()
			}
		case "artifact":
			if s.once(&seen, 2) {
				s.artifact(&u.Artifact)
			}
		case "append":
			if s.once(&seen, 3) {
				u.Append = s.boolean()
			}
		case "lastChunk":
			if s.once(&seen, 4) {
				u.LastChunk = s.boolean()
			}
		case "metadata":
			if s.once(&seen, 5) {
				u.Metadata = s.metadata()
			}
		default:
			s.unknown(key, fieldsArtifactUpdate)
		}
	})
	return u
}

// fastStreamEventV03 decodes a v0.3 stream event into an EventV03, as
// encoding/json would, and maps it to v1.0; or returns false (see above).
func fastStreamEventV03(b []byte) (*StreamResponse, bool) {
	s := fastScan{b: b}
	var e EventV03
	version, result := false, false
	var seen uint64
	s.object(func(key []byte) {
		switch string(key) {
		case "jsonrpc":
			if s.once(&seen, 0) {
				version = s.str() == "2.0"
			}
		case "id":
			if s.once(&seen, 1) {
				s.skip(0)
			}
		case "result":
			if s.once(&seen, 2) {
				result = true
				s.eventV03(&e)
			}
		default:
			s.unknown(key, fieldsEnvelopeV03)
		}
	})
	if !s.end() || !version || !result {
		return nil, false
	}
	ev, err := EventFromV03(&e)
	if err != nil {
		return nil, false
	}
	return ev, true
}

func (s *fastScan) eventV03(e *EventV03) {
	var seen uint64
	s.object(func(key []byte) {
		if !s.eventV03Member(e, string(key), &seen) {
			s.unknown(key, fieldsEventV03)
		}
	})
}

// eventV03Member decodes a member of a v0.3 message or task, or passes
// the key on to eventV03Update; false: the key is no member of EventV03.
func (s *fastScan) eventV03Member(e *EventV03, k string, seen *uint64) bool {
	switch k {
	case "kind":
		s.strOnce(seen, 0, &e.Kind)
	case "id":
		s.strOnce(seen, 1, &e.ID)
	case "messageId":
		s.strOnce(seen, 2, &e.MessageID)
	case "role":
		s.strOnce(seen, 3, &e.Role)
	case "parts":
		fastArrayOnce(s, seen, 4, &e.Parts, s.partV03)
	case "extensions":
		s.stringsOnce(seen, 5, &e.Extensions)
	case "referenceTaskIds":
		s.stringsOnce(seen, 6, &e.ReferenceTaskIDs)
	case "history":
		fastArrayOnce(s, seen, 7, &e.History, s.messageV03)
	case "artifacts":
		fastArrayOnce(s, seen, 8, &e.Artifacts, s.artifactV03)
	case "taskId":
		s.strOnce(seen, 9, &e.TaskID)
	case "contextId":
		s.strOnce(seen, 10, &e.ContextID)
	case "metadata":
		s.metadataOnce(seen, 16, &e.Metadata)
	default:
		return s.eventV03Update(e, k, seen)
	}
	return true
}

// eventV03Update decodes a member of a v0.3 status or artifact update;
// false: the key is no member of EventV03.
func (s *fastScan) eventV03Update(e *EventV03, k string, seen *uint64) bool {
	switch k {
	case "status":
		if s.once(seen, 11) {
			e.Status = fastObject(s, s.statusV03)
		}
	case "final":
		s.boolOnce(seen, 12, &e.Final)
	case "artifact":
		if s.once(seen, 13) {
			e.Artifact = fastObject(s, s.artifactV03)
		}
	case "append":
		s.boolOnce(seen, 14, &e.Append)
	case "lastChunk":
		s.boolOnce(seen, 15, &e.LastChunk)
	default:
		return false
	}
	return true
}

func (s *fastScan) statusV03(st *TaskStatusV03) {
	var seen uint64
	s.object(func(key []byte) {
		switch string(key) {
		case "state":
			if s.once(&seen, 0) {
				st.State = s.str()
			}
		case "message":
			if s.once(&seen, 1) {
				if s.peek() != '{' {
					s.bad = true
					return
				}
				st.Message = &MessageV03{}
				s.messageV03(st.Message)
			}
		case "timestamp":
			if s.once(&seen, 2) {
				st.Timestamp = s.str()
			}
		default:
			s.unknown(key, fieldsStatusV03)
		}
	})
}

func (s *fastScan) messageV03(m *MessageV03) {
	fastMessage(s, s.partV03, fieldsMessageV03, &m.Kind, func(r string) { m.Role = r },
		&m.MessageID, &m.ContextID, &m.TaskID, &m.Parts, &m.Metadata, &m.Extensions, &m.ReferenceTaskIDs)
}

func (s *fastScan) artifactV03(a *ArtifactV03) {
	fastArtifact(s, s.partV03, fieldsArtifactV03, &a.ArtifactID, &a.Name, &a.Description, &a.Parts, &a.Metadata, &a.Extensions)
}

func (s *fastScan) partV03(p *PartV03) {
	var seen uint64
	s.object(func(key []byte) {
		switch string(key) {
		case "kind":
			if s.once(&seen, 0) {
				p.Kind = s.str()
			}
		case "text":
			if s.once(&seen, 1) {
				p.Text = s.strPtr()
			}
		case "file":
			if s.once(&seen, 2) {
				if s.peek() != '{' {
					s.bad = true
					return
				}
				p.File = &FileV03{}
				s.fileV03(p.File)
			}
		case "data":
			if s.once(&seen, 3) {
				p.Data = s.raw()
			}
		case "metadata":
			if s.once(&seen, 4) {
				p.Metadata = s.metadata()
			}
		default:
			s.unknown(key, fieldsPartV03)
		}
	})
}

func (s *fastScan) fileV03(f *FileV03) {
	var seen uint64
	s.object(func(key []byte) {
		switch string(key) {
		case "bytes":
			if s.once(&seen, 0) {
				f.Bytes = s.str()
			}
		case "uri":
			if s.once(&seen, 1) {
				f.URI = s.str()
			}
		case "mimeType":
			if s.once(&seen, 2) {
				f.MimeType = s.str()
			}
		case "name":
			if s.once(&seen, 3) {
				f.Name = s.str()
			}
		default:
			s.unknown(key, fieldsFileV03)
		}
	})
}
