package video

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/pion/mediadevices/pkg/driver"
	"github.com/pion/mediadevices/pkg/driver/camera"
	"github.com/pion/mediadevices/pkg/driver/screen"
)

// Errors.
var (
	ErrNoScreen = errors.New("video: no screen to capture (no X11 display?)")
	ErrNoCamera = errors.New("video: no camera")
	ErrClosed   = errors.New("video: closed")
)

// Kind says what a device captures.
type Kind string

// Kinds.
const (
	KindCamera Kind = "camera"
	KindScreen Kind = "screen"
)

// Device is a camera or a screen.
type Device struct {
	ID   string // the driver label: stable while the device is present
	Name string
	Kind Kind
}

var (
	refreshMu      sync.Mutex
	screensScanned bool
)

// Refresh rescans cameras (/dev/video*) and X11 screens ($DISPLAY). The
// mediadevices drivers register at init; this picks up devices plugged in
// since, and a display started after the process (tests under Xvfb).
func Refresh() {
	refreshMu.Lock()
	defer refreshMu.Unlock()
	camera.Initialize() // removes every video recorder (screens too) and rescans cameras
	screen.Initialize()
	screensScanned = true
}

func ensureScanned() {
	refreshMu.Lock()
	scanned := screensScanned
	refreshMu.Unlock()
	if !scanned {
		Refresh()
	}
}

// Devices lists the cameras and screens known since the last Refresh (the
// first call scans).
func Devices() []Device {
	ensureScanned()
	var out []Device
	for _, d := range driver.GetManager().Query(driver.FilterVideoRecorder()) {
		info := d.Info()
		switch info.DeviceType {
		case driver.Camera:
			name := strings.TrimSuffix(info.Name, ";")
			if i := strings.Index(name, ";"); i > 0 {
				name = name[:i]
			}
			if name == "" {
				name = info.Label
			}
			out = append(out, Device{ID: info.Label, Name: name, Kind: KindCamera})
		case driver.Screen:
			out = append(out, Device{ID: info.Label, Name: screenName(info.Label), Kind: KindScreen})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func screenName(label string) string {
	var n int
	if _, err := fmt.Sscanf(label, "X11Screen%d", &n); err == nil {
		return fmt.Sprintf("Screen %d", n+1)
	}
	return label
}

// find returns the driver of kind k with label id ("" = the first one).
func find(k Kind, id string) (driver.Driver, error) {
	ensureScanned()
	want := driver.Camera
	notFound := ErrNoCamera
	if k == KindScreen {
		want, notFound = driver.Screen, ErrNoScreen
	}
	ds := driver.GetManager().Query(driver.FilterDeviceType(want))
	if len(ds) == 0 && k == KindScreen {
		// a display may have appeared since the last scan
		Refresh()
		ds = driver.GetManager().Query(driver.FilterDeviceType(want))
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].Info().Label < ds[j].Info().Label })
	for _, d := range ds {
		if id == "" || d.Info().Label == id {
			return d, nil
		}
	}
	if id != "" {
		return nil, fmt.Errorf("%w: %q", notFound, id)
	}
	return nil, notFound
}
