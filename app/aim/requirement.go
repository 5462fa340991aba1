// Package aim holds the AIM additions to A2A v1.0 (docs/aim-extension.md):
// for now the requirements of §1, which a task raises when it needs the
// user's answer or approval and which the client answers with ContinueTask.
package aim

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gowebpki/jcs"

	"aimdesk/app/a2a"
)

// RequirementsExtension is the URI an agent lists in
// capabilities.extensions to say it raises requirements answered with
// ContinueTask (the AIM dialect).
const RequirementsExtension = "urn:aim:a2a:requirements:v1"

// RequirementMediaType tags the data part of a status message that carries
// a requirement.
const RequirementMediaType = "application/vnd.aim.requirement+json"

// DigestPrefix starts every actionDigest.
const DigestPrefix = "sha256:"

// Sentinels.
var (
	// ErrNoRequirement: the message carries no requirement data part.
	ErrNoRequirement = errors.New("aim: the message carries no requirement")
	// ErrBadRequirement: a requirement data part does not decode or misses
	// a required field.
	ErrBadRequirement = errors.New("aim: malformed requirement")
	// ErrBadAction: the action is not a JSON object that RFC 8785 can
	// canonicalize (for example it repeats a key).
	ErrBadAction = errors.New("aim: the action cannot be canonicalized")
	// ErrDigestMismatch: actionDigest is not the digest of the action.
	ErrDigestMismatch = errors.New("aim: the action digest does not match the action")
)

// RequirementKind says what a requirement asks for, with the wire spelling.
// Unknown values are kept as received.
type RequirementKind string

// Requirement kinds.
const (
	KindConfirmation RequirementKind = "confirmation"
	KindInput        RequirementKind = "input"
)

func (k RequirementKind) String() string { return string(k) }

// Risk is how much harm a confirmed action can do, with the wire spelling.
type Risk string

// Risks.
const (
	RiskLow    Risk = "low"
	RiskMedium Risk = "medium"
	RiskHigh   Risk = "high"
)

func (r Risk) String() string { return string(r) }

// Decision is the user's answer to a confirmation.
type Decision string

// Decisions.
const (
	DecisionApprove Decision = "approve"
	DecisionReject  Decision = "reject"
)

func (d Decision) String() string { return string(d) }

// Requirement is what a task in TASK_STATE_INPUT_REQUIRED or
// TASK_STATE_AUTH_REQUIRED waits for (docs/aim-extension.md §1).
type Requirement struct {
	RequirementID string          `json:"requirementId"`
	Kind          RequirementKind `json:"kind"`
	// Version starts at 1 and grows whenever the agent changes the plan;
	// ContinueTask's expectedVersion must equal it.
	Version int64  `json:"version"`
	Title   string `json:"title,omitempty"`
	Summary string `json:"summary,omitempty"` // short Markdown
	Risk    Risk   `json:"risk,omitempty"`
	// Action is the exact operation, kept as the bytes received: the digest
	// is computed over them.
	Action       json.RawMessage `json:"action,omitempty"`
	ActionDigest string          `json:"actionDigest,omitempty"`
	ExpiresAt    *time.Time      `json:"expiresAt,omitempty"`
	// InputSchema is an optional JSON Schema for the answer to kind=input.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// Expired reports whether the requirement has an expiry at or before now.
func (r *Requirement) Expired(now time.Time) bool {
	return r.ExpiresAt != nil && !now.Before(*r.ExpiresAt)
}

// VerifyDigest recomputes the digest of r.Action and compares it with
// r.ActionDigest. It returns ErrBadAction (wrapped) when the action cannot
// be canonicalized and ErrDigestMismatch when the digests differ.
func (r *Requirement) VerifyDigest() error {
	d, err := Digest(r.Action)
	if err != nil {
		return err
	}
	if d != r.ActionDigest {
		return fmt.Errorf("%w: the action hashes to %s, the agent sent %s", ErrDigestMismatch, d, r.ActionDigest)
	}
	return nil
}

// Digest returns "sha256:" + hex(SHA-256(JCS(action))), JCS being the RFC
// 8785 canonical form of the action object exactly as received.
func Digest(action json.RawMessage) (string, error) {
	trimmed := bytes.TrimSpace(action)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return "", fmt.Errorf("%w: the action is not a JSON object", ErrBadAction)
	}
	canon, err := jcs.Transform(trimmed)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadAction, err)
	}
	sum := sha256.Sum256(canon)
	return DigestPrefix + hex.EncodeToString(sum[:]), nil
}

// requirementData is the data of a requirement part.
type requirementData struct {
	Requirement *Requirement `json:"requirement"`
}

// Part returns the data part that carries r in a status message.
func (r *Requirement) Part() (a2a.Part, error) {
	p, err := a2a.DataPart(requirementData{Requirement: r}, RequirementMediaType)
	if err != nil {
		return a2a.Part{}, fmt.Errorf("aim: requirement part: %w", err)
	}
	return p, nil
}

// FindRequirement returns the requirement carried by a data part of m with
// media type RequirementMediaType (a task's status.message). It returns
// ErrNoRequirement when there is none and ErrBadRequirement (wrapped) when
// the part does not decode or lacks requirementId, kind or version. The
// digest is not checked here: call VerifyDigest.
func FindRequirement(m *a2a.Message) (*Requirement, error) {
	if m == nil {
		return nil, ErrNoRequirement
	}
	for i, p := range m.Parts {
		if p.Kind != a2a.PartData || p.MediaType != RequirementMediaType {
			continue
		}
		var d requirementData
		if err := json.Unmarshal(p.Data, &d); err != nil {
			return nil, fmt.Errorf("%w: parts[%d]: %w", ErrBadRequirement, i, err)
		}
		r := d.Requirement
		switch {
		case r == nil:
			return nil, fmt.Errorf("%w: parts[%d] has no \"requirement\" object", ErrBadRequirement, i)
		case r.RequirementID == "":
			return nil, fmt.Errorf("%w: parts[%d] has no requirementId", ErrBadRequirement, i)
		case r.Kind == "":
			return nil, fmt.Errorf("%w: parts[%d] has no kind", ErrBadRequirement, i)
		case r.Version < 0:
			return nil, fmt.Errorf("%w: parts[%d] has a negative version", ErrBadRequirement, i)
		}
		return r, nil
	}
	return nil, ErrNoRequirement
}

// ConfirmationAnswer is the data of the part that answers a confirmation.
type ConfirmationAnswer struct {
	Decision Decision `json:"decision"`
	Comment  string   `json:"comment,omitempty"`
}
