package winstate

import (
	"io"
	"log"
	"os"
	"testing"

	"github.com/jezek/xgb"
)

func TestMain(m *testing.M) {
	// xgb logs each connection without an Xauthority file (Xvfb has
	// none) and each connection still open when a test's Xvfb stops
	xgb.Logger = log.New(io.Discard, "", 0)
	os.Exit(m.Run())
}
