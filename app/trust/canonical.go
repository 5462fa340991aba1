package trust

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/gowebpki/jcs"
)

// CanonicalPayloads returns the payloads a card's signatures may have been
// computed over (A2A specification §8.4): the card as received without its
// top-level "signatures", canonicalized with RFC 8785 (JCS); and, when it
// differs, the same after removing the fields the protocol treats as unset
// (proto3 defaults of fields that are neither REQUIRED nor `optional`, such
// as "extensions": []), which §8.4.1 asks signers to drop. Both are
// computed from the exact received bytes; neither adds anything.
//
// A card with a repeated object key anywhere is refused: a signature
// checker and a parser that each keep a different copy would disagree on
// what was signed.
func CanonicalPayloads(raw []byte) ([][]byte, error) {
	if err := CheckJSON(raw, Limits{MaxDepth: 64}); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedCard, err)
	}
	if err := checkDuplicateKeys(raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedCard, err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedCard, err)
	}
	delete(top, "signatures")
	asReceived, err := canonical(top)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree map[string]any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedCard, err)
	}
	delete(tree, "signatures")
	stripDefaults(tree, agentCardFields)
	stripped, err := canonical(tree)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(stripped, asReceived) {
		return [][]byte{asReceived}, nil
	}
	return [][]byte{asReceived, stripped}, nil
}

func canonical(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedCard, err)
	}
	out, err := jcs.Transform(bytes.TrimSpace(buf.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("%w: canonicalize: %w", ErrMalformedCard, err)
	}
	return out, nil
}

var errDuplicateKey = errors.New("an object repeats a key")

// checkDuplicateKeys walks the JSON tokens and refuses a repeated key in
// any object.
func checkDuplicateKeys(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var stack []*keyFrame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var top *keyFrame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			stack = delimFrames(stack, top, t)
		case string:
			if err := top.str(t); err != nil {
				return err
			}
		default:
			top.afterValue()
		}
	}
}

// keyFrame is an open object or array of checkDuplicateKeys (nil: the top
// level).
type keyFrame struct {
	object bool
	keys   map[string]struct{}
	expect bool // the next string token is a key
}

// afterValue notes a value in f: in an object, a key comes next.
func (f *keyFrame) afterValue() {
	if f != nil && f.object {
		f.expect = true
	}
}

// str takes a string token in f: a key, refused if f has it already, or a
// value.
func (f *keyFrame) str(s string) error {
	if f == nil || !f.object || !f.expect {
		f.afterValue()
		return nil
	}
	if _, dup := f.keys[s]; dup {
		return fmt.Errorf("%w: %q", errDuplicateKey, s)
	}
	f.keys[s] = struct{}{}
	f.expect = false
	return nil
}

// delimFrames opens a frame for '{' or '[' (a value in top) and closes
// the innermost one for '}' or ']'.
func delimFrames(stack []*keyFrame, top *keyFrame, d json.Delim) []*keyFrame {
	switch d {
	case '{':
		top.afterValue()
		return append(stack, &keyFrame{object: true, keys: map[string]struct{}{}, expect: true})
	case '[':
		top.afterValue()
		return append(stack, &keyFrame{})
	}
	return stack[:len(stack)-1]
}

