package aim

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"aimdesk/app/a2a"
)

func TestDigest(t *testing.T) {
	tests := []struct {
		name    string
		action  string
		want    string
		wantErr error
	}{
		{"sorted keys", `{"b":[true,null,"x"],"a":1}`, "sha256:eca8cfb31ab74533e1eb2f4c74d2d55dfe3c79ac704787e54be8647ea7777eb1", nil},
		{"whitespace ignored", " {\n \"a\" : 1, \"b\":[true, null, \"x\"]}\n", "sha256:eca8cfb31ab74533e1eb2f4c74d2d55dfe3c79ac704787e54be8647ea7777eb1", nil},
		{"numbers and escapes canonicalized", `{"s":"\u00e9","n":1e2}`, "sha256:cafb1ce5fa000587e769b80f413310b11f04a23043eb4598d3d7166fa15e0a9f", nil},
		{"duplicate keys", `{"a":1,"a":2}`, "", ErrBadAction},
		{"not an object", `[1,2]`, "", ErrBadAction},
		{"empty", ``, "", ErrBadAction},
		{"broken JSON", `{"a":`, "", ErrBadAction},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Digest(json.RawMessage(tt.action))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Digest error = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("Digest = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRequirementRoundTrip(t *testing.T) {
	exp := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	action := json.RawMessage(`{"op":"delete","ids":[1,2,3]}`)
	d, err := Digest(action)
	if err != nil {
		t.Fatal(err)
	}
	r := &Requirement{
		RequirementID: "5f0c7a4e-8d8c-4b8e-9d59-1f6c2d0b9a11", Kind: KindConfirmation, Version: 1,
		Title: "Delete 3 events", Risk: RiskHigh, Action: action, ActionDigest: d, ExpiresAt: &exp,
	}
	p, err := r.Part()
	if err != nil {
		t.Fatal(err)
	}
	msg := &a2a.Message{MessageID: "m", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("please confirm"), p}}
	raw, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	var back a2a.Message
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	got, err := FindRequirement(&back)
	if err != nil {
		t.Fatal(err)
	}
	if got.RequirementID != r.RequirementID || got.Version != 1 || got.Kind != KindConfirmation || got.Risk != RiskHigh {
		t.Errorf("FindRequirement = %+v", got)
	}
	if string(got.Action) != string(action) {
		t.Errorf("action bytes changed: %s", got.Action)
	}
	if err := got.VerifyDigest(); err != nil {
		t.Errorf("VerifyDigest: %v", err)
	}
	if got.Expired(exp.Add(-time.Second)) || !got.Expired(exp) {
		t.Error("Expired is wrong around expiresAt")
	}
	got.ActionDigest = DigestPrefix + "00" + d[len(DigestPrefix)+2:]
	if err := got.VerifyDigest(); !errors.Is(err, ErrDigestMismatch) {
		t.Errorf("VerifyDigest on a wrong digest = %v, want ErrDigestMismatch", err)
	}
}

func TestFindRequirement(t *testing.T) {
	data := func(s string) a2a.Part {
		return a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(s), MediaType: RequirementMediaType}
	}
	tests := []struct {
		name    string
		msg     *a2a.Message
		wantErr error
	}{
		{"nil message", nil, ErrNoRequirement},
		{"text only", &a2a.Message{Parts: []a2a.Part{a2a.TextPart("hi")}}, ErrNoRequirement},
		{"other media type", &a2a.Message{Parts: []a2a.Part{{Kind: a2a.PartData, Data: json.RawMessage(`{"requirement":{}}`), MediaType: "application/json"}}}, ErrNoRequirement},
		{"no requirement object", &a2a.Message{Parts: []a2a.Part{data(`{"x":1}`)}}, ErrBadRequirement},
		{"no id", &a2a.Message{Parts: []a2a.Part{data(`{"requirement":{"kind":"input","version":1}}`)}}, ErrBadRequirement},
		{"not an object", &a2a.Message{Parts: []a2a.Part{data(`[1]`)}}, ErrBadRequirement},
		{"input", &a2a.Message{Parts: []a2a.Part{data(`{"requirement":{"requirementId":"r","kind":"input","version":3}}`)}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FindRequirement(tt.msg)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("FindRequirement error = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestEnumStrings(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"confirmation", KindConfirmation.String(), "confirmation"},
		{"input", KindInput.String(), "input"},
		{"unknown kind kept", RequirementKind("payment").String(), "payment"},
		{"risk", RiskMedium.String(), "medium"},
		{"decision", DecisionReject.String(), "reject"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}
