// Package e2e holds end-to-end tests that need both sides of a call: the
// reference agent (app/devagent) and the media engine (media), which app/
// may not import. They run against a real livekit-server on loopback
// (media/lktest) with the engine on miniaudio's null backend and simulated
// microphones (media.MicOptions.Generator) fed by a recording of speech
// (testdata/speech.wav, made by testdata/speech.sh) and by an echo path
// built from what the speaker plays (media.SpeakerOptions.Tap).
//
// The package has no code of its own: only tests.
package e2e
