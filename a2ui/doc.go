// Package a2ui is the toolkit-free core of aimdesk's A2UI client: it
// applies agent messages of every protocol version (v0.8, v0.9, v0.9.1,
// v1.0) to surfaces, keeps a data model per surface, expands templates into
// a tree of component instances, evaluates bindings and functions, and turns
// user interaction into messages back to the agent. It imports no UI
// toolkit; a renderer (the Fyne one lives in a2ui/fyner) observes surfaces
// through change notifications and reads resolved properties from Nodes.
//
// Sub-packages, one job each: datamodel (JSON Pointer data model), expr
// (formatString grammar), format (numbers, currency, TR35 dates, plurals),
// functions (the function registry and the basic catalog functions), catalog
// (catalogs and the catalog registry), schema (JSON-schema validation with
// the spec's own schemas).
//
// # Usage
//
//	p, err := a2ui.NewProcessor(a2ui.WithFunctions(functions.NewBasic(
//		functions.WithLocale("en-US"), functions.WithLocation(time.Local))))
//	if err != nil { … }
//	unsubscribe := p.Subscribe(func(c a2ui.Change) {
//		for _, sc := range c.Surfaces {
//			switch {
//			case sc.Deleted:            // drop the surface's widgets
//			case sc.Created || sc.Tree: // build from sc.Surface.Root()
//			default:
//				for _, n := range sc.Rebuilt { /* re-create n's children */ }
//				for _, n := range sc.Updated { /* refresh n's widget */ }
//			}
//		}
//	})
//	defer unsubscribe()
//
//	// A transport part from the agent (MIME type application/json+a2ui or
//	// application/a2ui+json, in mediaType, mimeType or metadata.mimeType):
//	res, err := p.ProcessPart(agentID, a2ui.Part{Metadata: md, Data: data})
//	for _, out := range res.Outgoing { send(out.AgentID, out.Message, out.Metadata) }
//
// A widget reads its node: n.Type(), n.String("text"), n.Bool("enabled",
// true), n.Slot("children"), n.Checks() (the failing check messages to show
// under an input), n.Enabled() (false for a Button whose checks fail). A
// text field writes back with p.Write(n, "value", text); a click calls
// p.Act(n, "action") and sends ActionResult.Outgoing to the agent and
// performs ActionResult.Effects (openUrl). Messages back to the agent use
// the version the surface was created with; the data model goes along only
// to the agent that created the surface, and only when it asked
// (sendDataModel). ClientCapabilities builds metadata.a2uiClientCapabilities.
//
// # Concurrency
//
// A Processor, its Surfaces and Nodes are confined to one goroutine at a
// time: the app calls Process*, Act, Write and every Node accessor from the
// UI goroutine (in Fyne, marshal agent payloads with fyne.Do). Listeners are
// called synchronously at the end of each batch, on that goroutine. There is
// no global mutable state; catalogs and functions live in registries built
// by constructors, and a functions.Registry may be shared between
// processors.
package a2ui
