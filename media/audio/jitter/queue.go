package jitter

import "sync/atomic"

// MaxPayload is the largest RTP payload kept; larger packets are dropped.
const MaxPayload = 1500

// Packet is one received RTP packet.
type Packet struct {
	Seq     uint16
	TS      uint32
	Arrival int64 // unix nanoseconds (of the clock the Buffer's Now uses)
	Payload []byte
}

type slot struct {
	seq     uint16
	ts      uint32
	arrival int64
	n       int
	data    [MaxPayload]byte
}

// queue is a single-producer single-consumer queue of packet slots: the
// producer copies into a free slot and publishes it by advancing w; the
// consumer reads slots below w and frees them by advancing r.
type queue struct {
	slots [queueLen]slot
	w, r  atomic.Uint64
}

const queueLen = 128 // 2.56 s of 20 ms packets between two pulls

// push copies p in; false if the queue is full or p too large.
func (q *queue) push(p Packet) bool {
	w := q.w.Load()
	if w-q.r.Load() >= queueLen || len(p.Payload) > MaxPayload || len(p.Payload) == 0 {
		return false
	}
	s := &q.slots[w%queueLen]
	s.seq, s.ts, s.arrival = p.Seq, p.TS, p.Arrival
	s.n = copy(s.data[:], p.Payload)
	q.w.Store(w + 1)
	return true
}

// pop returns the oldest queued slot (valid until the next pop) or nil.
func (q *queue) peek() *slot {
	r := q.r.Load()
	if r == q.w.Load() {
		return nil
	}
	return &q.slots[r%queueLen]
}

func (q *queue) pop() { q.r.Add(1) }