// fields describes one protobuf message of the agent card for default
// removal: which JSON fields are REQUIRED or proto3 `optional` (kept even
// at their default), which hold messages (kept when present, recursed
// into), and which are repeated or maps (dropped when empty). Fields not
// listed are scalars without presence (dropped at their default); fields
// unknown to the table are kept as received.
type fields struct {
	required map[string]bool
	optional map[string]bool
	message  map[string]*fields // singular message (or oneof member)
	repeated map[string]*fields // repeated; nil element type = scalars
	mapped   map[string]*fields // map<string, …>; nil value type = scalars
	verbatim map[string]bool    // google.protobuf.Struct / Value: kept as is
	scalars  map[string]bool
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// The AgentCard messages of the A2A v1.0 proto (specification/a2a.proto).
var (
	stringListFields      = &fields{repeated: map[string]*fields{"list": nil}}
	securityReqFields     = &fields{mapped: map[string]*fields{"schemes": stringListFields}}
	agentInterfaceFields  = &fields{required: set("url", "protocolBinding", "protocolVersion"), scalars: set("tenant")}
	agentProviderFields   = &fields{required: set("url", "organization")}
	agentExtensionFields  = &fields{scalars: set("uri", "description", "required"), verbatim: set("params")}
	agentCapabilityFields = &fields{
		optional: set("streaming", "pushNotifications", "extendedAgentCard", "skillQuery"),
		repeated: map[string]*fields{"extensions": agentExtensionFields},
	}
	agentSkillFields = &fields{
		required: set("id", "name", "description", "tags"),
		repeated: map[string]*fields{"examples": nil, "inputModes": nil, "outputModes": nil, "securityRequirements": securityReqFields},
	}
	authCodeFlowFields = &fields{required: set("authorizationUrl", "tokenUrl", "scopes"), scalars: set("refreshUrl", "pkceRequired")}
	clientCredFields   = &fields{required: set("tokenUrl", "scopes"), scalars: set("refreshUrl")}
	deviceCodeFields   = &fields{required: set("deviceAuthorizationUrl", "tokenUrl", "scopes"), scalars: set("refreshUrl")}
	implicitFields     = &fields{scalars: set("authorizationUrl", "refreshUrl"), mapped: map[string]*fields{"scopes": nil}}
	passwordFields     = &fields{scalars: set("tokenUrl", "refreshUrl"), mapped: map[string]*fields{"scopes": nil}}
	oauthFlowsFields   = &fields{message: map[string]*fields{
		"authorizationCode": authCodeFlowFields,
		"clientCredentials": clientCredFields, "implicit": implicitFields, "password": passwordFields, "deviceCode": deviceCodeFields,
	}}
	securitySchemeFields = &fields{message: map[string]*fields{
		"apiKeySecurityScheme":        {required: set("location", "name"), scalars: set("description")},
		"httpAuthSecurityScheme":      {required: set("scheme"), scalars: set("description", "bearerFormat")},
		"oauth2SecurityScheme":        {required: set("flows"), scalars: set("description", "oauth2MetadataUrl"), message: map[string]*fields{"flows": oauthFlowsFields}},
		"openIdConnectSecurityScheme": {required: set("openIdConnectUrl"), scalars: set("description")},
		"mtlsSecurityScheme":          {scalars: set("description")},
	}}
	agentCardFields = &fields{
		required: set("name", "description", "supportedInterfaces", "version", "capabilities", "defaultInputModes", "defaultOutputModes", "skills"),
		optional: set("documentationUrl", "iconUrl"),
		message:  map[string]*fields{"provider": agentProviderFields, "capabilities": agentCapabilityFields},
		repeated: map[string]*fields{
			"supportedInterfaces": agentInterfaceFields, "securityRequirements": securityReqFields,
			"defaultInputModes": nil, "defaultOutputModes": nil, "skills": agentSkillFields,
		},
		mapped: map[string]*fields{"securitySchemes": securitySchemeFields},
	}
)

func isDefaultScalar(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case json.Number:
		f, err := x.Float64()
		return err == nil && f == 0
	}
	return false
}

// stripDefaults removes, in place, the fields of obj that the protocol
// treats as unset.
func stripDefaults(obj map[string]any, f *fields) {
	for k, v := range obj {
		if f.unset(k, v) {
			delete(obj, k)
		}
	}
}

// unset reports whether field k of value v counts as unset (to remove),
// after removing the unset fields inside v.
func (f *fields) unset(k string, v any) bool {
	if f.verbatim[k] {
		return false
	}
	if v == nil {
		return !f.required[k] // JSON null: unset
	}
	if sub, ok := f.message[k]; ok {
		if m, ok := v.(map[string]any); ok && sub != nil {
			stripDefaults(m, sub)
		}
		return false
	}
	if elem, ok := f.repeated[k]; ok {
		return f.unsetList(k, v, elem)
	}
	if val, ok := f.mapped[k]; ok {
		return f.unsetMap(k, v, val)
	}
	if f.required[k] || f.optional[k] {
		return false
	}
	return f.scalars[k] && isDefaultScalar(v)
}

// unsetList is unset for a repeated field of elements elem (nil: scalars).
func (f *fields) unsetList(k string, v any, elem *fields) bool {
	arr, isArr := v.([]any)
	if isArr && len(arr) == 0 && !f.required[k] {
		return true
	}
	if elem != nil {
		for _, e := range arr {
			if m, ok := e.(map[string]any); ok {
				stripDefaults(m, elem)
			}
		}
	}
	return false
}

// unsetMap is unset for a map field of values val (nil: scalars).
func (f *fields) unsetMap(k string, v any, val *fields) bool {
	m, isMap := v.(map[string]any)
	if isMap && len(m) == 0 && !f.required[k] {
		return true
	}
	if val != nil {
		for _, e := range m {
			if mm, ok := e.(map[string]any); ok {
				stripDefaults(mm, val)
			}
		}
	}
	return false
}
