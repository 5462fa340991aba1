package functions

// Severity of a ValidationResult.
type Severity string

// Severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// ValidationResult is what validation functions return (v1.0
// validationResult); v0.9 checks read only Valid.
type ValidationResult struct {
	Valid    bool     `json:"valid"`
	Code     string   `json:"code,omitempty"`
	Message  string   `json:"message,omitempty"`
	Severity Severity `json:"severity,omitempty"`
}

// AsValidationResult interprets a function's return value as a
// ValidationResult: booleans, ValidationResult values and
// {"valid", "message", "code", "severity"} objects are understood.
func AsValidationResult(v any) ValidationResult {
	switch x := v.(type) {
	case ValidationResult:
		return x
	case *ValidationResult:
		if x != nil {
			return *x
		}
	case map[string]any:
		vr := ValidationResult{Valid: Truthy(x)}
		vr.Code, _ = x["code"].(string)
		vr.Message, _ = x["message"].(string)
		if s, ok := x["severity"].(string); ok {
			vr.Severity = Severity(s)
		}
		return vr
	}
	return ValidationResult{Valid: Truthy(v)}
}

func valid() ValidationResult { return ValidationResult{Valid: true} }

func invalid(code, msg string) ValidationResult {
	return ValidationResult{Valid: false, Code: code, Message: msg, Severity: SeverityError}
}
