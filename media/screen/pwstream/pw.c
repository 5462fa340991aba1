//go:build linux && cgo && !nopipewire

#include "pw.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pipewire/pipewire.h>
#include <spa/param/video/format-utils.h>
#include <spa/param/buffers.h>
#include <spa/buffer/meta.h>
#include <spa/utils/result.h>

struct aimdesk_pw {
	struct pw_thread_loop *loop;
	struct pw_context *ctx;
	struct pw_core *core;
	struct pw_stream *stream;
	struct spa_hook core_listener;
	struct spa_hook stream_listener;
	struct pw_registry *registry;
	struct spa_hook registry_listener;
	uint32_t node;
	struct spa_video_info_raw fmt;
	int have_fmt;

	pthread_mutex_t mu; // guards what follows
	pthread_cond_t cond;
	uint8_t *frame; // RGBA, w*h*4
	size_t cap;
	int w, h;
	uint64_t seq;
	int failed;
	char err[256];
};

static void fail(struct aimdesk_pw *c, const char *msg) {
	pthread_mutex_lock(&c->mu);
	if (!c->failed) {
		c->failed = 1;
		snprintf(c->err, sizeof c->err, "%s", msg);
	}
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->mu);
}

// convert one row of src (format f) into RGBA.
static void convert_row(uint8_t *dst, const uint8_t *src, int w, uint32_t f) {
	int i;
	switch (f) {
	case SPA_VIDEO_FORMAT_RGBx:
	case SPA_VIDEO_FORMAT_RGBA:
		for (i = 0; i < w; i++, src += 4, dst += 4) {
			dst[0] = src[0]; dst[1] = src[1]; dst[2] = src[2]; dst[3] = 255;
		}
		break;
	case SPA_VIDEO_FORMAT_BGRx:
	case SPA_VIDEO_FORMAT_BGRA:
		for (i = 0; i < w; i++, src += 4, dst += 4) {
			dst[0] = src[2]; dst[1] = src[1]; dst[2] = src[0]; dst[3] = 255;
		}
		break;
	case SPA_VIDEO_FORMAT_xRGB:
	case SPA_VIDEO_FORMAT_ARGB:
		for (i = 0; i < w; i++, src += 4, dst += 4) {
			dst[0] = src[1]; dst[1] = src[2]; dst[2] = src[3]; dst[3] = 255;
		}
		break;
	case SPA_VIDEO_FORMAT_xBGR:
	case SPA_VIDEO_FORMAT_ABGR:
		for (i = 0; i < w; i++, src += 4, dst += 4) {
			dst[0] = src[3]; dst[1] = src[2]; dst[2] = src[1]; dst[3] = 255;
		}
		break;
	case SPA_VIDEO_FORMAT_RGB:
		for (i = 0; i < w; i++, src += 3, dst += 4) {
			dst[0] = src[0]; dst[1] = src[1]; dst[2] = src[2]; dst[3] = 255;
		}
		break;
	case SPA_VIDEO_FORMAT_BGR:
		for (i = 0; i < w; i++, src += 3, dst += 4) {
			dst[0] = src[2]; dst[1] = src[1]; dst[2] = src[0]; dst[3] = 255;
		}
		break;
	}
}

static int bytes_per_pixel(uint32_t f) {
	return (f == SPA_VIDEO_FORMAT_RGB || f == SPA_VIDEO_FORMAT_BGR) ? 3 : 4;
}

static void on_process(void *data) {
	struct aimdesk_pw *c = data;
	struct pw_buffer *b = NULL, *nb;
	// only the newest buffer matters
	while ((nb = pw_stream_dequeue_buffer(c->stream)) != NULL) {
		if (b)
			pw_stream_queue_buffer(c->stream, b);
		b = nb;
	}
	if (!b)
		return;
	struct spa_buffer *buf = b->buffer;
	struct spa_data *d = &buf->datas[0];
	struct spa_meta_header *mh = spa_buffer_find_meta_data(buf, SPA_META_Header, sizeof(*mh));
	if (!c->have_fmt || d->data == NULL || d->chunk == NULL || d->chunk->size == 0 ||
	    (d->chunk->flags & SPA_CHUNK_FLAG_CORRUPTED) ||
	    (mh && (mh->flags & SPA_META_HEADER_FLAG_CORRUPTED)))
		goto done;
	int w = c->fmt.size.width, h = c->fmt.size.height;
	int bpp = bytes_per_pixel(c->fmt.format);
	int stride = d->chunk->stride > 0 ? d->chunk->stride : w * bpp;
	uint32_t off = d->chunk->offset % (d->maxsize ? d->maxsize : 1);
	if (w <= 0 || h <= 0 || (uint64_t)off + (uint64_t)stride * (h - 1) + (uint64_t)w * bpp > d->maxsize)
		goto done;
	const uint8_t *src = SPA_PTROFF(d->data, off, const uint8_t);
	size_t need = (size_t)w * h * 4;
	pthread_mutex_lock(&c->mu);
	if (c->cap < need) {
		uint8_t *nf = realloc(c->frame, need);
		if (!nf) {
			pthread_mutex_unlock(&c->mu);
			goto done;
		}
		c->frame = nf;
		c->cap = need;
	}
	for (int y = 0; y < h; y++)
		convert_row(c->frame + (size_t)y * w * 4, src + (size_t)y * stride, w, c->fmt.format);
	c->w = w;
	c->h = h;
	c->seq++;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->mu);
