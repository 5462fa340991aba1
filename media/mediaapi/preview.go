package mediaapi

import "time"

// ScreenPreviewInterval is how often ScreenPreview hands on a thumbnail
// (at most 4 a second; none while the screen does not change).
const ScreenPreviewInterval = 250 * time.Millisecond

// ScreenPreviewWidth is the width of ScreenPreview's thumbnails.
const ScreenPreviewWidth = 480
