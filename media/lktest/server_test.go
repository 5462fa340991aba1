package lktest_test

import (
	"testing"

	lksdk "github.com/livekit/server-sdk-go/v2"

	"aimdesk/media/lktest"
)

func TestServerAcceptsParticipant(t *testing.T) {
	srv := lktest.Start(t)
	room, err := lksdk.ConnectToRoomWithToken(srv.URL, srv.Token(t, "r1", "alice"), lksdk.NewRoomCallback(), lksdk.WithAutoSubscribe(false))
	if err != nil {
		t.Fatalf("connect: %v\nserver log:\n%s", err, srv.Logs())
	}
	defer room.Disconnect()
	if got := room.ConnectionState(); got != lksdk.ConnectionStateConnected {
		t.Fatalf("state = %v, want connected", got)
	}
}
