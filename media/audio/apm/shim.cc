//go:build cgo && !noapm

// shim.cc implements shim.h. Hand-written because there is no Go binding of
// WebRTC's audio processing module: it is a C++ class library, and cgo
// calls only C. The shim keeps one preallocated frame per direction, so
// processing a block allocates nothing.

#include "shim.h"

#include <math.h>
#include <string.h>

#ifdef AIMDESK_APM1
#include <modules/audio_processing/include/audio_processing.h>
#else
#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <webrtc/modules/interface/module_common_types.h>
#endif

#ifdef AIMDESK_APM1
extern "C" {
typedef struct WebRtcVadInst VadInst;
}
#endif

// kDtLags is the double-talk detector's echo-path span in 10 ms blocks.
enum { kDtLags = 40 };

struct aimdesk_apm {
	webrtc::AudioProcessing *apm;
	int rate;
	int channels;
	int samples;  // per channel in 10 ms
	bool echo;
	bool vad;
	bool soft; // soft_double_talk applied (0.3)
	bool dt;   // double_talk: our detector drives the suppressor (0.3)
	// the double-talk detector's state (0.3, see dt_suppress)
	float dt_far[kDtLags]; // far-end blocks' mean squares, the last 400 ms (ring, newest at dt_far_pos - 1)
	int dt_far_pos;
	float dt_x[kDtLags];   // the regressor: dt_far by lag, each the loudest of its +-3 blocks
	float dt_h[kDtLags];   // the echo's power response by lag (learnt)
	float dt_echo;         // the echo's mean square predicted for this block
	float dt_mic;          // the capture block's mean square, before processing
	float dt_floor;        // the microphone's noise floor (tracked minimum of dt_mic)
	int dt_learnt;         // blocks the power response learnt from
	float dt_lin;          // the linear filter's output this block (sum of partitions' mean squares)
	int dt_nparts;         // partitions this block
	bool dt_loud;          // the block passes the energy checks
	int dt_on;             // partitions left in the current double talk (hangover)
	int dt_run;            // consecutive partitions that looked like near-end speech
	unsigned long long dt_parts, parts;
#ifdef AIMDESK_APM1
	VadInst *vad_inst;       // our voice detector (nullptr without voice_detect)
	int16_t vad_mix[480];    // a stereo block mixed to mono for the VAD
	int16_t reverse_out[480 * 2]; // ProcessReverseStream's output (discarded)
	webrtc::AudioProcessingStats stats; // the library's, after the last capture block
#else
	webrtc::AudioFrame capture;
	webrtc::AudioFrame reverse;
#endif
};

#ifdef AIMDESK_APM1

// webrtc-audio-processing-1: AEC3 configured through AudioProcessing::Config.
// Built and tested against 1.3 (docs/media.md, "Echo cancellation with
// webrtc-audio-processing-1"). The 0.3-only switches (extended_filter,
// soft_double_talk, double_talk) are ignored: AEC3 aligns the far end with
// its own delay estimator (so the echo is found also when the reported
// delay is far off, which is what the extended filter was for on 0.3) and
// has its own double-talk handling (its suppressor's dominant-near-end
// detector); the classic AEC's suppressor that dt_suppress wraps does not
// exist in 1.x. Stats say they are not in effect.
//
// Voice activity: 1.x's VoiceDetection (deprecated there, gone in 2.x) is
// hard-wired to its least sensitive setting (kVeryLowLikelihood, the VAD's
// mode 3), which marks fewer speech blocks as voice than the 0.3 side's
// kModerateLikelihood (mode 1) and so slows the Go gain stage's learning
// (agc.go; TestAutoGainRaisesQuietTalker missed its 3 s with it). The shim
// runs the same WebRTC VAD itself, in mode 1, on the processed block (as
// 0.3 does after the canceller and the noise suppressor): both libraries
// then report voice alike. The library exports the VAD's C functions
// (common_audio/vad/include/webrtc_vad.h, not among its installed
// headers): declared here.
extern "C" {
VadInst *WebRtcVad_Create(void);
void WebRtcVad_Free(VadInst *handle);
int WebRtcVad_Init(VadInst *handle);
int WebRtcVad_set_mode(VadInst *handle, int mode);
int WebRtcVad_Process(VadInst *handle, int fs, const int16_t *audio_frame, size_t frame_length);
}

