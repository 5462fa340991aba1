// Package wireschema validates JSON against the wire contracts aimdesk was
// given (copies of ../shared/schemas, embedded so the binary and the
// reference agent can validate at run time). A test checks that the copies
// are byte-identical to the originals.
//
// # Concurrency
//
// A *Set is immutable after New and safe for concurrent use.
package wireschema

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

//go:embed schemas/*.json
var files embed.FS

// Names of the schemas, as the files are called.
const (
	AIMRequest          = "aim-a2a-v1-request.schema.json"
	V1SendMessage       = "a2a-v1-send-message-request.schema.json"
	V03                 = "a2a-v0.3.schema.json"
	A2UICapabilitiesV10 = "a2ui-v1.0-client-capabilities.schema.json"
)

// ErrInvalid matches every *ValidationError.
var ErrInvalid = errors.New("wireschema: document does not match its schema")

// ValidationError says which schema rejected a document and why, in the
// validator's own words.
type ValidationError struct {
	Schema string // file name of the schema
	Detail string // the validator's message, with instance locations
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("does not match %s: %s", e.Schema, e.Detail)
}

// Is matches ErrInvalid.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

// Set holds the compiled schemas.
type Set struct {
	aim, v1send, v03, v03envelope, caps *jsonschema.Schema
}

// New compiles the embedded schemas.
func New() (*Set, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	ids := map[string]string{}
	for _, name := range []string{AIMRequest, V1SendMessage, V03, A2UICapabilitiesV10} {
		b, err := files.ReadFile("schemas/" + name)
		if err != nil {
			return nil, fmt.Errorf("wireschema: %w", err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("wireschema: %s: %w", name, err)
		}
		loc := "file:///schemas/" + name
		if err := c.AddResource(loc, doc); err != nil {
			return nil, fmt.Errorf("wireschema: %s: %w", name, err)
		}
		ids[name] = loc
	}
	var s Set
	var err error
	if s.aim, err = c.Compile(ids[AIMRequest]); err != nil {
		return nil, fmt.Errorf("wireschema: %w", err)
	}
	if s.v1send, err = c.Compile(ids[V1SendMessage]); err != nil {
		return nil, fmt.Errorf("wireschema: %w", err)
	}
	if s.v03, err = c.Compile(ids[V03] + "#/definitions/A2ARequest"); err != nil {
		return nil, fmt.Errorf("wireschema: %w", err)
	}
	if s.v03envelope, err = c.Compile(ids[V03] + "#/definitions/JSONRPCRequest"); err != nil {
		return nil, fmt.Errorf("wireschema: %w", err)
	}
	if s.caps, err = c.Compile(ids[A2UICapabilitiesV10]); err != nil {
		return nil, fmt.Errorf("wireschema: %w", err)
	}
	return &s, nil
}

// File returns the embedded bytes of a schema.
func File(name string) ([]byte, error) { return files.ReadFile("schemas/" + name) }

func validate(s *jsonschema.Schema, name string, doc []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return &ValidationError{Schema: name, Detail: "not JSON: " + err.Error()}
	}
	if err := s.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return &ValidationError{Schema: name, Detail: flatten(ve)}
		}
		return &ValidationError{Schema: name, Detail: err.Error()}
	}
	return nil
}

// flatten renders the leaf causes of a validation error on one line each.
func flatten(ve *jsonschema.ValidationError) string {
	printer := message.NewPrinter(language.English)
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			leaves = append(leaves, fmt.Sprintf("at %s: %s", loc, e.ErrorKind.LocalizedString(printer)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(leaves) == 0 {
		return ve.Error()
	}
	return strings.Join(leaves, "; ")
}

// AIMRequest validates a whole JSON-RPC request to an AIM agent.
func (s *Set) AIMRequest(req []byte) error { return validate(s.aim, AIMRequest, req) }

// V1SendMessageParams validates the params of a generic A2A v1.0 SendMessage.
func (s *Set) V1SendMessageParams(params []byte) error {
	return validate(s.v1send, V1SendMessage, params)
}

// V03Request validates a whole JSON-RPC request against v0.3's A2ARequest.
// The schema we were given leaves agent/getAuthenticatedExtendedCard out of
// that union (v0.3 defines the method in prose only), so a request for it
// is checked against the schema's generic JSONRPCRequest instead.
func (s *Set) V03Request(req []byte) error {
	var head struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(req, &head) == nil && head.Method == V03ExtendedCardMethod {
		return validate(s.v03envelope, V03+"#/definitions/JSONRPCRequest", req)
	}
	return validate(s.v03, V03, req)
}

// V03ExtendedCardMethod is the v0.3 method missing from A2ARequest.
const V03ExtendedCardMethod = "agent/getAuthenticatedExtendedCard"

// A2UICapabilities validates an a2uiClientCapabilities object.
func (s *Set) A2UICapabilities(doc []byte) error {
	return validate(s.caps, A2UICapabilitiesV10, doc)
}
