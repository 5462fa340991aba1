//go:build cgo && !noapm

// shim.cc implements shim.h. Hand-written because there is no Go binding of
// WebRTC's audio processing module: it is a C++ class library, and cgo
// calls only C. The shim keeps one preallocated frame per direction, so
// processing a block allocates nothing.

#include "shim.h"

#include <string.h>

#ifdef AIMDESK_APM1
#include <modules/audio_processing/include/audio_processing.h>
#else
#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <webrtc/modules/interface/module_common_types.h>
#endif

struct aimdesk_apm {
	webrtc::AudioProcessing *apm;
	int rate;
	int channels;
	int samples;  // per channel in 10 ms
	bool echo;
	bool vad;
	bool soft; // soft_double_talk applied (0.3)
#ifndef AIMDESK_APM1
	webrtc::AudioFrame capture;
	webrtc::AudioFrame reverse;
#endif
};

#ifdef AIMDESK_APM1

// webrtc-audio-processing-1: AEC3 configured through AudioProcessing::Config.

extern "C" aimdesk_apm *aimdesk_apm_new(const aimdesk_apm_config *cfg, int *err) {
	*err = 0;
	webrtc::AudioProcessing *apm = webrtc::AudioProcessingBuilder().Create();
	if (apm == nullptr) {
		*err = webrtc::AudioProcessing::kCreationFailedError;
		return nullptr;
	}
	webrtc::AudioProcessing::Config c;
	c.pipeline.multi_channel_capture = cfg->channels > 1;
	c.pipeline.multi_channel_render = cfg->channels > 1;
	c.echo_canceller.enabled = cfg->echo_cancel != 0;
	c.echo_canceller.mobile_mode = false;
	c.noise_suppression.enabled = cfg->noise_suppress != 0;
	c.noise_suppression.level = webrtc::AudioProcessing::Config::NoiseSuppression::kHigh;
	// no library AGC: the Go gain stage (agc.go) runs after the shim
	c.gain_controller1.enabled = false;
	c.high_pass_filter.enabled = cfg->high_pass != 0;
	c.voice_detection.enabled = cfg->voice_detect != 0;
	apm->ApplyConfig(c);
	webrtc::StreamConfig sc(cfg->sample_rate, cfg->channels);
	webrtc::ProcessingConfig pc = {{sc, sc, sc, sc}};
	int rc = apm->Initialize(pc);
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
	return a;
}

extern "C" int aimdesk_apm_reverse(aimdesk_apm *a, const int16_t *pcm, int n) {
	if (n != a->samples * a->channels) return webrtc::AudioProcessing::kBadDataLengthError;
	webrtc::StreamConfig sc(a->rate, a->channels);
	// the output is discarded: render-side processing does not change what
	// was already played
	int16_t out[480 * 2];
	return a->apm->ProcessReverseStream(pcm, sc, sc, out);
}

extern "C" int aimdesk_apm_capture(aimdesk_apm *a, int16_t *pcm, int n, int delay_ms) {
	if (n != a->samples * a->channels) return webrtc::AudioProcessing::kBadDataLengthError;
	webrtc::StreamConfig sc(a->rate, a->channels);
	if (a->echo) a->apm->set_stream_delay_ms(delay_ms);
	int rc = a->apm->ProcessStream(pcm, sc, sc, pcm);
	if (rc != webrtc::AudioProcessing::kNoError) return rc < 0 ? rc : 0;
	if (!a->vad) return 0;
	webrtc::AudioProcessingStats st = a->apm->GetStatistics();
	return (st.voice_detected && *st.voice_detected) ? 1 : 0;
}

extern "C" void aimdesk_apm_get_stats(aimdesk_apm *a, aimdesk_apm_stats *s) {
	memset(s, 0, sizeof *s);
	webrtc::AudioProcessingStats st = a->apm->GetStatistics();
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
	int rc = a->apm->ProcessStream(&a->capture);
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
	delete a->apm;
	delete a;
}