// kVadMode is 0.3's kModerateLikelihood.
enum { kVadMode = 1 };

extern "C" aimdesk_apm *aimdesk_apm_new(const aimdesk_apm_config *cfg, int *err) {
	*err = 0;
	webrtc::AudioProcessing::Config c;
	c.pipeline.multi_channel_capture = cfg->channels > 1;
	c.pipeline.multi_channel_render = cfg->channels > 1;
	c.echo_canceller.enabled = cfg->echo_cancel != 0;
	c.echo_canceller.mobile_mode = false;
	c.noise_suppression.enabled = cfg->noise_suppress != 0;
	// the same level as the 0.3 side (12 dB)
	c.noise_suppression.level = webrtc::AudioProcessing::Config::NoiseSuppression::kModerate;
	// no library AGC: the Go gain stage (agc.go) runs after the shim
	c.gain_controller1.enabled = false;
	c.gain_controller2.enabled = false;
	c.high_pass_filter.enabled = cfg->high_pass != 0;
	// voice activity: our own VAD (see above)
	c.voice_detection.enabled = false;
	webrtc::AudioProcessing *apm = webrtc::AudioProcessingBuilder().Create();
	if (apm == nullptr) {
		*err = webrtc::AudioProcessing::kCreationFailedError;
		return nullptr;
	}
	apm->ApplyConfig(c);
	webrtc::StreamConfig sc(cfg->sample_rate, cfg->channels);
	webrtc::ProcessingConfig pc = {{sc, sc, sc, sc}};
	int rc = apm->Initialize(pc);
	VadInst *vad = nullptr;
	if (rc == webrtc::AudioProcessing::kNoError && cfg->voice_detect) {
		vad = WebRtcVad_Create();
		if (vad == nullptr || WebRtcVad_Init(vad) != 0 || WebRtcVad_set_mode(vad, kVadMode) != 0) {
			rc = webrtc::AudioProcessing::kCreationFailedError;
		}
	}
	if (rc != webrtc::AudioProcessing::kNoError) {
		if (vad != nullptr) WebRtcVad_Free(vad);
		delete apm;
		*err = rc;
		return nullptr;
	}
	aimdesk_apm *a = new aimdesk_apm();
	a->apm = apm;
	a->vad_inst = vad;
	a->rate = cfg->sample_rate;
	a->channels = cfg->channels;
	a->samples = cfg->sample_rate / 100;
	a->echo = cfg->echo_cancel != 0;
	a->vad = cfg->voice_detect != 0;
	return a;
}

extern "C" int aimdesk_apm_reverse(aimdesk_apm *a, const int16_t *pcm, int n) {
	if (n != a->samples * a->channels) return webrtc::AudioProcessing::kBadDataLengthError;
	webrtc::StreamConfig sc(a->rate, a->channels);
	// the output is discarded: render-side processing does not change what
	// was already played
	return a->apm->ProcessReverseStream(pcm, sc, sc, a->reverse_out);
}

extern "C" int aimdesk_apm_capture(aimdesk_apm *a, int16_t *pcm, int n, int delay_ms) {
	if (n != a->samples * a->channels) return webrtc::AudioProcessing::kBadDataLengthError;
	webrtc::StreamConfig sc(a->rate, a->channels);
	// delays above 500 ms are clamped with a warning: not an error
	if (a->echo) a->apm->set_stream_delay_ms(delay_ms);
	int rc = a->apm->ProcessStream(pcm, sc, sc, pcm);
	if (rc != webrtc::AudioProcessing::kNoError && rc != webrtc::AudioProcessing::kBadStreamParameterWarning) {
		return rc < 0 ? rc : 0;
	}
	// The library hands its statistics over through a queue of one that
	// drops new ones while full: read after every block, or GetStatistics
	// returns those of the block after the previous read (stale by the
	// whole call when Stats is asked rarely).
	if (a->echo) a->stats = a->apm->GetStatistics();
	if (!a->vad) return 0;
	const int16_t *mono = pcm;
	if (a->channels > 1) {
		// the VAD takes one channel: the mean of the channels
		for (int i = 0; i < a->samples; i++) {
			int sum = 0;
			for (int ch = 0; ch < a->channels; ch++) sum += pcm[i * a->channels + ch];
			a->vad_mix[i] = (int16_t)(sum / a->channels);
		}
		mono = a->vad_mix;
	}
	return WebRtcVad_Process(a->vad_inst, a->rate, mono, a->samples) == 1 ? 1 : 0;
}

