//go:build !nomedia

package media

import (
	"context"
	"math"
	"net"
	"testing"
	"time"

	"aimdesk/media/lktest"
	"aimdesk/media/lktest/impair"
)

// relayIP is the loopback address the impaired server advertises and the
// relay listens on (the server itself listens on 127.0.0.1).
const relayIP = "127.0.0.2"

// impairedSFU is a livekit-server of its own whose clients send their
// media through an impairment relay (see package impair). ICE over TCP is
// off, so no participant can reach the server around the relay.
type impairedSFU struct {
	srv   *lktest.Server
	relay *impair.Relay
}

func startImpairedSFU(t testing.TB) *impairedSFU {
	t.Helper()
	srv, err := lktest.StartServer(context.Background(), lktest.Options{Dir: t.TempDir(), AdvertiseIP: relayIP, NoTCP: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	_, port, err := net.SplitHostPort(srv.UDPAddr)
	if err != nil {
		t.Fatal(err)
	}
	relay, err := impair.Listen(net.JoinHostPort(relayIP, port), srv.UDPAddr, 1)
	if err != nil {
		t.Fatalf("relay: %v", err)
	}
	t.Cleanup(func() { _ = relay.Close() })
	return &impairedSFU{srv: srv, relay: relay}
}

// armAfterChecker waits until the checker's peer connections have settled
// (n flows, the SDK's publisher and subscriber connections, and no new
// one for a second) and arms the relay: the flows that appear from now on
// (the app's) are impaired, the checker's are not.
func (s *impairedSFU) armAfterChecker(t testing.TB, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := s.relay.WaitFlows(ctx, n, time.Second); err != nil {
		t.Fatalf("the checker's media never reached the relay: %v\n%s", err, s.srv.Logs())
	}
	s.relay.Arm()
}

// checkPaths fails the test unless the app's media went through impaired
// flows (at least appUp packets up and appDown down: no bypass over
// another candidate pair) and the checker's media through clean ones
// (checkerUp, checkerDown packets).
func (s *impairedSFU) checkPaths(t testing.TB, appUp, appDown, checkerUp, checkerDown uint64) {
	t.Helper()
	var clean, impaired impair.Counters
	var nClean, nImpaired int
	for _, f := range s.relay.Flows() {
		t.Logf("relay flow %v impaired=%v up %+v down %+v", f.Client, f.Impaired, f.Up, f.Down)
		if f.Impaired {
			nImpaired++
			impaired.ImpairedPackets += f.Up.ImpairedPackets
			impaired.Packets += f.Down.ImpairedPackets
		} else {
			nClean++
			clean.Packets += f.Up.Packets
			clean.ImpairedPackets += f.Down.Packets
			if f.Up.ImpairedPackets+f.Down.ImpairedPackets != 0 {
				t.Errorf("clean flow %v went through the impairment", f.Client)
			}
		}
	}
	if up, down := impaired.ImpairedPackets, impaired.Packets; nImpaired == 0 || up < appUp || down < appDown {
		t.Errorf("the app's media did not go through the relay: %d impaired flows with %d packets up, %d down; want ≥ %d, %d",
			nImpaired, up, down, appUp, appDown)
	}
	if up, down := clean.Packets, clean.ImpairedPackets; nClean == 0 || up < checkerUp || down < checkerDown {
		t.Errorf("the checker's media did not go through clean flows: %d clean flows with %d packets up, %d down; want ≥ %d, %d",
			nClean, up, down, checkerUp, checkerDown)
	}
}

// seqCounter counts RTP packets against their (extended) sequence numbers.
type seqCounter struct {
	started     bool
	last        int64
	lastRaw     uint16
	first, recv int64
}

func (s *seqCounter) add(q uint16) {
	if !s.started {
		s.started, s.first, s.last, s.lastRaw = true, int64(q), int64(q), q
		s.recv = 1
		return
	}
	if ext := s.last + int64(int16(q-s.lastRaw)); ext > s.last {
		s.last, s.lastRaw = ext, q
	}
	s.recv++
}

// counts returns the packets expected (by sequence number) and received.
func (s *seqCounter) counts() (expected, received int64) {
	if !s.started {
		return 0, 0
	}
	return s.last - s.first + 1, s.recv
}

func (c *checker) seqCounts() (expected, received int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seq.counts()
}

// TestImpairedCallLoss makes a call whose uplink loses 5 % of its packets
// in the relay: the checker sees the app's audio with about that loss,
// the relay carried the app's media, and the checker's own path was clean.
func TestImpairedCallLoss(t *testing.T) {
	const room, loss = "impaired-loss", 0.05
	sfu := startImpairedSFU(t)
	chk := newCheckerOn(t, sfu.srv, room)
	sfu.armAfterChecker(t, 2)
	sfu.relay.Set(impair.Up, impair.Impairment{Loss: loss})
	joinTestCallOn(t, sfu.srv, room, JoinParams{HalfDuplex: HalfDuplexOff, Speaker: SpeakerOptions{Disabled: true}})
	waitFor(t, 15*time.Second, "audio packets at the checker", func() bool {
		return chk.audioPackets(time.Now().Add(-time.Second), time.Now()) >= 30
	})
	time.Sleep(time.Second)
	e0, r0 := chk.seqCounts()
	up0 := sfu.relay.ImpairedStats().Up
	time.Sleep(8 * time.Second)
	e1, r1 := chk.seqCounts()
	up1 := sfu.relay.ImpairedStats().Up
	seen := 1 - float64(r1-r0)/float64(e1-e0)
	dropped := float64(up1.LossDrops-up0.LossDrops) / float64(up1.ImpairedPackets-up0.ImpairedPackets)
	t.Logf("checker: %d of %d audio packets (%.1f %% lost); relay dropped %.1f %% of the app's uplink packets",
		r1-r0, e1-e0, 100*seen, 100*dropped)
	if e1-e0 < 300 {
		t.Fatalf("only %d audio packets in 8 s", e1-e0)
	}
	// about 400 packets: the binomial spread of 5 % is ±1.1 %
	if dropped < loss/3 || dropped > 2*loss {
		t.Errorf("the relay dropped %.1f %%, want about %.0f %%", 100*dropped, 100*loss)
	}
	if math.Abs(seen-dropped) > 0.02 {
		t.Errorf("the checker lost %.1f %% of the app's audio, want about what the relay dropped (%.1f %%)", 100*seen, 100*dropped)
	}
	sfu.checkPaths(t, 300, 0, 0, 300)
}
