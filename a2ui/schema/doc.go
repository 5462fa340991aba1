// Package schema validates A2UI JSON against the specification's own JSON
// schemas (embedded from aimdesk/assets) with santhosh-tekuri/jsonschema/v6.
//
// A Validator holds the compiled schemas of one protocol version, with one
// catalog standing in as that version's "catalog.json" (the basic catalog by
// default). It never loads anything over the network: every $ref resolves
// to an embedded file or fails. Errors are *Error values listing Details
// (instance path, a code such as missing_field / type_mismatch /
// invalid_value, and a message). Validator implements a2ui.SchemaChecker.
package schema
