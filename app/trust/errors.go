package trust

import (
	"errors"
	"fmt"
)

// Reasons a signed card is invalid; Result.Err matches one with errors.Is.
var (
	ErrMalformedCard    = errors.New("trust: the card is not JSON a signature can be checked over")
	ErrBadHeader        = errors.New("trust: the signature's protected header is unusable")
	ErrAlgorithm        = errors.New("trust: the signature uses an algorithm aimdesk does not accept")
	ErrNoKey            = errors.New("trust: no key to check the signature with (no jku and no pinned key)")
	ErrForeignJKU       = errors.New("trust: the signature's key set (jku) is not on the card's own origin")
	ErrJWKS             = errors.New("trust: the key set could not be read")
	ErrUnknownKey       = errors.New("trust: the signature's key is not in the key set")
	ErrBadSignature     = errors.New("trust: the signature does not match the card")
	ErrTooManySignature = errors.New("trust: the card has too many signatures")
)

// Bounds a hostile agent can break; *BoundError matches them and ErrBound.
var (
	ErrBound         = errors.New("trust: the agent's answer breaks a safety bound")
	ErrTooDeep       = errors.New("trust: JSON nested too deeply")
	ErrInvalidUTF8   = errors.New("trust: text is not valid UTF-8")
	ErrStringTooLong = errors.New("trust: a JSON string is too long")
	ErrTooSlow       = errors.New("trust: the agent is sending too slowly")
)

// BoundError says which bound an agent's answer broke, and where.
type BoundError struct {
	Kind   error // ErrTooDeep, ErrInvalidUTF8, ErrStringTooLong or ErrTooSlow
	Limit  int64 // the bound (levels, bytes or milliseconds)
	Offset int64 // byte offset in the body (or the event), -1 when not known
}

func (e *BoundError) Error() string {
	switch e.Kind {
	case ErrTooDeep:
		return fmt.Sprintf("trust: the agent's JSON is nested deeper than %d levels (at byte %d)", e.Limit, e.Offset)
	case ErrInvalidUTF8:
		return fmt.Sprintf("trust: the agent's answer is not valid UTF-8 (at byte %d)", e.Offset)
	case ErrStringTooLong:
		return fmt.Sprintf("trust: the agent's answer holds a string over %d bytes (at byte %d)", e.Limit, e.Offset)
	case ErrTooSlow:
		return fmt.Sprintf("trust: the agent took more than %d ms to send one answer or event", e.Limit)
	}
	return "trust: the agent's answer breaks a safety bound"
}

// Is matches the kind and ErrBound.
func (e *BoundError) Is(target error) bool { return target == ErrBound || target == e.Kind }
