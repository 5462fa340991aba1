package mediacli

// Usage is the command's line for `aimdesk help`.
const Usage = "devices [--json]                         list microphones, speakers, cameras, screens (* = used by a call)"
