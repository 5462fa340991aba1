package devagent

import "net/http"

// HandlerConfig configures the reference agent's HTTP handler.
type HandlerConfig struct {
	// BaseURL is the public base URL written into the agent card.
	BaseURL string
}

// NewHandler returns the reference agent's HTTP handler (placeholder: card only).
func NewHandler(cfg HandlerConfig) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"name":"AIM reference agent","description":"placeholder","version":"0.1.0","supportedInterfaces":[{"url":"` + cfg.BaseURL + `/a2a/v1","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`))
	})
	return mux
}
