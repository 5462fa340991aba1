/* Device streams: miniaudio data callbacks that never call into Go (see
 * stream.go for why and for the protocol). */
#ifndef AIMDESK_AUDIO_STREAM_H
#define AIMDESK_AUDIO_STREAM_H

#include <stdint.h>

typedef struct ad_stream {
	int16_t *buf;      /* playback: one period's samples; capture: a ring of cap samples */
	uint64_t cap;      /* samples in buf (capture: a power of two) */
	int go_w;          /* write end of the pipe that wakes the Go side */
	int c_r;           /* read end of the pipe the Go side wakes the callback with (playback) */
	int wait_ms;       /* playback: how long the callback waits for the Go side */

	/* playback (all but wait_ms read and written with __atomic builtins) */
	uint64_t seq;      /* the callback's last request */
	uint64_t n;        /* samples asked by that request */
	uint64_t done;     /* the last request the Go side filled */
	uint64_t late;     /* requests not filled within wait_ms (played as silence) */

	/* capture */
	uint64_t w, r;     /* samples written (callback) and read (Go side) */
	uint64_t wake_at;  /* wake the Go side when this many samples are waiting */
	uint64_t over;     /* samples dropped because the ring was full */
} ad_stream;

ad_stream *ad_stream_new(uint64_t cap, int go_w, int c_r, int wait_ms, uint64_t wake_at);
void ad_stream_free(ad_stream *s);
/* ad_attach makes dev (a malgo device, initialised, not started) call
 * s's callback instead of malgo's Go callback. It returns 0, or -1 if dev
 * does not look like the ma_device this file expects (then nothing changed). */
int ad_attach(void *dev, ad_stream *s, int playback);

#endif
