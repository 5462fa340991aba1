package aim

import (
	"encoding/json"
	"fmt"
)

// RequirementCheck is what an approval dialog needs to know about a
// requirement before it lets the user approve: the same checks the app
// applies to a ContinueTask requirement (§1), over the exact bytes received.
type RequirementCheck struct {
	// Requirement is the decoded requirement; nil when it does not decode.
	Requirement *Requirement
	// Computed is "sha256:…" of the RFC 8785 form of the action as
	// received, or "" when it cannot be computed.
	Computed string
	// Err is nil when the requirement may be approved as far as its bytes
	// go. Otherwise it wraps ErrBadRequirement (missing fields, not a
	// confirmation), ErrAmbiguousJSON (repeated key, bad UTF-8, lone
	// surrogate), ErrBadAction (not canonicalizable) or ErrDigestMismatch.
	// Expiry is not checked here: it depends on the clock.
	Err error
}

// OK reports whether the requirement passed every check.
func (c RequirementCheck) OK() bool { return c.Err == nil && c.Requirement != nil }

// CheckRequirement verifies a confirmation requirement given as the raw
// JSON object received from the agent ({"requirementId", "kind", "version",
// "action", "actionDigest", …}). It never trusts a re-encoding: the
// unambiguity check and the digest run over raw itself.
func CheckRequirement(raw json.RawMessage) RequirementCheck {
	var c RequirementCheck
	var r Requirement
	if err := json.Unmarshal(raw, &r); err != nil {
		c.Err = fmt.Errorf("%w: %w", ErrBadRequirement, err)
		return c
	}
	c.Requirement = &r
	c.Computed, _ = Digest(r.Action)
	switch {
	case r.RequirementID == "":
		c.Err = fmt.Errorf("%w: no requirementId", ErrBadRequirement)
	case r.Kind != KindConfirmation:
		c.Err = fmt.Errorf("%w: kind is %q, an operation needs a confirmation", ErrBadRequirement, r.Kind)
	case r.Version < 0:
		c.Err = fmt.Errorf("%w: negative version", ErrBadRequirement)
	}
	if c.Err != nil {
		return c
	}
	if err := CheckUnambiguous(raw); err != nil {
		c.Err = err
		return c
	}
	c.Err = r.VerifyDigest()
	return c
}

// VerifyOperation checks an operation's requirement (CheckRequirement over
// Operation.RawRequirement). An operation without a requirement fails with
// ErrBadRequirement.
func VerifyOperation(op *Operation) RequirementCheck {
	if op == nil || len(op.RawRequirement) == 0 {
		return RequirementCheck{Err: fmt.Errorf("%w: the operation carries no requirement", ErrBadRequirement)}
	}
	return CheckRequirement(op.RawRequirement)
}