extern "C" void aimdesk_apm_get_stats(aimdesk_apm *a, aimdesk_apm_stats *s) {
	memset(s, 0, sizeof *s);
	if (!a->echo) return;
	const webrtc::AudioProcessingStats &st = a->stats;
	// AEC3's ERLE is its estimate for its linear filter alone (bounded by
	// the library's configuration; see Stats.ERLE), not what the whole
	// canceller removed
	if (st.echo_return_loss_enhancement) {
		s->has_erle = 1;
		s->erle_db = *st.echo_return_loss_enhancement;
	}
	if (st.delay_ms) {
		s->has_delay = 1;
		s->delay_ms = *st.delay_ms;
	}
}

extern "C" const char *aimdesk_apm_library(void) { return "WebRTC APM 1 (AEC3)"; }

#else

// webrtc-audio-processing 0.3: the classic AEC, configured through the
// component interfaces.

// The classic AEC's core (aec_core.c of webrtc-audio-processing 0.3) is a
// C struct behind EchoCancellation::aec_core(); these two functions are
// exported by the library but declared only in its private headers.
extern "C" {
int WebRtcAec_extended_filter_enabled(struct AecCore *self);
void WebRtcAec_enable_extended_filter(struct AecCore *self, int enable);
}

// soft_double_talk turns the extended filter (on when called) into a
// 128 ms filter with the normal filter's nonlinear suppressor and a slower
// filter adaptation (see Config.SoftDoubleTalk in apm.go for why and what
// it measured). 0.3 has no API for it: the extended-filter flag selects the
// filter length (num_partitions), the suppressor's minimum overdrive (3.0
// instead of 1.0 at the lowest suppression level), the step size and the
// delay handling together. This keeps num_partitions at 32, clears the
// flag, and sets the normal step size (normal_mu) to 0.3 and its error
// threshold to 1e-6 (the extended mode's).
//
// Fields of struct AecCore (aec_core_internal.h of 0.3), at their x86-64
// offsets in Debian 12's libwebrtc-audio-processing1 0.3-1+b1:
//   float normal_mu, normal_error_threshold;  at 0xd8dc
//   int extended_filter_enabled, num_partitions;  at 0xdc34
// Nothing is written unless every check holds: the flag and the partition
// count follow WebRtcAec_enable_extended_filter (12/32 partitions), the
// accessor reads the same flag, and the step size and threshold hold the
// library's values for the 16 kHz band (0.5, 1.5e-6). Otherwise the
// extended filter stays as it is and 0 is returned; 1 when applied.
static int soft_double_talk(webrtc::EchoCancellation *ec) {
	struct AecCore *core = ec->aec_core();
	if (core == nullptr || WebRtcAec_extended_filter_enabled(core) != 1) return 0;
	char *base = reinterpret_cast<char *>(core);
	int *flag = reinterpret_cast<int *>(base + 0xdc34);
	int *parts = flag + 1;
	float *mu = reinterpret_cast<float *>(base + 0xd8dc);
	float *thresh = mu + 1;
	if (*flag != 1 || *parts != 32 || *mu != 0.5f || *thresh != 1.5e-6f) return 0;
	WebRtcAec_enable_extended_filter(core, 0);
	bool ok = *flag == 0 && *parts == 12 && WebRtcAec_extended_filter_enabled(core) == 0;
	WebRtcAec_enable_extended_filter(core, 1);
	ok = ok && *flag == 1 && *parts == 32 && WebRtcAec_extended_filter_enabled(core) == 1;
	if (!ok) return 0;
	*flag = 0; // num_partitions stays 32
	*mu = 0.3f;
	*thresh = 1e-6f;
	return 1;
}

