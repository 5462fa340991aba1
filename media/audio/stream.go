package audio

// #include "stream.h"
import "C"

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/gen2brain/malgo"
)

// Device streams: no Go code on the audio device threads.
//
// malgo calls a Go function from miniaudio's device thread for every
// period. A C thread that has called into Go keeps its P (Go's scheduler
// slot) "in a system call" while it sleeps in C until the next period, so
// the runtime never sees all Ps idle: its monitor thread (sysmon) then
// never sleeps deeply and, because it keeps retaking that P, falls back to
// its 20 µs polling again and again. Measured (perf, /proc task counters)
// in the voice-call CPU figure: sysmon woke about 3,000 times a second and
// took about half of the process's CPU; each wake-up is a context switch,
// and they are expensive on this virtual machine.
//
// So the devices' data callbacks are C (stream.c), swapped into the
// ma_device malgo initialised (ad_attach checks the layout first and
// leaves malgo's Go callback in place when it does not match). They talk to
// one goroutine per device through C memory and two pipes, which the Go
// side reads through the netpoller (no thread blocked in cgo, no P held):
//
//   - playback: the callback posts a request (sequence number, samples),
//     wakes the goroutine and waits until it has mixed the period into the
//     stream's buffer, then copies it out. The mixer runs when the device
//     asks, as it did in the Go callback: no latency is added. The wait is
//     bounded by playbackWait (the Go callback's was not); a request not
//     served by then plays silence and is counted (Playback.Late).
//   - capture: the callback copies the period into a ring and wakes the
//     goroutine once a whole Opus frame is waiting; the goroutine moves it
//     into the source's Ring and calls notify (the publisher is woken once
//     per frame, as before).

// playbackWait bounds the playback callback's wait for its goroutine. Not
// one period: under load (load average 10 on the 2 cores here) the two
// thread wake-ups of a request took longer than 10 ms for 1–4 % of the
// periods, which then played silence; the Go callback simply delayed the
// device then, and so does this, up to a stalled Go side.
const playbackWait = 100 * time.Millisecond

// errNoStream: the device's layout was not recognised (malgo changed); the
// Go callback stays in place.
var errNoStream = errors.New("audio: device stream: unexpected ma_device layout")

// stream is the Go side of one device's C callback.
type stream struct {
	c     *C.ad_stream
	wake  *os.File        // read end of the C→Go pipe (netpoller)
	rc    syscall.RawConn // wake's, for raw reads
	goW   int             // write end of the C→Go pipe (written by C)
	cR    int             // read end of the Go→C pipe (read by C)
	cW    int             // write end of the Go→C pipe
	buf   []int16         // the C buffer
	done  chan struct{}
	freed atomic.Bool
}

// newStream makes the stream for a device with the given period; capture
// streams have a ring of at least ring samples (a power of two) and wake the
// Go side when wakeAt samples are waiting.
func newStream(period time.Duration, ring, wakeAt int) (*stream, error) {
	a, err := nonblockPipe()
	if err != nil {
		return nil, err
	}
	b, err := nonblockPipe()
	if err != nil {
		_ = syscall.Close(a[0])
		_ = syscall.Close(a[1])
		return nil, err
	}
	size := uint64(1)
	for size < u64(ring) {
		size <<= 1
	}
	waitMS := i32(int(max(playbackWait, 4*period) / time.Millisecond))
	c := C.ad_stream_new(C.uint64_t(size), C.int(i32(a[1])), C.int(i32(b[0])), C.int(waitMS), C.uint64_t(u64(wakeAt)))
	if c == nil {
		for _, fd := range []int{a[0], a[1], b[0], b[1]} {
			_ = syscall.Close(fd)
		}
		return nil, fmt.Errorf("audio: device stream: out of memory")
	}
	st := &stream{
		c:    c,
		wake: os.NewFile(uintptr(a[0]), "audio-stream"), // #nosec G115 -- a file descriptor
		goW:  a[1],
		cR:   b[0],
		cW:   b[1],
		// #nosec G103 -- the C buffer of size samples, freed only in close
		buf:  unsafe.Slice((*int16)(unsafe.Pointer(c.buf)), size),
		done: make(chan struct{}),
	}
	rc, err := st.wake.SyscallConn()
	if err != nil { // only for a closed file: not this new one
		st.close(false)
		return nil, fmt.Errorf("audio: device stream: %w", err)
	}
	st.rc = rc
	return st, nil
}

// nonblockPipe is a pipe with both ends non-blocking and close-on-exec
// (syscall.Pipe2 is not on every Unix).
func nonblockPipe() ([2]int, error) {
	var p [2]int
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := syscall.Pipe(p[:]); err != nil {
		return p, fmt.Errorf("audio: device stream: %w", err)
	}
	for _, fd := range p {
		syscall.CloseOnExec(fd)
		if err := syscall.SetNonblock(fd, true); err != nil {
			_ = syscall.Close(p[0])
			_ = syscall.Close(p[1])
			return p, fmt.Errorf("audio: device stream: %w", err)
		}
	}
	return p, nil
}

