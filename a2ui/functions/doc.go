// Package functions implements A2UI function calls: the registry of
// renderer-side functions, the evaluator of DynamicValues (literals,
// {"path": …} bindings, {"call": …} function calls, v0.8 literalString
// forms) and every function of the basic catalog: required, regex, length,
// numeric, email, formatString, formatNumber, formatCurrency, formatDate,
// pluralize, openUrl, and, or, not, plus the @index system function.
//
// Functions never perform side effects. openUrl returns an Effect for the
// UI to carry out, and only when the evaluation happens inside a user's
// action (Scope.UserAction); anywhere else it fails.
//
// Arguments are canonicalised before a function runs: argument aliases that
// agents tuned on other renderers use (count for pluralize, pattern for
// formatDate, …) are mapped to the catalog names, see Def.Aliases and
// BasicAliases.
//
// A Registry is built by a constructor (New, NewBasic) and holds no global
// state; it is safe for concurrent use once built.
package functions
