package ui

import "testing"

// TestConversationIsTheWidestPane: the conversation is wider than the
// sidebar and the side panel, and hiding the side panel (Ctrl+0, the
// toolbar, the View menu) gives it the whole width right of the sidebar.
func TestConversationIsTheWidestPane(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{noAgent: true})
	chat, side, agents := h.w.chat.Object().Size().Width, h.w.sideTabs.Size().Width, h.w.side.Object().Size().Width
	t.Logf("widths: conversation %.0f, side panel %.0f, sidebar %.0f", chat, side, agents)
	if chat <= side || chat <= agents {
		t.Fatalf("conversation %.0f is not wider than the side panel %.0f and the sidebar %.0f", chat, side, agents)
	}
	h.w.setSidePanel(false)
	if got, right := h.w.chat.Object().Size().Width, h.w.right.Size().Width; got <= chat || got != right {
		t.Fatalf("side panel hidden: conversation %.0f (was %.0f), right of the sidebar %.0f", got, chat, right)
	}
	h.w.setSidePanel(true)
	if got := h.w.chat.Object().Size().Width; got != chat {
		t.Fatalf("side panel shown again: conversation %.0f, want %.0f", got, chat)
	}
}