// ---- double talk (Config.DoubleTalk) ----
//
// The classic AEC's nonlinear suppressor (NonLinearProcessing in aec_core.c)
// computes, per 4 ms partition of the 0-8 kHz band, a gain per frequency bin
// hNl = min(coherence(mic, linear output), 1 - coherence(far, mic)) and
// applies hNl^(overdrive x curve): with the extended filter the overdrive is
// at least 3 (the curve runs 1..2), so a bin that is 80 % near end still
// loses 3-6 dB. The library picks the suppressor through a function
// pointer it exports for its SIMD variants (WebRtcAec_OverdriveAndSuppress;
// set by WebRtcAec_CreateAec, the SSE2 one on x86; its arguments, checked
// in the library's disassembly: the core, hNl, hNlFb, the linear output's
// spectrum). dt_suppress wraps it: it runs the library's suppressor
// unchanged and, while our detector says the user talks over the far end,
// raises every bin's final gain to the power kDtSoft (the overdrive
// divided by 3: the extended filter's suppressor becomes as gentle as the
// 48 ms filter's). Outside double talk the output is bit for bit the
// library's. No field of the library's structs is read or written.
//
// The detector (per partition, all must hold):
//   - the far end played (above kDtFarActive) in the last kDtLags blocks;
//   - the microphone block is kDtAbove over the echo predicted from the far
//     end: a power response of the echo path over kDtLags 10 ms lags,
//     learnt by normalised LMS on blocks that are echo only and where the
//     microphone is above its noise floor (the first
//     kDtLearn blocks with the far end playing, then those where the
//     linear filter removed kDtEchoOnly or the prediction explains the
//     microphone); each lag's far-end power is the loudest of +-kDtSmear
//     blocks, so that a changed echo delay is still predicted (the linear
//     filter, and with it the suppressor's coherence, has to re-learn it);
//   - the microphone is kDtFloor over its noise floor;
//   - the library's suppressor sees near end (hNlFb > kDtCoherent);
//   - its linear filter removed less than kDtLinear from the microphone;
// kDtRun such partitions in a row start double talk; it lasts kDtHold
// partitions after the last.
extern "C" {
typedef void (*aec_suppress_fn)(struct AecCore *aec, float *hNl, const float hNlFb, float (*efw)[65]);
extern aec_suppress_fn WebRtcAec_OverdriveAndSuppress;
}

static aec_suppress_fn lib_suppress;              // the library's suppressor
static thread_local aimdesk_apm *dt_current;      // the processor in ProcessStream on this thread

// The detector's settings (measured in TestVoiceBenchEcho's scenarios and
// TestDoubleTalkNotOnEcho, see Config.DoubleTalk).
static const float kDtSoft = 1.0f / 3;  // the exponent on the library's gains in double talk
static const float kDtCoherent = 0.5f;  // hNlFb above: the suppressor sees near end in this partition
static const float kDtLinear = 0.2512f; // -6 dB: the linear filter removed less than this
static const float kDtEchoOnly = 0.1f;  // -10 dB: the linear filter removed at least this: echo only
static const float kDtAbove = 3.981f;   // +6 dB: the microphone is this far above the predicted echo
static const float kDtFloor = 31.62f;   // +15 dB: the microphone is this far above its noise floor
static const float kDtMu = 0.3f;        // the power response's step size (normalised LMS)
static const int kDtSmear = 4;          // +-blocks of echo delay change the prediction absorbs
static const int kDtRun = 2;            // partitions (4 ms each) in a row that look like near end
static const int kDtHold = 50;          // partitions double talk lasts after the last one (200 ms)
static const int kDtLearn = 50;         // blocks learnt before the detector may say double talk
static const float kDtFarActive = 32768.0f * 32768.0f * 1e-5f; // -50 dBFS: the far end plays

static float mean_square(const int16_t *pcm, int n) {
	float ms = 0;
	for (int i = 0; i < n; i++) ms += (float)pcm[i] * (float)pcm[i];
	return ms / n;
}

