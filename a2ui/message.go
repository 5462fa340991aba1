package a2ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"aimdesk/a2ui/catalog"
)

// Version is an A2UI protocol version ("v0.8", "v0.9", "v0.9.1", "v1.0").
type Version = catalog.Version

// Protocol versions.
const (
	V08  = catalog.V08
	V09  = catalog.V09
	V091 = catalog.V091
	V10  = catalog.V10
)

// Kind is the type of an agent-to-renderer message.
type Kind string

// Message kinds of every version.
const (
	KindBeginRendering        Kind = "beginRendering"  // v0.8
	KindSurfaceUpdate         Kind = "surfaceUpdate"   // v0.8
	KindDataModelUpdate       Kind = "dataModelUpdate" // v0.8
	KindCreateSurface         Kind = "createSurface"
	KindUpdateComponents      Kind = "updateComponents"
	KindUpdateDataModel       Kind = "updateDataModel"
	KindDeleteSurface         Kind = "deleteSurface"
	KindCallRendererFunction  Kind = "callRendererFunction"  // v1.0
	KindAgentFunctionResponse Kind = "agentFunctionResponse" // v1.0
)

var kindsByVersion = map[Version][]Kind{
	V08: {KindBeginRendering, KindSurfaceUpdate, KindDataModelUpdate, KindDeleteSurface},
	V09: {KindCreateSurface, KindUpdateComponents, KindUpdateDataModel, KindDeleteSurface},
	V10: {KindCreateSurface, KindUpdateComponents, KindUpdateDataModel, KindDeleteSurface, KindCallRendererFunction, KindAgentFunctionResponse},
}

var allKinds = []Kind{
	KindBeginRendering, KindSurfaceUpdate, KindDataModelUpdate, KindCreateSurface, KindUpdateComponents,
	KindUpdateDataModel, KindDeleteSurface, KindCallRendererFunction, KindAgentFunctionResponse,
}

// Message is one decoded agent-to-renderer message, normalised across
// versions.
type Message struct {
	Version   Version
	Kind      Kind
	SurfaceID string
	// Raw is the message as received.
	Raw map[string]any
	// Body is the object under the kind key.
	Body map[string]any
}

// decodeJSON decodes with UseNumber off (float64 numbers).
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		// JSON Lines: several objects in a row.
		list := []any{v}
		for dec.More() {
			var n any
			if err := dec.Decode(&n); err != nil {
				return nil, err
			}
			list = append(list, n)
		}
		return list, nil
	}
	return v, nil
}

// SplitMessages turns a payload into its list of messages: one message, an
// array, {"messages": […]}, or JSON Lines.
func SplitMessages(v any) ([]any, error) {
	switch x := v.(type) {
	case []any:
		var out []any
		for _, e := range x {
			// Nested wrappers inside arrays are flattened.
			if m, ok := e.(map[string]any); ok && isWrapper(m) {
				inner, err := SplitMessages(m)
				if err != nil {
					return nil, err
				}
				out = append(out, inner...)
				continue
			}
			out = append(out, e)
		}
		return out, nil
	case map[string]any:
		if isWrapper(x) {
			msgs, _ := x["messages"].([]any)
			return SplitMessages(msgs)
		}
		return []any{x}, nil
	case nil:
		return nil, fmt.Errorf("%w: empty payload", ErrInvalidMessage)
	}
	return nil, fmt.Errorf("%w: payload is %T, want an object or an array", ErrInvalidMessage, v)
}

func isWrapper(m map[string]any) bool {
	_, ok := m["messages"].([]any)
	if !ok {
		return false
	}
	for k := range m {
		if k != "messages" && k != "version" {
			return false
		}
	}
	return true
}

// DecodeMessage classifies one raw message. The version comes from its
// "version" field; messages without one are v0.8 when they use a v0.8 kind.
func DecodeMessage(raw any, index int) (*Message, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, msgErr(index, "", "", "message %d is %T, want an object", index, raw)
	}
	kind, err := messageKind(m, index)
	if err != nil {
		return nil, err
	}
	ver, err := messageVersion(m, kind, index)
	if err != nil {
		return nil, err
	}
	if !kindAllowed(ver, kind) {
		e := msgErr(index, "", "/"+string(kind), "%s is not a %s message", kind, ver)
		e.Err = ErrUnknownMessage
		return nil, e
	}
	body, ok := m[string(kind)].(map[string]any)
	if !ok {
		return nil, msgErr(index, "", "/"+string(kind), "%s must be an object", kind)
	}
	msg := &Message{Version: ver, Kind: kind, Raw: m, Body: body}
	if kind != KindCallRendererFunction && kind != KindAgentFunctionResponse {
		sid, ok := body["surfaceId"].(string)
		if !ok || sid == "" {
			return nil, msgErr(index, "", "/"+string(kind)+"/surfaceId", "surfaceId must be a non-empty string")
		}
		msg.SurfaceID = sid
	}
	return msg, nil
}

