package fyner

import "aimdesk/a2ui"

// propName maps a canonical (v0.9/v1.0) property name of a component
// type to the name the surface's version uses on the wire. Only v0.8
// differs; literalString, explicitList and template are resolved by the
// core.
func propName(v a2ui.Version, typ, name string) string {
	if v != a2ui.V08 {
		return name
	}
	switch typ + "." + name {
	case "Text.variant", "Image.variant":
		return "usageHint"
	case "Image.description":
		return "altText"
	case "Row.justify", "Column.justify":
		return "distribution"
	case "Row.align", "Column.align", "List.align":
		return "alignment"
	case "Tabs.tabs":
		return "tabItems"
	case "Modal.trigger":
		return "entryPointChild"
	case "Modal.content":
		return "contentChild"
	case "TextField.value":
		return "text"
	case "TextField.variant":
		return "textFieldType"
	case "MultipleChoice.value", "ChoicePicker.value":
		return "selections"
	case "Slider.min":
		return "minValue"
	case "Slider.max":
		return "maxValue"
	}
	return name
}

// enum reads a literal enum property ("" when missing or not a string),
// normalised: v0.8's "scale-down" is "scaleDown".
func (e *element) enum(canonical string) string {
	raw, ok := e.n.Prop(e.name(canonical))
	if !ok {
		return ""
	}
	s, ok := raw.(string)
	if !ok {
		s = e.n.String(e.name(canonical)) // a binding, or v0.8 {"literalString"}
	}
	if s == "scale-down" {
		return "scaleDown"
	}
	return s
}
