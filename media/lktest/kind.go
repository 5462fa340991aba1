package lktest

import "github.com/livekit/protocol/livekit"

const agentKind = livekit.ParticipantInfo_AGENT
