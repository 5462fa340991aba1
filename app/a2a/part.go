package a2a

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// PartKind says which content a Part carries.
type PartKind string

// Part kinds, named after their v1.0 JSON field.
const (
	PartText PartKind = "text"
	PartRaw  PartKind = "raw"
	PartURL  PartKind = "url"
	PartData PartKind = "data"
)

// Part is one piece of content: exactly one of text, raw bytes, a URL or
// JSON data, with an optional media type, file name and metadata.
type Part struct {
	Kind      PartKind
	Text      string
	Raw       []byte
	URL       string
	Data      json.RawMessage
	MediaType string
	Filename  string
	Metadata  Metadata
}

// TextPart returns a text part.
func TextPart(s string) Part { return Part{Kind: PartText, Text: s} }

// DataPart returns a data part holding v marshalled to JSON.
func DataPart(v any, mediaType string) (Part, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Part{}, fmt.Errorf("a2a: data part: %w", err)
	}
	return Part{Kind: PartData, Data: b, MediaType: mediaType}, nil
}

// FilePart returns a raw part carrying a file's bytes.
func FilePart(name, mediaType string, raw []byte) Part {
	return Part{Kind: PartRaw, Raw: raw, MediaType: mediaType, Filename: name}
}

type partJSON struct {
	Text      *string         `json:"text,omitempty"`
	Raw       *[]byte         `json:"raw,omitempty"` // a pointer, so that an empty file is written as ""
	URL       *string         `json:"url,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	Metadata  Metadata        `json:"metadata,omitempty"`
	Filename  string          `json:"filename,omitempty"`
	MediaType string          `json:"mediaType,omitempty"`
}

// MarshalJSON writes the one content field that Kind names.
func (p Part) MarshalJSON() ([]byte, error) {
	j := partJSON{Metadata: p.Metadata, Filename: p.Filename, MediaType: p.MediaType}
	switch p.Kind {
	case PartText:
		j.Text = &p.Text
	case PartRaw:
		raw := p.Raw
		if raw == nil {
			raw = []byte{} // "raw": "" (nil would be written as null)
		}
		j.Raw = &raw
	case PartURL:
		j.URL = &p.URL
	case PartData:
		j.Data = p.Data
		if len(j.Data) == 0 {
			j.Data = json.RawMessage("null")
		}
	default:
		return nil, fmt.Errorf("a2a: part kind %q is not one of text, raw, url, data", p.Kind)
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads a v1.0 part and sets Kind; a part with none or more
// than one of text, raw, url and data is an error.
func (p *Part) UnmarshalJSON(b []byte) error {
	var j partJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	n := 0
	*p = Part{Metadata: j.Metadata, Filename: j.Filename, MediaType: j.MediaType}
	if j.Text != nil {
		n++
		p.Kind, p.Text = PartText, *j.Text
	}
	if j.Raw != nil {
		n++
		p.Kind, p.Raw = PartRaw, *j.Raw
	}
	if j.URL != nil {
		n++
		p.Kind, p.URL = PartURL, *j.URL
	}
	// A present "data": null decodes to the literal null, which still counts.
	if j.Data != nil {
		n++
		p.Kind, p.Data = PartData, j.Data
	}
	if n != 1 {
		return fmt.Errorf("a2a: part must have exactly one of text, raw, url, data (has %d)", n)
	}
	return nil
}

// IsJSONObject reports whether the data part holds a JSON object.
func (p Part) IsJSONObject() bool {
	d := bytes.TrimLeft(p.Data, " \t\r\n")
	return len(d) > 0 && d[0] == '{'
}
