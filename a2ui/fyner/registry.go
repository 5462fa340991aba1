package fyner

// newRegistry returns the component factories of the basic catalog: the
// 18 components of v0.9/v1.0 and v0.8's MultipleChoice (drawn by the
// ChoicePicker factory). A type missing here is drawn by
// buildUnsupported and reported to the agent.
func newRegistry() map[string]componentFactory {
	return map[string]componentFactory{
		"Text":           buildText,
		"Image":          buildImage,
		"Icon":           buildIcon,
		"Video":          buildVideo,
		"AudioPlayer":    buildAudio,
		"Row":            buildRow,
		"Column":         buildColumn,
		"List":           buildList,
		"Card":           buildCard,
		"Tabs":           buildTabs,
		"Divider":        buildDivider,
		"Modal":          buildModal,
		"Button":         buildButton,
		"CheckBox":       buildCheckBox,
		"TextField":      buildTextField,
		"DateTimeInput":  buildDateTime,
		"ChoicePicker":   buildChoicePicker,
		"MultipleChoice": buildChoicePicker,
		"Slider":         buildSlider,
	}
}

// SupportsCatalog reports whether the renderer draws every component of
// a catalog (the catalogs a client may declare to agents).
func SupportsCatalog(components []string) bool {
	reg := newRegistry()
	for _, c := range components {
		if _, ok := reg[c]; !ok {
			return false
		}
	}
	return true
}
