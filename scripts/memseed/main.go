// Command memseed writes the history scripts/membench.sh opens: an agent
// (offline: its address refuses connections) and one conversation of N
// messages, alternating user and agent, each a paragraph of Markdown like
// a typical answer. It writes through the app's own store (app/store), so
// the database is the one the app reads, schema and all.
//
// Usage: go run ./scripts/memseed -db PATH [-n 10000] [-agent ID]
//
// It prints the conversation's id on stdout.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/store"
)

// The conversation's id.
const convID = "membench-conv"

func main() {
	db := flag.String("db", "", "the history database to create (must not exist)")
	n := flag.Int("n", 10000, "how many messages the conversation has")
	agent := flag.String("agent", "membench-agent", "the agent's id (demo-reference-agent: the app refreshes its address under --demo)")
	flag.Parse()
	if err := seed(context.Background(), *db, *agent, *n); err != nil {
		fmt.Fprintf(os.Stderr, "memseed: %v\n", err)
		os.Exit(1)
	}
	fmt.Println(convID)
}

// text is message i: a paragraph that wraps over two lines in a normal
// window, with some Markdown (as ui's BenchmarkOpenConversation10k).
func text(i int) string {
	return fmt.Sprintf("Message %d: the **agent** answers with a short paragraph that wraps over two lines "+
		"in a normal window, with `code` and a [link](https://example.com/%d).", i, i)
}

func seed(ctx context.Context, path, agentID string, n int) error {
	if path == "" {
		return errors.New("-db is required")
	}
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("%s exists", path)
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	if err := st.PutAgent(ctx, store.Agent{ID: agentID, URL: "http://127.0.0.1:1", Name: "Membench agent"}); err != nil {
		_ = st.Close()
		return err
	}
	if err := st.PutConversation(ctx, store.Conversation{ID: convID, AgentID: agentID, Title: "Ten thousand messages"}); err != nil {
		_ = st.Close()
		return err
	}
	for i := range n {
		role := a2a.RoleUser
		if i%2 == 1 {
			role = a2a.RoleAgent
		}
		parts, err := json.Marshal([]a2a.Part{a2a.TextPart(text(i))})
		if err != nil {
			_ = st.Close()
			return err
		}
		m := store.Message{ConversationID: convID, Role: string(role), Parts: parts, State: string(app.MessageDone)}
		if err := st.AppendMessage(ctx, &m); err != nil {
			_ = st.Close()
			return fmt.Errorf("message %d: %w", i, err)
		}
	}
	return st.Close()
}
