// Package fyner draws A2UI surfaces with Fyne: it is the renderer of the
// basic catalog (all 18 components of v0.8, v0.9, v0.9.1 and v1.0) on top
// of the toolkit-free core in package aimdesk/a2ui, and the only a2ui
// package that imports fyne.io.
//
// A Renderer observes one a2ui.Processor. Each View shows one surface and
// keeps one widget per node: when the processor reports a change, the View
// patches the widgets it has (SurfaceChange.Rebuilt nodes get their
// container children re-created, Updated nodes get only their own widget
// refreshed, and a data change therefore refreshes only the widgets bound
// to the data). Stats and Config.OnRefresh count that work. Several views
// of one surface (a chat message and a pop-out window) stay in sync.
//
// Components are made by factories in a registry (a map filled by New,
// see newRegistry); a component type without a factory is drawn as a
// visible "Unsupported component: X" placeholder and reported once to the
// agent as an A2UI error (a2ui.CodeUnsupportedComponent) through
// Config.Send.
//
// # Usage
//
//	r := fyner.New(p, fyner.Config{
//		Send:    func(out []a2ui.Outbound) { /* send to the agent */ },
//		OpenURL: func(u *url.URL) { /* show u's host, ask, then open */ },
//	})
//	defer r.Close()
//	v := r.View(surface)   // after p.ProcessPart created it
//	defer v.Close()
//	content := v.Object()  // put it in a window or a chat message
//
// User edits write back with Processor.Write (two-way binding); a click
// calls Processor.Act and hands the resulting messages to Config.Send and
// the openUrl effects to Config.OpenURL. A Button whose checks fail is
// disabled; an input shows its failing check's message under itself once
// the user has edited it, and a disabled Button shows its own check's
// message.
//
// Property names follow the surface's version (Surface.Version): v0.8's
// usageHint, altText, distribution, alignment, tabItems, entryPointChild,
// contentChild, textFieldType, selections, minValue/maxValue,
// MultipleChoice and Button.primary are read as well as the v0.9/v1.0
// names (literalString, explicitList and template are resolved by the
// core).
//
// # What Fyne cannot do
//
// Fyne plays no audio or video: Video and AudioPlayer are cards with the
// source and an "Open in your player…" button, which opens http(s)
// addresses only, through Config.OpenURL, after showing the host. Images
// are fetched over http(s) or decoded from data: URLs only, at most 10 MB
// and 10 s (HTTPImageLoader), with a placeholder while loading and when
// they fail. Fyne's accessibility support is limited: a node's label goes
// into its widget's text or placeholder where the widget has one, and
// View.Accessibility returns the node → label/description map.
//
// # Concurrency
//
// Like the processor it observes, a Renderer and its Views are used on the
// Fyne goroutine only. Image downloads run on their own goroutines and
// hand their results back through Config.Do (fyne.Do by default).
package fyner