// dt_far is called with every far-end block.
static void dt_far(aimdesk_apm *a, const int16_t *pcm, int n) {
	a->dt_far[a->dt_far_pos] = mean_square(pcm, n);
	a->dt_far_pos = (a->dt_far_pos + 1) % kDtLags;
}

// dt_before is called with every capture block before the library runs:
// it predicts the echo's power in the block from the far end's.
static void dt_before(aimdesk_apm *a, const int16_t *pcm, int n) {
	float far[kDtLags];
	for (int k = 0; k < kDtLags; k++) far[k] = a->dt_far[(a->dt_far_pos - 1 - k + 2 * kDtLags) % kDtLags];
	a->dt_echo = 0;
	float xmax = 0;
	for (int k = 0; k < kDtLags; k++) {
		float m = 0;
		for (int j = k - kDtSmear; j <= k + kDtSmear; j++) {
			if (j >= 0 && j < kDtLags && far[j] > m) m = far[j];
		}
		a->dt_x[k] = m;
		a->dt_echo += a->dt_h[k] * m;
		xmax = m > xmax ? m : xmax;
	}
	a->dt_mic = mean_square(pcm, n);
	a->dt_floor = a->dt_floor == 0 || a->dt_mic < a->dt_floor ? a->dt_mic : a->dt_floor * 1.001f;
	// double talk needs the far end playing (in the last 400 ms): the
	// user talking alone is left to the library
	a->dt_loud = a->dt_learnt >= kDtLearn && xmax >= kDtFarActive &&
		a->dt_mic > a->dt_floor * kDtFloor && a->dt_mic > a->dt_echo * kDtAbove;
	a->dt_lin = 0;
	a->dt_nparts = 0;
}

// dt_after is called with every capture block after the library ran: it
// learns the echo's power response from blocks that are echo only.
static void dt_after(aimdesk_apm *a) {
	float xx = 0, xmax = 0;
	for (int k = 0; k < kDtLags; k++) {
		xx += a->dt_x[k] * a->dt_x[k];
		xmax = a->dt_x[k] > xmax ? a->dt_x[k] : xmax;
	}
	// (a microphone at its noise floor while the far end plays is no echo
	// path but a muted microphone or speaker, or a capture gap: it would
	// teach the response a silence the echo does not keep)
	if (a->dt_nparts == 0 || xmax < kDtFarActive || a->dt_mic < a->dt_floor * kDtFloor) return;
	bool echo = a->dt_learnt < kDtLearn ||                   // the call starts with the far end alone
		a->dt_lin / a->dt_nparts < a->dt_mic * kDtEchoOnly || // the linear filter explains the microphone
		(a->dt_on == 0 && a->dt_mic < a->dt_echo * kDtAbove); // the prediction does
	if (!echo) return;
	float step = kDtMu * (a->dt_mic - a->dt_echo) / xx;
	for (int k = 0; k < kDtLags; k++) {
		float h = a->dt_h[k] + step * a->dt_x[k];
		a->dt_h[k] = h > 0 ? h : 0;
	}
	a->dt_learnt++;
}

static void dt_suppress(struct AecCore *aec, float *hNl, const float hNlFb, float (*efw)[65]) {
	aimdesk_apm *a = dt_current;
	aec_suppress_fn lib = __atomic_load_n(&lib_suppress, __ATOMIC_ACQUIRE);
	if (a == nullptr || !a->dt) {
		lib(aec, hNl, hNlFb, efw);
		return;
	}
	a->parts++;
	// the linear filter's output in mean-square units of the capture
	// block (the partition's 128-point windowed FFT)
	float e = 0;
	for (int i = 0; i < 65; i++) e += efw[0][i] * efw[0][i] + efw[1][i] * efw[1][i];
	e *= 1.4f / 4096;
	a->dt_lin += e;
	a->dt_nparts++;
	bool near = a->dt_loud && hNlFb > kDtCoherent && e > a->dt_mic * kDtLinear;
	a->dt_run = near ? a->dt_run + 1 : 0;
	if (a->dt_run >= kDtRun) a->dt_on = kDtHold;
	if (a->dt_on == 0) {
		lib(aec, hNl, hNlFb, efw);
		return;
	}
	a->dt_on--;
	a->dt_parts++;
	float in[2][65];
	memcpy(in, efw, sizeof in);
	lib(aec, hNl, hNlFb, efw);
	// hNl now holds the gains the library applied (efw = in x hNl, with the
	// imaginary part's sign flipped for the inverse FFT)
	for (int i = 0; i < 65; i++) {
		float g = powf(hNl[i], kDtSoft);
		hNl[i] = g;
		efw[0][i] = in[0][i] * g;
		efw[1][i] = -in[1][i] * g;
	}
}

