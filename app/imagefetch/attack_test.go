package imagefetch

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// png16 is a real w×h 16-bit RGBA PNG of zeros, a few hundred kilobytes
// compressed, written without holding its pixels.
func png16(t *testing.T, w, h int) []byte {
	t.Helper()
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		var hdr [8]byte
		binary.BigEndian.PutUint32(hdr[:4], uint32(len(data)))
		copy(hdr[4:], typ)
		out.Write(hdr[:])
		out.Write(data)
		crc := crc32.NewIEEE()
		crc.Write(hdr[4:])
		crc.Write(data)
		_ = binary.Write(&out, binary.BigEndian, crc.Sum32())
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 16, 6 // bit depth 16, RGBA
	chunk("IHDR", ihdr)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	row := make([]byte, 1+w*8) // filter byte, then 8 bytes a pixel
	for range h {
		_, _ = zw.Write(row)
	}
	_ = zw.Close()
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return out.Bytes()
}

// TestAttackSixteenBitPNGBomb: a 40-megapixel 16-bit PNG (8 bytes a pixel,
// about 320 MB decoded) a few hundred kilobytes long is refused from its
// header, before any decode starts.
func TestAttackSixteenBitPNGBomb(t *testing.T) {
	data := png16(t, 8000, 5000)
	t.Logf("40-megapixel 16-bit PNG: %d bytes compressed", len(data))
	var entered atomic.Int32
	decodeEnter = func() { entered.Add(1) }
	defer func() { decodeEnter = nil }()
	_, err := Decode(data)
	if !errors.Is(err, ErrTooManyPixels) || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Decode: %v, want ErrTooManyPixels", err)
	}
	if entered.Load() != 0 {
		t.Error("the decoder ran")
	}
	// The same size in 8-bit grey (1 byte a pixel, 40 MB) is within the
	// memory bound: the accounting follows the type, not a flat 4 bytes.
	g := image.NewGray(image.Rect(0, 0, 4000, 2500))
	var b bytes.Buffer
	if err := png.Encode(&b, g); err != nil {
		t.Fatal(err)
	}
	img, err := Decode(b.Bytes())
	if err != nil {
		t.Fatalf("10-megapixel grey PNG: %v", err)
	}
	if got := Bytes(img); got != 4000*2500 {
		t.Errorf("Bytes(grey) = %d, want %d", got, 4000*2500)
	}
	if got := Bytes(image.NewNRGBA64(image.Rect(0, 0, 10, 10))); got != 800 {
		t.Errorf("Bytes(NRGBA64 10×10) = %d, want 800", got)
	}
}

// TestAttackConcurrentDecodes: however many images arrive at once, at most
// two are decoded at a time; a decode waiting for its turn ends with its
// context.
func TestAttackConcurrentDecodes(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	img.Set(1, 1, color.NRGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	var active, peak atomic.Int32
	release := make(chan struct{})
	decodeEnter = func() {
		n := active.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		<-release
		active.Add(-1)
	}
	defer func() { decodeEnter = nil }()
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			_, err := Decode(data)
			errs <- err
		})
	}
	deadline := time.Now().Add(10 * time.Second)
	for active.Load() < MaxConcurrentDecodes && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // room for a third to (wrongly) start
	if got := active.Load(); got != MaxConcurrentDecodes {
		t.Errorf("%d decodes running with %d images waiting, want %d", got, n, MaxConcurrentDecodes)
	}
	// A decode waiting for a turn gives up with its context.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	_, err := (&Fetcher{}).DecodeContext(ctx, data)
	cancel()
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a waiting decode with an expired context: %v", err)
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	t.Logf("peak concurrent decodes: %d of %d images", peak.Load(), n)
	if peak.Load() > MaxConcurrentDecodes {
		t.Errorf("peak %d concurrent decodes", peak.Load())
	}
}

// recorder is a loopback listener that records connections: the victim on
// "the local network". It must never see one.
type recorder struct {
	ln    net.Listener
	conns atomic.Int32
}

func newRecorder(t *testing.T) *recorder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			r.conns.Add(1)
			_ = c.Close()
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return r
}

func (r *recorder) port() string { return strings.TrimPrefix(r.ln.Addr().String(), "127.0.0.1:") }