// messageKind is the one message type a message holds.
func messageKind(m map[string]any, index int) (Kind, error) {
	var found []Kind
	for _, k := range allKinds {
		if _, ok := m[string(k)]; ok {
			found = append(found, k)
		}
	}
	if len(found) == 0 {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		e := msgErr(index, "", "", "no known message type among keys %v", keys)
		e.Err = ErrUnknownMessage
		return "", e
	}
	if len(found) > 1 {
		e := msgErr(index, "", "/"+string(found[1]), "Message contains multiple update types (%s and %s). Message contains multiple conflicting update actions; send one per message.", found[0], found[1])
		e.Err = ErrMultipleActions
		return "", e
	}
	return found[0], nil
}

// messageVersion is a message's version; without one, v0.8 for the kinds
// v0.8 has.
func messageVersion(m map[string]any, kind Kind, index int) (Version, error) {
	var ver Version
	switch vv := m["version"].(type) {
	case string:
		ver = Version(vv)
		if !ver.Valid() {
			e := msgErr(index, "", "/version", "unsupported version %q", vv)
			e.Err = ErrUnsupportedVer
			return "", e
		}
	case nil:
		if _, has := m["version"]; has {
			return "", msgErr(index, "", "/version", "version is null")
		}
		switch kind {
		case KindBeginRendering, KindSurfaceUpdate, KindDataModelUpdate, KindDeleteSurface:
			ver = V08
		default:
			e := msgErr(index, "", "/version", "%s message without version", kind)
			return "", e
		}
	default:
		return "", msgErr(index, "", "/version", "version is %T, want a string", vv)
	}
	return ver, nil
}

func kindAllowed(v Version, k Kind) bool {
	for _, x := range kindsByVersion[v.Family()] {
		if x == k {
			return true
		}
	}
	return false
}

func msgErr(index int, surface, path, format string, a ...any) *ProtocolError {
	e := perr(CategoryValidation, CodeValidationFailed, ErrInvalidMessage, surface, path, format, a...)
	e.Index = index
	return e
}

// ParseMessages decodes a payload (bytes) into messages. Messages that fail
// to decode are reported in errs; the others are returned in order.
func ParseMessages(data []byte) (msgs []*Message, errs []error) {
	v, err := decodeJSON(data)
	if err != nil {
		return nil, []error{perr(CategoryValidation, CodeValidationFailed, ErrInvalidMessage, "", "", "invalid JSON: %v", err)}
	}
	return decodeAll(v)
}

func decodeAll(v any) (msgs []*Message, errs []error) {
	list, err := SplitMessages(v)
	if err != nil {
		return nil, []error{err}
	}
	for i, raw := range list {
		m, err := DecodeMessage(raw, i)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		msgs = append(msgs, m)
	}
	return msgs, errs
}

// MIME types of A2UI parts (both spellings agents use).
const (
	MIMEType    = "application/json+a2ui"
	MIMETypeAlt = "application/a2ui+json"
)

// IsA2UIMediaType reports whether a media type names A2UI JSON, ignoring
// case and parameters.
func IsA2UIMediaType(mt string) bool {
	mt = strings.ToLower(strings.TrimSpace(mt))
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = strings.TrimSpace(mt[:i])
	}
	return mt == MIMEType || mt == MIMETypeAlt
}

// Part is a transport part (an A2A DataPart or similar) that may carry A2UI.
// The MIME type may be in MediaType, MimeType or Metadata["mimeType"] (or
// "mediaType"); Data is the decoded JSON (one message, an array or a
// {"messages": […]} wrapper) or raw bytes / a string of JSON.
type Part struct {
	MediaType string
	MimeType  string
	Metadata  map[string]any
	Data      any
}

// IsA2UI reports whether the part is declared as A2UI.
func (p Part) IsA2UI() bool {
	for _, mt := range []string{p.MediaType, p.MimeType} {
		if IsA2UIMediaType(mt) {
			return true
		}
	}
	for _, k := range []string{"mimeType", "mediaType", "mime_type", "contentType"} {
		if s, ok := p.Metadata[k].(string); ok && IsA2UIMediaType(s) {
			return true
		}
	}
	return false
}

func (p Part) payload() (any, error) {
	switch d := p.Data.(type) {
	case []byte:
		return decodeJSON(d)
	case string:
		return decodeJSON([]byte(d))
	case json.RawMessage:
		return decodeJSON(d)
	}
	return p.Data, nil
}
