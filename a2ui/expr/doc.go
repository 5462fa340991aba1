// Package expr parses the interpolation grammar of the A2UI formatString
// function into a small syntax tree; it does not evaluate anything.
//
// A template is literal text with ${expression} blocks; "\${" is a literal
// "${" (and "\\" a literal backslash before it). An expression is
//
//   - a literal: 'single' or "double" quoted string (backslash escapes),
//     a number, true, false or null;
//   - a data path: /absolute/path or relative/path (JSON Pointer syntax,
//     relative to the current template scope);
//   - a function call: name(arg: expr, other: expr). Arguments are named;
//     a lone positional argument is taken as "value" (a leniency for
//     agents that write ${upper(/name)});
//   - a nested ${expression}, e.g. formatDate(value: ${/date}, format: 'MM-dd').
//
// Parse bounds nesting depth and input size so hostile input cannot exhaust
// the stack.
package expr