// fakeDNS is a resolver that answers every name with answer, through a
// DNS server on loopback (UDP), so that the system resolver is not used.
func fakeDNS(t *testing.T, answer net.IP) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pc.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			n, addr, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			q := buf[:n]
			if n < 12 {
				continue
			}
			// Header: same id, response, recursion available, one answer
			// for an A question (none for others).
			end := 12
			for end < n && q[end] != 0 {
				end += int(q[end]) + 1
			}
			end += 5 // zero label, type, class
			if end > n {
				continue
			}
			qtype := binary.BigEndian.Uint16(q[end-4:])
			resp := append([]byte{}, q[:end]...)
			resp[2], resp[3] = 0x81, 0x80
			binary.BigEndian.PutUint16(resp[4:], 1)
			binary.BigEndian.PutUint16(resp[8:], 0)
			binary.BigEndian.PutUint16(resp[10:], 0)
			if qtype == 1 {
				binary.BigEndian.PutUint16(resp[6:], 1)
				resp = append(resp, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4)
				resp = append(resp, answer.To4()...)
			} else {
				binary.BigEndian.PutUint16(resp[6:], 0)
			}
			_, _ = pc.WriteTo(resp, addr)
		}
	}()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", pc.LocalAddr().String())
	}}
}

// TestAttackImageFromLocalNetwork: a remote agent's image pointing at
// 127.0.0.1, at 10.0.0.1, at its own server that redirects to 127.0.0.1,
// or at a host name that resolves to 127.0.0.1 is refused without any
// connection being made. Only loopback sockets are ever opened: the
// private address is refused by the dial-time check before connect.
func TestAttackImageFromLocalNetwork(t *testing.T) {
	victim := newRecorder(t)
	small := pngOf(t, 2, 2)
	// The remote agent's own server: on loopback here, treated as a
	// public address by the test hook (allowAddr) and nothing else.
	agentSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok.png":
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write(small)
		case "/redirect.png":
			http.Redirect(w, r, "http://127.0.0.1:"+victim.port()+"/x.png", http.StatusFound)
		case "/redirect-name.png":
			http.Redirect(w, r, "http://agent.test:"+victim.port()+"/x.png", http.StatusFound)
		}
	}))
	defer agentSrv.Close()
	agentAddr := strings.TrimPrefix(agentSrv.URL, "http://")
	agentURL := "http://agent.test:" + strings.Split(agentAddr, ":")[1]
	approved := map[string]bool{"127.0.0.1": true, "10.0.0.1": true, "intranet.test": true, "agent.test": true}
	newFetcher := func(answer net.IP) *Fetcher {
		return &Fetcher{
			Agent: agentURL, Resolver: fakeDNS(t, answer), Timeout: 3 * time.Second,
			Approved:  func(h string) bool { return approved[h] }, // even a click does not open the local network
			allowAddr: func(a string) bool { return a == agentAddr },
		}
	}
	// The agent's own origin loads by itself (agent.test resolves to the
	// agent's server).
	if _, err := newFetcher(net.IPv4(127, 0, 0, 1)).Fetch(context.Background(), agentURL+"/ok.png"); err != nil {
		t.Fatalf("the agent's own image: %v", err)
	}
	for _, tc := range []struct {
		name, url string
		dns       net.IP
	}{
		{"loopback literal", "http://127.0.0.1:" + victim.port() + "/x.png", nil},
		{"private literal", "http://10.0.0.1:" + victim.port() + "/x.png", nil},
		{"redirect to loopback", agentURL + "/redirect.png", net.IPv4(127, 0, 0, 1)},
		{"redirect to a name of loopback", agentURL + "/redirect-name.png", net.IPv4(127, 0, 0, 1)},
		{"name resolving to loopback", "http://intranet.test:" + victim.port() + "/x.png", net.IPv4(127, 0, 0, 1)},
		{"name resolving to private", "http://intranet.test:" + victim.port() + "/x.png", net.IPv4(192, 168, 1, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dns := tc.dns
			if dns == nil {
				dns = net.IPv4(192, 0, 2, 1) // never asked for a literal
			}
			_, err := newFetcher(dns).Fetch(context.Background(), tc.url)
			if !errors.Is(err, ErrAddressRefused) {
				t.Errorf("Fetch: %v, want ErrAddressRefused", err)
			}
			if n := victim.conns.Load(); n != 0 {
				t.Fatalf("%d connections reached the local address", n)
			}
		})
	}
	// Another public host needs the user's click, naming the host.
	_, err := newFetcher(net.IPv4(127, 0, 0, 1)).Fetch(context.Background(), "https://elsewhere.test/x.png")
	var he *HostError
	if !errors.As(err, &he) || he.Host != "elsewhere.test" {
		t.Errorf("another host without a click: %v", err)
	}
	// A loopback agent (the reference agent) may load from loopback.
	local := &Fetcher{Agent: agentSrv.URL, Timeout: 3 * time.Second}
	if _, err := local.Fetch(context.Background(), agentSrv.URL+"/ok.png"); err != nil {
		t.Errorf("a loopback agent's own image: %v", err)
	}
}
