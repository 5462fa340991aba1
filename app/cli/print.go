package cli

import (
	"fmt"
	"io"
	"strings"

	"aimdesk/app/a2a"
)

// partSummary renders one part in a line or a block a person can read.
func partSummary(p a2a.Part) string {
	switch p.Kind {
	case a2a.PartText:
		return p.Text
	case a2a.PartRaw:
		return fmt.Sprintf("[file %s, %s, %d bytes]", orDash(p.Filename), orDash(p.MediaType), len(p.Raw))
	case a2a.PartURL:
		return fmt.Sprintf("[file %s, %s, %s]", orDash(p.Filename), orDash(p.MediaType), p.URL)
	case a2a.PartData:
		d := string(p.Data)
		if len(d) > 400 {
			d = d[:400] + "…"
		}
		if p.MediaType != "" {
			return fmt.Sprintf("[data %s] %s", p.MediaType, d)
		}
		return "[data] " + d
	}
	return "[unknown part]"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func printParts(w io.Writer, indent string, parts []a2a.Part) {
	for _, p := range parts {
		for _, line := range strings.Split(partSummary(p), "\n") {
			fmt.Fprintf(w, "%s%s\n", indent, line)
		}
	}
}

func printMessage(w io.Writer, m *a2a.Message) {
	who := "agent"
	if m.Role == a2a.RoleUser {
		who = "you"
	}
	fmt.Fprintf(w, "%s:\n", who)
	printParts(w, "  ", m.Parts)
}

func printTask(w io.Writer, t *a2a.Task) {
	fmt.Fprintf(w, "task %s  %s", t.ID, t.Status.State.Label())
	if t.Status.Timestamp != nil {
		fmt.Fprintf(w, "  %s", t.Status.Timestamp.Local().Format("2006-01-02 15:04:05"))
	}
	fmt.Fprintln(w)
	if t.ContextID != "" {
		fmt.Fprintf(w, "context %s\n", t.ContextID)
	}
	if m := t.Status.Message; m != nil {
		fmt.Fprintln(w, "status message:")
		printParts(w, "  ", m.Parts)
	}
	for _, a := range t.Artifacts {
		name := a.Name
		if name == "" {
			name = a.ArtifactID
		}
		fmt.Fprintf(w, "artifact %s:\n", name)
		printParts(w, "  ", a.Parts)
	}
	if len(t.History) > 0 {
		fmt.Fprintf(w, "history (%d messages):\n", len(t.History))
		for i := range t.History {
			printMessage(w, &t.History[i])
		}
	}
}

func printCard(w io.Writer, rc *a2a.ResolvedCard, chosen a2a.AgentInterface) {
	c := rc.Card
	fmt.Fprintf(w, "%s  %s\n", c.Name, c.Version)
	if c.Provider != nil {
		fmt.Fprintf(w, "by %s (%s)\n", c.Provider.Organization, c.Provider.URL)
	}
	if c.Description != "" {
		fmt.Fprintf(w, "\n%s\n", c.Description)
	}
	fmt.Fprintf(w, "\ncard: %s\n", rc.URL)
	printInterfaces(w, c, chosen)
	fmt.Fprintf(w, "streaming: %v   dialect: %s\n", c.Streams(), dialect(c))
	fmt.Fprintf(w, "input: %s   output: %s\n", strings.Join(c.DefaultInputModes, ", "), strings.Join(c.DefaultOutputModes, ", "))
	printExtensions(w, c)
	if len(c.SecuritySchemes) > 0 {
		fmt.Fprintln(w, "sign-in:")
		for name, s := range c.SecuritySchemes {
			fmt.Fprintf(w, "  %s: %s\n", name, s.Kind())
		}
	}
	if len(c.Signatures) > 0 {
		fmt.Fprintf(w, "signed: %d signature(s), not verified by this command\n", len(c.Signatures))
	} else {
		fmt.Fprintln(w, "signed: no")
	}
	printSkills(w, c)
}

// printInterfaces lists the card's interfaces, the chosen one marked *,
// and the binding in use.
func printInterfaces(w io.Writer, c *a2a.AgentCard, chosen a2a.AgentInterface) {
	fmt.Fprintln(w, "interfaces:")
	for _, i := range c.SupportedInterfaces {
		mark := " "
		if i.URL == chosen.URL && a2a.NormalizeBinding(i.ProtocolBinding) == chosen.ProtocolBinding &&
			a2a.NormalizeVersion(i.ProtocolVersion) == chosen.ProtocolVersion && i.Tenant == chosen.Tenant {
			mark = "*"
		}
		fmt.Fprintf(w, " %s %s %s %s\n", mark, i.ProtocolBinding, i.ProtocolVersion, i.URL)
	}
	binding := a2a.BindingLabel(chosen.ProtocolBinding)
	if c.IsAIM() && chosen.ProtocolBinding == a2a.BindingJSONRPC {
		binding += " (AIM agents use JSON-RPC)"
	}
	fmt.Fprintf(w, "binding: %s\n", binding)
}

func printExtensions(w io.Writer, c *a2a.AgentCard) {
	if len(c.Capabilities.Extensions) == 0 {
		return
	}
	fmt.Fprintln(w, "extensions:")
	for _, e := range c.Capabilities.Extensions {
		req := ""
		if e.Required {
			req = " (required)"
		}
		fmt.Fprintf(w, "  %s%s\n", e.URI, req)
	}
}

func printSkills(w io.Writer, c *a2a.AgentCard) {
	if len(c.Skills) == 0 {
		return
	}
	fmt.Fprintln(w, "skills:")
	for _, s := range c.Skills {
		fmt.Fprintf(w, "  %s — %s\n", s.Name, s.Description)
		for _, ex := range s.Examples {
			fmt.Fprintf(w, "    e.g. %q\n", ex)
		}
	}
}

func dialect(c *a2a.AgentCard) string {
	if c.IsAIM() {
		return "AIM"
	}
	return "A2A"
}