// dt_hook makes dt_suppress the library's suppressor. Every AEC the library
// creates resets the pointer, so it is checked before every capture block.
static void dt_hook(void) {
	aec_suppress_fn cur = __atomic_load_n(&WebRtcAec_OverdriveAndSuppress, __ATOMIC_ACQUIRE);
	if (cur == &dt_suppress || cur == nullptr) return;
	__atomic_store_n(&lib_suppress, cur, __ATOMIC_RELEASE);
	__atomic_store_n(&WebRtcAec_OverdriveAndSuppress, &dt_suppress, __ATOMIC_RELEASE);
}

extern "C" aimdesk_apm *aimdesk_apm_new(const aimdesk_apm_config *cfg, int *err) {
	*err = 0;
	webrtc::Config config;
	// the AEC estimates the delay itself (the reported delay is where it
	// starts): the devices' buffer sizes are only approximately known
	config.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(true));
	// the extended filter (128 ms instead of 48 ms) when asked for (see
	// Config.ExtendedFilter in apm.go)
	config.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(cfg->extended_filter != 0));
	// the experimental AGC drives the analog (hardware) volume: not used
	config.Set<webrtc::ExperimentalAgc>(new webrtc::ExperimentalAgc(false));
	webrtc::AudioProcessing *apm = webrtc::AudioProcessing::Create(config);
	if (apm == nullptr) {
		*err = webrtc::AudioProcessing::kCreationFailedError;
		return nullptr;
	}
	webrtc::StreamConfig sc(cfg->sample_rate, cfg->channels, false);
	webrtc::ProcessingConfig pc = {{sc, sc, sc, sc}};
	int rc = apm->Initialize(pc);
	int soft = 0;
	if (rc == webrtc::AudioProcessing::kNoError) {
		rc = apm->high_pass_filter()->Enable(cfg->high_pass != 0);
	}
	if (rc == webrtc::AudioProcessing::kNoError && cfg->echo_cancel) {
		webrtc::EchoCancellation *ec = apm->echo_cancellation();
		ec->enable_drift_compensation(false);
		// the lowest suppression keeps the most of the user's voice while
		// both talk; it still removes > 35 dB of echo in the tests
		ec->set_suppression_level(webrtc::EchoCancellation::kLowSuppression);
		ec->enable_metrics(true);
		ec->enable_delay_logging(true);
		rc = ec->Enable(true);
		if (rc == webrtc::AudioProcessing::kNoError && cfg->extended_filter && cfg->soft_double_talk) {
			soft = soft_double_talk(ec);
		}
	}
	if (rc == webrtc::AudioProcessing::kNoError && cfg->noise_suppress) {
		apm->noise_suppression()->set_level(webrtc::NoiseSuppression::kModerate);
		rc = apm->noise_suppression()->Enable(true);
	}
	// no library AGC (it is off by default): the Go gain stage (agc.go)
	// runs after the shim
	if (rc == webrtc::AudioProcessing::kNoError && cfg->voice_detect) {
		apm->voice_detection()->set_likelihood(webrtc::VoiceDetection::kModerateLikelihood);
		apm->voice_detection()->set_frame_size_ms(10);
		rc = apm->voice_detection()->Enable(true);
	}
	if (rc != webrtc::AudioProcessing::kNoError) {
		delete apm;
		*err = rc;
		return nullptr;
	}
	aimdesk_apm *a = new aimdesk_apm();
	a->apm = apm;
	a->rate = cfg->sample_rate;
	a->channels = cfg->channels;
	a->samples = cfg->sample_rate / 100;
	a->echo = cfg->echo_cancel != 0;
	a->vad = cfg->voice_detect != 0;
	a->soft = soft != 0;
	a->dt = cfg->echo_cancel && cfg->double_talk;
	for (webrtc::AudioFrame *f : {&a->capture, &a->reverse}) {
		f->sample_rate_hz_ = a->rate;
		f->num_channels_ = a->channels;
		f->samples_per_channel_ = a->samples;
	}
	return a;
}