done:
	pw_stream_queue_buffer(c->stream, b);
}

static void on_param_changed(void *data, uint32_t id, const struct spa_pod *param) {
	struct aimdesk_pw *c = data;
	if (param == NULL || id != SPA_PARAM_Format)
		return;
	uint32_t mtype, msub;
	if (spa_format_parse(param, &mtype, &msub) < 0 || mtype != SPA_MEDIA_TYPE_video || msub != SPA_MEDIA_SUBTYPE_raw)
		return;
	struct spa_video_info_raw raw;
	if (spa_format_video_raw_parse(param, &raw) < 0)
		return;
	c->fmt = raw;
	c->have_fmt = 1;

	uint8_t pbuf[1024];
	struct spa_pod_builder pb = SPA_POD_BUILDER_INIT(pbuf, sizeof pbuf);
	const struct spa_pod *params[2];
	params[0] = spa_pod_builder_add_object(&pb,
		SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers,
		SPA_PARAM_BUFFERS_dataType, SPA_POD_CHOICE_FLAGS_Int((1 << SPA_DATA_MemPtr) | (1 << SPA_DATA_MemFd)));
	params[1] = spa_pod_builder_add_object(&pb,
		SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
		SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Header),
		SPA_PARAM_META_size, SPA_POD_Int(sizeof(struct spa_meta_header)));
	pw_stream_update_params(c->stream, params, 2);
}

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
	struct aimdesk_pw *c = data;
	char msg[256];
	(void)old;
	if (state == PW_STREAM_STATE_ERROR) {
		snprintf(msg, sizeof msg, "pipewire stream error: %s", error ? error : "unknown");
		fail(c, msg);
	} else if (state == PW_STREAM_STATE_UNCONNECTED && old != PW_STREAM_STATE_UNCONNECTED) {
		fail(c, "pipewire stream ended");
	}
}

static const struct pw_stream_events stream_events = {
	PW_VERSION_STREAM_EVENTS,
	.state_changed = on_state_changed,
	.param_changed = on_param_changed,
	.process = on_process,
};

static void on_core_error(void *data, uint32_t id, int seq, int res, const char *message) {
	struct aimdesk_pw *c = data;
	char msg[256];
	(void)seq;
	if (id != PW_ID_CORE)
		return;
	snprintf(msg, sizeof msg, "pipewire: %s (%s)", message ? message : "error", spa_strerror(res));
	fail(c, msg);
}

// The node going away is how the end of a share shows: a stream whose
// peer is gone just pauses.
static void on_global_remove(void *data, uint32_t id) {
	struct aimdesk_pw *c = data;
	if (id == c->node)
		fail(c, "the shared screen's stream was removed (sharing ended)");
}

static const struct pw_registry_events registry_events = {
	PW_VERSION_REGISTRY_EVENTS,
	.global_remove = on_global_remove,
};

static const struct pw_core_events core_events = {
	PW_VERSION_CORE_EVENTS,
	.error = on_core_error,
};

