// Package jitter is the receive side of a voice stream: an adaptive jitter
// buffer for Opus RTP packets whose playout is pulled by the playback
// clock.
//
// A network goroutine pushes packets ([Buffer.Push]: RTP sequence number,
// timestamp, arrival time, payload); the audio device callback pulls
// samples ([Buffer.Read]). Between them:
//
//   - packets are reordered by sequence number; duplicates and packets
//     that arrive after their playout time are dropped and counted;
//   - a missing frame is concealed with Opus packet loss concealment, or
//     recovered from the in-band FEC of the next packet when that packet
//     is already here;
//   - the playout delay follows a target derived from the measured
//     delay variation (a high percentile over a sliding window, clamped to
//     [Config.MinDelay, Config.MaxDelay]); it rises at once and falls slowly;
//   - clock drift between sender and playback device is absorbed by
//     stretching (PLC or silence, to the next device pull) and, on a clean
//     link, by shortening decoded frames by a pitch period (accelerate,
//     see accel.go); whole frames are dropped only far above the target;
//   - the floor of the target is 20 ms while packets go missing (in-band
//     FEC needs the next packet to be here) and 5 ms on a clean link
//     (the target's safety margin: the target is then the percentile of
//     the measured variation plus 5 ms);
//   - a stall of the device (and of the goroutine reading the packets) is
//     neither a pull-ahead nor network jitter: the clock waits for the
//     device to catch up, and packets count as arriving no later than the
//     device's clock at the pull that takes them;
//   - consecutive sequence numbers with a timestamp jump are Opus DTX
//     (silence), not loss; RTP sequence numbers and timestamps wrap.
//
// # Why not a library
//
// pion/interceptor's pkg/jitterbuffer reorders packets behind a mutex and
// allocates per packet, but has no notion of playout time, target delay,
// concealment or drift. livekit/media-sdk's jitter buffer pushes samples at
// the network's pace into a sink, so playback had to trim a ring when it
// grew. Neither can be pulled by a device clock, so this package keeps its
// own small timeline.
//
// # Concurrency
//
// Push and Read never share a lock: Push copies the packet into a
// single-producer single-consumer queue of preallocated slots; Read (the
// only consumer) drains it into its own reorder store, decodes and
// conceals. Read does not allocate in steady state. Stats may be read from
// any goroutine (atomics). Only one goroutine may Push and only one may
// Read at a time.
package jitter