static void fill_frame(aimdesk_apm *a, webrtc::AudioFrame *f, const int16_t *pcm, int n) {
	// ProcessStream may change these (it reinitialises on a change): reset
	f->sample_rate_hz_ = a->rate;
	f->num_channels_ = a->channels;
	f->samples_per_channel_ = a->samples;
	memcpy(f->data_, pcm, sizeof(int16_t) * n);
}

extern "C" int aimdesk_apm_reverse(aimdesk_apm *a, const int16_t *pcm, int n) {
	if (n != a->samples * a->channels) return webrtc::AudioProcessing::kBadDataLengthError;
	fill_frame(a, &a->reverse, pcm, n);
	if (a->dt) dt_far(a, pcm, n);
	return a->apm->ProcessReverseStream(&a->reverse);
}

extern "C" int aimdesk_apm_capture(aimdesk_apm *a, int16_t *pcm, int n, int delay_ms) {
	if (n != a->samples * a->channels) return webrtc::AudioProcessing::kBadDataLengthError;
	fill_frame(a, &a->capture, pcm, n);
	if (a->echo) {
		// delays above 500 ms are clamped with a warning: not an error
		a->apm->set_stream_delay_ms(delay_ms);
	}
	if (a->soft) {
		// the library re-applies the extended filter's settings when it
		// reinitialises (it should not: the format never changes)
		struct AecCore *core = a->apm->echo_cancellation()->aec_core();
		if (core == nullptr || WebRtcAec_extended_filter_enabled(core) != 0) {
			a->soft = soft_double_talk(a->apm->echo_cancellation()) != 0;
		}
	}
	if (a->dt) {
		dt_before(a, pcm, n);
		dt_hook();
		dt_current = a;
	}
	int rc = a->apm->ProcessStream(&a->capture);
	if (a->dt) {
		dt_current = nullptr;
		dt_after(a);
	}
	if (rc != webrtc::AudioProcessing::kNoError && rc != webrtc::AudioProcessing::kBadStreamParameterWarning) {
		return rc < 0 ? rc : 0;
	}
	memcpy(pcm, a->capture.data_, sizeof(int16_t) * n);
	if (!a->vad) return 0;
	return a->apm->voice_detection()->stream_has_voice() ? 1 : 0;
}

extern "C" void aimdesk_apm_get_stats(aimdesk_apm *a, aimdesk_apm_stats *s) {
	memset(s, 0, sizeof *s);
	if (!a->echo) return;
	s->soft_double_talk = a->soft ? 1 : 0;
	s->double_talk = a->dt ? 1 : 0;
	s->dt_parts = a->dt_parts;
	s->parts = a->parts;
	webrtc::EchoCancellation *ec = a->apm->echo_cancellation();
	webrtc::EchoCancellation::Metrics m;
	if (ec->GetMetrics(&m) == webrtc::AudioProcessing::kNoError && m.echo_return_loss_enhancement.average != -100) {
		s->has_erle = 1;
		s->erle_db = m.echo_return_loss_enhancement.average;
	}
	int median = 0, stddev = 0;
	float poor = 0;
	if (ec->GetDelayMetrics(&median, &stddev, &poor) == webrtc::AudioProcessing::kNoError && median >= 0) {
		s->has_delay = 1;
		s->delay_ms = median;
	}
}

extern "C" const char *aimdesk_apm_library(void) { return "WebRTC APM 0.3 (AEC)"; }

#endif

extern "C" void aimdesk_apm_free(aimdesk_apm *a) {
	if (a == nullptr) return;
#ifdef AIMDESK_APM1
	if (a->vad_inst != nullptr) WebRtcVad_Free(a->vad_inst);
#endif
	delete a->apm;
	delete a;
}
