#include "stream.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The leading fields of miniaudio's struct ma_device (miniaudio.h as
 * vendored by malgo v0.11.24): ad_attach swaps onData and sets pUserData
 * after checking that onStop is malgo's Go stop callback and pUserData is
 * unset, so a different layout is detected instead of written to. */
typedef void (*ad_data_proc)(void *dev, void *out, const void *in, uint32_t frames);
typedef struct {
	void *pContext;
	int type;
	uint32_t sampleRate;
	uint32_t state;
	ad_data_proc onData;
	void *onNotification;
	void *onStop;
	void *pUserData;
} ad_device_head;

extern void goStopCallback(void *dev); /* malgo's exported Go stop callback */

ad_stream *ad_stream_new(uint64_t cap, int go_w, int c_r, int wait_ms, uint64_t wake_at) {
	ad_stream *s = calloc(1, sizeof *s);
	if (s == NULL) {
		return NULL;
	}
	s->buf = calloc(cap, sizeof(int16_t));
	if (s->buf == NULL) {
		free(s);
		return NULL;
	}
	s->cap = cap;
	s->go_w = go_w;
	s->c_r = c_r;
	s->wait_ms = wait_ms;
	s->wake_at = wake_at;
	return s;
}

void ad_stream_free(ad_stream *s) {
	if (s != NULL) {
		free(s->buf);
		free(s);
	}
}

static void wake_go(ad_stream *s) {
	char b = 1;
	ssize_t r = write(s->go_w, &b, 1); /* non-blocking: a full pipe already wakes the Go side */
	(void)r;
}

static int64_t now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* play asks the Go side for the period and waits for it (at most wait_ms):
 * the period is mixed when the device asks for it, as with a Go callback,
 * so this adds no latency. */
static void play(void *dev, void *out, const void *in, uint32_t frames) {
	ad_stream *s = ((ad_device_head *)dev)->pUserData;
	uint64_t n = frames;
	(void)in;
	if (n > s->cap) {
		memset(out, 0, n * sizeof(int16_t));
		__atomic_add_fetch(&s->late, 1, __ATOMIC_RELAXED);
		return;
	}
	uint64_t seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED) + 1;
	__atomic_store_n(&s->n, n, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq, seq, __ATOMIC_RELEASE);
	wake_go(s);
	int64_t deadline = now_ms() + s->wait_ms;
	while (__atomic_load_n(&s->done, __ATOMIC_ACQUIRE) != seq) {
		int64_t left = deadline - now_ms();
		if (left <= 0) {
			break;
		}
		struct pollfd p = {.fd = s->c_r, .events = POLLIN};
		if (poll(&p, 1, (int)left) > 0) {
			char b[64];
			while (read(s->c_r, b, sizeof b) > 0) {
			}
		}
	}
	if (__atomic_load_n(&s->done, __ATOMIC_ACQUIRE) == seq) {
		memcpy(out, s->buf, n * sizeof(int16_t));
	} else {
		memset(out, 0, n * sizeof(int16_t));
		__atomic_add_fetch(&s->late, 1, __ATOMIC_RELAXED);
	}
}

/* capture copies the period into the ring and wakes the Go side once
 * wake_at samples are waiting. */
static void capture(void *dev, void *out, const void *in, uint32_t frames) {
	ad_stream *s = ((ad_device_head *)dev)->pUserData;
	const int16_t *p = in;
	(void)out;
	if (p == NULL) {
		return;
	}
	uint64_t w = s->w; /* only this callback writes w */
	uint64_t r = __atomic_load_n(&s->r, __ATOMIC_ACQUIRE);
	uint64_t n = frames;
	uint64_t free_ = s->cap - (w - r);
	if (n > free_) {
		__atomic_add_fetch(&s->over, n - free_, __ATOMIC_RELAXED);
		n = free_;
	}
	for (uint64_t i = 0; i < n;) {
		uint64_t off = (w + i) & (s->cap - 1);
		uint64_t k = s->cap - off;
		if (k > n - i) {
			k = n - i;
		}
		memcpy(s->buf + off, p + i, k * sizeof(int16_t));
		i += k;
	}
	__atomic_store_n(&s->w, w + n, __ATOMIC_RELEASE);
	if (w + n - r >= s->wake_at) {
		wake_go(s);
	}
}

int ad_attach(void *dev, ad_stream *s, int playback) {
	ad_device_head *d = dev;
	if (d->onData == NULL || d->onStop != (void *)goStopCallback || d->pUserData != NULL) {
		return -1;
	}
	d->pUserData = s;
	d->onData = playback ? play : capture;
	return 0;
}