// attach swaps the device's data callback for the stream's.
func (s *stream) attach(dev *malgo.Device, playback bool) error {
	// malgo.Device's only field is a pointer to the ma_device pointer.
	// #nosec G103 -- read malgo's device pointer (checked by ad_attach)
	p := **(**unsafe.Pointer)(unsafe.Pointer(dev))
	pb := C.int(0)
	if playback {
		pb = 1
	}
	if C.ad_attach(p, s.c, pb) != 0 {
		return errNoStream
	}
	return nil
}

// waitC blocks until the C side wakes the Go side; false once closed.
//
// The pipe is read with raw system calls, waiting in the netpoller between
// them (syscall.RawConn), and the playback reply is written with one too:
// a system call made through the usual path (entersyscall) wakes the
// runtime's sysmon from its deep sleep whenever every P was idle, which is
// the case at every device period of a call; the raw ones do not, and on
// a non-blocking pipe they never block. So a playback period that finds
// the mixer's work done in Go alone costs no sysmon wake-up.
func (s *stream) waitC(b []byte) bool {
	ok := false
	err := s.rc.Read(func(fd uintptr) bool {
		for {
			// #nosec G103 -- b outlives the call
			n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // empty: wait for the netpoller
			}
			ok = e == 0 && n > 0 // n == 0: the C side's end is closed
			return true
		}
	})
	return err == nil && ok
}

// wakeC wakes the C side: one byte into the Go→C pipe (non-blocking; a
// full pipe already wakes the callback).
func (s *stream) wakeC() {
	one := byte(1)
	// #nosec G103 -- one outlives the call
	_, _, _ = syscall.RawSyscall(syscall.SYS_WRITE, uintptr(s.cW), uintptr(unsafe.Pointer(&one)), 1) // #nosec G115 -- a file descriptor
}

// u64 is the address of a uint64 field of the C stream, for sync/atomic.
func u64p(p *C.uint64_t) *uint64 { return (*uint64)(unsafe.Pointer(p)) } // #nosec G103 -- same type, C memory

// servePlayback answers the playback callback's requests with m.Fill until
// the stream is closed.
func (s *stream) servePlayback(m *Mixer) {
	defer close(s.done)
	b := make([]byte, 64)
	for s.waitC(b) {
		seq := atomic.LoadUint64(u64p(&s.c.seq))
		if seq == atomic.LoadUint64(u64p(&s.c.done)) {
			continue
		}
		n := min(toInt(atomic.LoadUint64(u64p(&s.c.n))), len(s.buf))
		m.Fill(s.buf[:n])
		atomic.StoreUint64(u64p(&s.c.done), seq)
		s.wakeC()
	}
}

// serveCapture moves captured samples into out and calls notify until the
// stream is closed.
func (s *stream) serveCapture(out *Ring, notify func()) {
	defer close(s.done)
	b := make([]byte, 64)
	mask := u64(len(s.buf) - 1) // a power of two minus one
	for s.waitC(b) {
		w := atomic.LoadUint64(u64p(&s.c.w))
		r := atomic.LoadUint64(u64p(&s.c.r))
		for r < w {
			off := r & mask
			end := min(off+(w-r), uint64(len(s.buf)))
			out.Write(s.buf[off:end])
			r += end - off
		}
		atomic.StoreUint64(u64p(&s.c.r), r)
		notify()
	}
}

// late is the number of playback periods the Go side did not fill in time.
func (s *stream) late() uint64 { return atomic.LoadUint64(u64p(&s.c.late)) }

// overruns is the number of captured samples dropped because the Go side
// did not keep up.
func (s *stream) overruns() uint64 { return atomic.LoadUint64(u64p(&s.c.over)) }

// close ends the goroutine (started or not: started tells) and frees the C
// side; the device must be uninitialised first.
func (s *stream) close(started bool) {
	if s.freed.Swap(true) {
		return
	}
	_ = s.wake.Close()
	if started {
		<-s.done
	}
	for _, fd := range []int{s.goW, s.cR, s.cW} {
		_ = syscall.Close(fd)
	}
	C.ad_stream_free(s.c)
}

// playbackStream attaches a playback stream draining m to dev (initialised,
// not started) and starts its goroutine. On failure it returns nil and the
// device keeps malgo's Go callback.
func (c *Context) playbackStream(dev *malgo.Device, period time.Duration, m *Mixer) *stream {
	s, err := newStream(period, SamplesPer(max(100*time.Millisecond, 4*period)), 0)
	if err == nil {
		err = s.attach(dev, true)
		if err != nil {
			s.close(false)
		}
	}
	if err != nil {
		c.log.Warn("playback device: data callback stays in Go", "err", err)
		return nil
	}
	go s.servePlayback(m)
	return s
}

// captureStream is playbackStream for a capture device writing to out:
// the goroutine is woken once a whole Opus frame is waiting.
func (c *Context) captureStream(dev *malgo.Device, period time.Duration, out *Ring, notify func()) *stream {
	s, err := newStream(period, SamplesPer(max(200*time.Millisecond, 4*period)), FrameSamples)
	if err == nil {
		err = s.attach(dev, false)
		if err != nil {
			s.close(false)
		}
	}
	if err != nil {
		c.log.Warn("capture device: data callback stays in Go", "err", err)
		return nil
	}
	go s.serveCapture(out, notify)
	return s
}
