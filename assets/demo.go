package assets

import _ "embed"

// Demo files of the reference agent (app/devagent), shared by demo mode and
// the tests. The A2UI surfaces are unchanged copies of the A2UI
// specification's basic-catalog examples (Apache-2.0, see
// demo/A2UI-LICENSE).
var (
	// DemoLoginFormV09 is the v0.9 "Simple Login Form" example: a Column
	// with two TextFields and a Button whose action is the event
	// "login_submitted".
	//
	//go:embed demo/a2ui-v0_9-simple-login-form.json
	DemoLoginFormV09 []byte

	// DemoLoginFormV10 is the same example in A2UI v1.0.
	//
	//go:embed demo/a2ui-v1_0-simple-login-form.json
	DemoLoginFormV10 []byte

	// DemoLongAnswer is the Markdown text the "long" skill streams in chunks.
	//
	//go:embed demo/long-answer.md
	DemoLongAnswer []byte

	// DemoImage is a 32×32 PNG sent as a file artifact.
	//
	//go:embed demo/aim-dot.png
	DemoImage []byte

	// DemoNotes is a small text file sent as a file artifact.
	//
	//go:embed demo/notes.txt
	DemoNotes []byte
)