aimdesk_pw *aimdesk_pw_open(int fd, uint32_t node, char *err, size_t errlen) {
	pw_init(NULL, NULL);
	struct aimdesk_pw *c = calloc(1, sizeof *c);
	if (!c) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cond, NULL);
	c->loop = pw_thread_loop_new("aimdesk-screen", NULL);
	if (!c->loop) {
		close(fd);
		snprintf(err, errlen, "pw_thread_loop_new failed");
		aimdesk_pw_close(c);
		return NULL;
	}
	c->ctx = pw_context_new(pw_thread_loop_get_loop(c->loop), NULL, 0);
	if (!c->ctx) {
		close(fd);
		snprintf(err, errlen, "pw_context_new failed");
		aimdesk_pw_close(c);
		return NULL;
	}
	if (pw_thread_loop_start(c->loop) < 0) {
		close(fd);
		snprintf(err, errlen, "pw_thread_loop_start failed");
		aimdesk_pw_close(c);
		return NULL;
	}
	pw_thread_loop_lock(c->loop);
	c->core = pw_context_connect_fd(c->ctx, fd, NULL, 0);
	if (!c->core) {
		snprintf(err, errlen, "pw_context_connect_fd: %s", strerror(errno));
		pw_thread_loop_unlock(c->loop);
		aimdesk_pw_close(c);
		return NULL;
	}
	pw_core_add_listener(c->core, &c->core_listener, &core_events, c);
	c->node = node;
	c->registry = pw_core_get_registry(c->core, PW_VERSION_REGISTRY, 0);
	if (c->registry)
		pw_registry_add_listener(c->registry, &c->registry_listener, &registry_events, c);
	c->stream = pw_stream_new(c->core, "aimdesk screen share",
		pw_properties_new(PW_KEY_MEDIA_TYPE, "Video", PW_KEY_MEDIA_CATEGORY, "Capture",
			PW_KEY_MEDIA_ROLE, "Screen", NULL));
	if (!c->stream) {
		snprintf(err, errlen, "pw_stream_new: %s", strerror(errno));
		pw_thread_loop_unlock(c->loop);
		aimdesk_pw_close(c);
		return NULL;
	}
	pw_stream_add_listener(c->stream, &c->stream_listener, &stream_events, c);

	uint8_t pbuf[1024];
	struct spa_pod_builder pb = SPA_POD_BUILDER_INIT(pbuf, sizeof pbuf);
	const struct spa_pod *params[1];
	params[0] = spa_pod_builder_add_object(&pb,
		SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat,
		SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video),
		SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw),
		SPA_FORMAT_VIDEO_format, SPA_POD_CHOICE_ENUM_Id(11,
			SPA_VIDEO_FORMAT_BGRx, SPA_VIDEO_FORMAT_BGRx, SPA_VIDEO_FORMAT_RGBx,
			SPA_VIDEO_FORMAT_BGRA, SPA_VIDEO_FORMAT_RGBA, SPA_VIDEO_FORMAT_xRGB,
			SPA_VIDEO_FORMAT_xBGR, SPA_VIDEO_FORMAT_ARGB, SPA_VIDEO_FORMAT_ABGR,
			SPA_VIDEO_FORMAT_RGB, SPA_VIDEO_FORMAT_BGR),
		SPA_FORMAT_VIDEO_size, SPA_POD_CHOICE_RANGE_Rectangle(
			&SPA_RECTANGLE(1280, 720), &SPA_RECTANGLE(1, 1), &SPA_RECTANGLE(16384, 16384)),
		SPA_FORMAT_VIDEO_framerate, SPA_POD_CHOICE_RANGE_Fraction(
			&SPA_FRACTION(30, 1), &SPA_FRACTION(0, 1), &SPA_FRACTION(1000, 1)));
	int res = pw_stream_connect(c->stream, PW_DIRECTION_INPUT, node,
		PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS, params, 1);
	pw_thread_loop_unlock(c->loop);
	if (res < 0) {
		snprintf(err, errlen, "pw_stream_connect: %s", spa_strerror(res));
		aimdesk_pw_close(c);
		return NULL;
	}
	return c;
}

int aimdesk_pw_read(aimdesk_pw *c, uint8_t *dst, size_t cap, uint64_t *seq, int *w, int *h, int timeout_ms, char *err, size_t errlen) {
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&c->mu);
	while (!c->failed && c->seq == *seq) {
		if (pthread_cond_timedwait(&c->cond, &c->mu, &until) == ETIMEDOUT)
			break;
	}
	int ret;
	if (c->failed) {
		snprintf(err, errlen, "%s", c->err);
		ret = -1;
	} else if (c->seq == *seq) {
		ret = 1;
	} else if (cap < (size_t)c->w * c->h * 4) {
		*w = c->w;
		*h = c->h;
		ret = 2;
	} else {
		memcpy(dst, c->frame, (size_t)c->w * c->h * 4);
		*w = c->w;
		*h = c->h;
		*seq = c->seq;
		ret = 0;
	}
	pthread_mutex_unlock(&c->mu);
	return ret;
}

void aimdesk_pw_close(aimdesk_pw *c) {
	if (!c)
		return;
	if (c->loop)
		pw_thread_loop_lock(c->loop);
	if (c->stream) {
		spa_hook_remove(&c->stream_listener);
		pw_stream_disconnect(c->stream);
		pw_stream_destroy(c->stream);
	}
	if (c->registry) {
		spa_hook_remove(&c->registry_listener);
		pw_proxy_destroy((struct pw_proxy *)c->registry);
	}
	if (c->core) {
		spa_hook_remove(&c->core_listener);
		pw_core_disconnect(c->core);
	}
	if (c->loop) {
		pw_thread_loop_unlock(c->loop);
		pw_thread_loop_stop(c->loop);
	}
	if (c->ctx)
		pw_context_destroy(c->ctx);
	if (c->loop)
		pw_thread_loop_destroy(c->loop);
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->mu);
	free(c->frame);
	free(c);
}
