package mediacli

import "aimdesk/parts"

// Usage is the command's line for `aimdesk help`.
const Usage = parts.DevicesUsage
