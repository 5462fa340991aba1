// shim.h is the C API over WebRTC's C++ AudioProcessing class that the Go
// code calls through cgo. One implementation (shim.cc) serves
// webrtc-audio-processing 0.3 and, when AIMDESK_APM1 is defined (build tag
// apm1), webrtc-audio-processing-1.
#ifndef AIMDESK_APM_SHIM_H
#define AIMDESK_APM_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aimdesk_apm aimdesk_apm;

typedef struct {
	int sample_rate;
	int channels;
	int echo_cancel;
	int noise_suppress;
	int high_pass;
	int voice_detect;
	int extended_filter; // 0.3 only (AEC3 has no such switch)
	int soft_double_talk; // 0.3 only, with extended_filter (Config.SoftDoubleTalk)
	int double_talk; // 0.3 only: Config.DoubleTalk (our detector softens the suppressor)
} aimdesk_apm_config;

typedef struct {
	int has_erle;
	double erle_db;
	int has_delay;
	int delay_ms;
	int soft_double_talk; // Config.SoftDoubleTalk is in effect
	int double_talk; // Config.DoubleTalk is in effect
	unsigned long long dt_parts, parts; // suppressor runs softened / all (Config.DoubleTalk)
} aimdesk_apm_stats;

// aimdesk_apm_new creates a processor; on failure it returns NULL and sets
// *err to the library's error code.
aimdesk_apm *aimdesk_apm_new(const aimdesk_apm_config *cfg, int *err);
void aimdesk_apm_free(aimdesk_apm *a);

// aimdesk_apm_reverse analyses one 10 ms far-end block (n values,
// interleaved). It returns 0 or a negative library error code.
int aimdesk_apm_reverse(aimdesk_apm *a, const int16_t *pcm, int n);

// aimdesk_apm_capture processes one 10 ms capture block in place, with the
// echo delay in ms. It returns a negative library error code, or 1 when
// voice was detected in the block and 0 when not.
int aimdesk_apm_capture(aimdesk_apm *a, int16_t *pcm, int n, int delay_ms);

// aimdesk_apm_get_stats fills *s with what the library reports.
void aimdesk_apm_get_stats(aimdesk_apm *a, aimdesk_apm_stats *s);

// aimdesk_apm_library names the library the shim was compiled against.
const char *aimdesk_apm_library(void);

#ifdef __cplusplus
}
#endif

#endif
