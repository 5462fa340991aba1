package initlog

import (
	"bytes"
	"log"
	"testing"
)

func TestRelease(t *testing.T) {
	// init has run: what the logger prints now is held.
	log.Print("held line")
	var out bytes.Buffer
	Release(&out, true)
	if got := out.String(); !bytes.Contains([]byte(got), []byte("held line")) {
		t.Errorf("replayed %q, want the held line", got)
	}
	out.Reset()
	Release(&out, true) // a second call does nothing
	if out.Len() != 0 {
		t.Errorf("second Release wrote %q", out.String())
	}
}
