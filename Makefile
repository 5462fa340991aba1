# aimdesk: build, run, test and package.
#
#   make demo     install what is missing, build, open the app with the demo agent
#   make test     install what is missing, go vet, go test -race, smoke test under Xvfb
#   make help     all targets and variables
#
# demo and test run scripts/setup.sh first, which installs missing Debian
# packages, the en_US.UTF-8 locale, livekit-server (into bin/) and the Go
# modules, and does nothing when they are all present. Every target can be
# run again; each phase prints how long it took.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build
MAKEFLAGS += --no-print-directory

GO ?= go
# Extra flags for go test in `make test`, e.g. GOTESTFLAGS='-run TestX -v -count=1'.
GOTESTFLAGS ?=
# Per-package go test timeout: the race detector and live-SFU tests are slow.
TEST_TIMEOUT ?= 20m
# Extra flags for go build of build/aimdesk and its plugin, e.g. BUILDFLAGS=-race
# (a -tags here replaces the Makefile's tags, aimdesk_plugin among them).
BUILDFLAGS ?=
# How long each fuzz target runs in `make fuzz`.
FUZZTIME ?= 60s
# -bench pattern and extra flags for `make bench`, e.g. BENCHFLAGS='-count=5'.
BENCH ?= .
BENCHFLAGS ?=
# Locale for everything that starts Fyne (the app, tests, benchmarks): Fyne
# reads the language from LC_ALL/LANG and logs errors for C or POSIX. The
# set-up generates it; setup itself runs in the caller's locale.
APP_LANG ?= en_US.UTF-8

# Echo cancellation (media/audio/apm) links WebRTC's audio processing
# library: webrtc-audio-processing 0.3 by default (Debian 12). Where
# pkg-config finds webrtc-audio-processing-1 (AEC3: Debian 13, Ubuntu 24.04,
# Fedora, Arch) every go command here gets -tags=apm1 through GOFLAGS.
# APMTAGS= forces 0.3; BUILDFLAGS='-tags noapm' builds without the library
# (calls then fall back to half-duplex).
APMTAGS ?= $(shell pkg-config --exists webrtc-audio-processing-1 2>/dev/null && echo -tags=apm1)
# The history (app/store, mattn/go-sqlite3) links the system's libsqlite3:
# every go command here gets the libsqlite3 tag (setup installs
# libsqlite3-dev). SQLITETAGS= compiles SQLite's own copy in instead, as a
# plain go build does. About 1.5 MB of the idle app's memory against the
# earlier pure-Go SQLite (docs/benchmarks.md, Memory, "Session 8").
SQLITETAGS ?= -tags=libsqlite3
comma := ,
# The build tags every go command here gets (through GOFLAGS, or tagflag
# where a command names tags of its own, which would replace GOFLAGS').
GOTAGS := $(strip $(patsubst -tags=%,%,$(APMTAGS) $(SQLITETAGS)))
# Every go command here builds with a one-line change to the Go runtime's
# sysmon (scripts/goruntime.sh says what and why: about 40 % of a voice
# call's CPU). RUNTIMEOVERLAY= builds with the stock runtime.
RUNTIMEOVERLAY ?= $(shell scripts/goruntime.sh $(CURDIR)/build/_goruntime)
# Every go command here builds with Fyne patched (patches/, through a module
# copy and -modfile; scripts/fynepatch.sh says what and why: about 6 MB of
# the idle app's memory). FYNEPATCH= builds with the stock Fyne.
FYNEPATCH ?= $(shell scripts/fynepatch.sh $(CURDIR)/build/_fyne)
export GOFLAGS := $(strip $(GOFLAGS) $(if $(GOTAGS),-tags=$(subst $(eval) ,$(comma),$(GOTAGS))) $(RUNTIMEOVERLAY) $(FYNEPATCH))

APPENV := env -u LANGUAGE LANG=$(APP_LANG) LC_ALL=$(APP_LANG)
# Tools the set-up installs: bin/livekit-server for the live media tests.
export PATH := $(CURDIR)/bin:$(PATH)
export LIVEKIT_SERVER ?= $(CURDIR)/bin/livekit-server
export FUZZTIME BENCH BENCHFLAGS

PHASE := scripts/phase.sh
APP := build/aimdesk
# The app is built with the aimdesk_plugin tag: it opens its plugin,
# build/aimdesk-parts.so (package parts: the media engine, the reference
# agent, the gRPC binding), built beside it with the same flags. go test
# and a plain go build link those parts in instead.
PLUGIN := build/aimdesk-parts.so
PLUGINENV := AIMDESK_PLUGIN=$(CURDIR)/$(PLUGIN)
tagflag = -tags $(subst $(eval) ,$(comma),$(strip $(1) $(GOTAGS)))

.PHONY: help setup build demo vet gotest plugintest smoke callshot prejoinshot uishots membench test generate lint bench voicebench videobench fuzz package packagetest clean distclean

help: ## list targets and variables
	@grep -E '^[a-z0-9]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{ printf "  make %-11s %s\n", $$1, $$2 }'
	@echo
	@echo "  variables: GOTESTFLAGS TEST_TIMEOUT BUILDFLAGS FUZZTIME BENCH BENCHFLAGS APP_LANG APMTAGS SQLITETAGS RUNTIMEOVERLAY FYNEPATCH"
	@echo "  GOFLAGS for this machine: $(GOFLAGS)"

setup: ## install missing Debian packages, locale, livekit-server, Go modules
	@$(PHASE) setup scripts/setup.sh

# The commit `aimdesk --version` prints (the version comes from FyneApp.toml).
COMMIT_LDFLAGS := -X main.commit=$(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)

build: ## build build/aimdesk and its plugin build/aimdesk-parts.so (a debug build: Fyne's thread checks stay on)
	@$(PHASE) build $(GO) build $(call tagflag,aimdesk_plugin) $(BUILDFLAGS) -ldflags '$(COMMIT_LDFLAGS)' -o $(APP) .
	@$(PHASE) "build plugin" $(GO) build -buildmode=plugin $(call tagflag,aimdesk_plugin) $(BUILDFLAGS) -o $(PLUGIN) ./partsplugin

demo: ## set-up, build, open the app with the embedded reference agent
	@$(MAKE) setup
	@$(MAKE) build
	$(APPENV) scripts/demo.sh ./$(APP)

vet: ## go vet ./...
	@$(PHASE) vet $(GO) vet ./...

gotest: ## go test -race ./... (GOTESTFLAGS, TEST_TIMEOUT)
	@$(PHASE) "go test -race" $(APPENV) $(GO) test -race -timeout $(TEST_TIMEOUT) $(GOTESTFLAGS) ./...

plugintest: build ## open build/aimdesk-parts.so into a test binary built the same way and use every part (a call through a real livekit-server, the agent, gRPC)
	@$(PHASE) plugintest $(APPENV) $(PLUGINENV) $(GO) test $(call tagflag,aimdesk_plugin) $(BUILDFLAGS) -run '^TestPluginParts$$' -count=1 ./parts/partsload

smoke: build ## run build/aimdesk --demo under Xvfb, screenshot to build/screenshots/
	@$(PHASE) smoke env SMOKE_LANG=$(APP_LANG) scripts/smoke.sh $(APP)

callshot: ## a live call (reference agent, livekit-server, media engine, Xvfb) to build/screenshots/call.png, and in a real window with the screen shared and the agent's video to call-window.png
	@$(PHASE) callshot $(APPENV) AIMDESK_CALL_SCREENSHOT=build/screenshots/call.png AIMDESK_CALL_WINDOW_SCREENSHOT=build/screenshots/call-window.png $(GO) test ./ui/callwin -run '^(TestCallScreenshot|TestCallWindowScreenshot)$$' -count=1

prejoinshot: ## the pre-join screen on PipeWire virtual devices, real window under Xvfb, to build/screenshots/prejoin-devices.png
	@$(PHASE) prejoinshot $(APPENV) AIMDESK_PREJOIN_SCREENSHOT=build/screenshots/prejoin-devices.png $(GO) test ./ui/prejoinshot -run '^TestPrejoinDevicesScreenshot$$' -count=1

uishots: ## a themed A2UI surface in a real window under Xvfb to build/screenshots/a2ui-theme.png (the table in chat: smoke's chat.png)
	@$(PHASE) uishots $(APPENV) AIMDESK_THEME_SCREENSHOT=build/screenshots/a2ui-theme.png $(GO) test ./a2ui/fyner/themeshot -run '^TestA2UIThemeScreenshot$$' -count=1

# membench measures the release configuration users install (the tags of
# `make package`), built without -trimpath so the build cache is reused.
MEMBENCH_APP := build/membench/aimdesk
MEMBENCH_TAGS := release no_emoji migrated_fynedo aimdesk_plugin
membench: ## memory of the real app under Xvfb (mem: lines; fails on a missed goal); breakdown in docs/benchmarks.md
	@$(PHASE) "membench build" $(GO) build $(call tagflag,$(MEMBENCH_TAGS)) -o $(MEMBENCH_APP) .
	@$(PHASE) "membench build plugin" $(GO) build -buildmode=plugin $(call tagflag,$(MEMBENCH_TAGS)) -o $(dir $(MEMBENCH_APP))aimdesk-parts.so ./partsplugin
	@$(PHASE) membench $(APPENV) scripts/membench.sh $(MEMBENCH_APP)

# demo and test call their steps in order, so they stay in order under make -j.
test: ## setup, vet, lint, go test -race, plugintest, smoke, call, pre-join and UI screenshots, package, packagetest
	@$(MAKE) setup
	@$(MAKE) vet
	@$(MAKE) lint
	@$(MAKE) gotest
	@$(MAKE) plugintest
	@$(MAKE) smoke
	@$(MAKE) callshot
	@$(MAKE) prejoinshot
	@$(MAKE) uishots
	@$(MAKE) package
	@$(MAKE) packagetest

generate: ## regenerate app/a2a/a2apb from ../shared/a2a-spec/a2a.proto (pinned protoc plugins into bin/)
	@scripts/generate.sh

lint: setup ## static gates: gofumpt, staticcheck, gocyclo -over 15, gosec (tools into bin/)
	@$(PHASE) lint scripts/lint.sh

bench: setup ## run benchmarks; write docs/benchmarks.md (BENCH, BENCHFLAGS)
	@$(PHASE) bench $(APPENV) scripts/bench.sh

voicebench: setup ## live voice figures (TestVoiceBench…, ~1 min each); Voice section of docs/benchmarks.md
	@$(PHASE) voicebench $(APPENV) scripts/voicebench.sh

videobench: setup ## video figures: PSNR of scaled+VP8 text, CPU of a 1080p15 share and a still screen, frames of a Wayland share
	@$(PHASE) videobench $(APPENV) scripts/videobench.sh

# The echo-canceller tests against webrtc-audio-processing-1 (AEC3) where it
# is installed but is not what pkg-config finds by default (Debian 12 has no
# package: APM1_PREFIX, default /opt/apm1). APM1TEST: unit, bench, media.
APM1TEST ?= unit
.PHONY: apm1test
apm1test: ## echo-canceller tests against webrtc-audio-processing-1 (APM1_PREFIX, APM1TEST=unit bench media)
	@$(PHASE) apm1test $(APPENV) scripts/apm1test.sh $(APM1TEST)

fuzz: setup ## run every fuzz target for FUZZTIME each
	@$(PHASE) fuzz $(APPENV) scripts/fuzz.sh

package: setup ## release builds: build/aimdesk-VERSION-linux-ARCH.tar.xz and build/aimdesk_VERSION_ARCH.deb
	@$(PHASE) package scripts/package.sh
	@$(PHASE) deb scripts/deb.sh

packagetest: ## install build/aimdesk_VERSION_ARCH.deb here (root), run --version, card and tasks --binding grpc (the plugin's agent and gRPC), purge it
	@$(PHASE) packagetest scripts/packagetest.sh

clean: ## remove build outputs (build/)
	rm -rf build
	rm -f aimdesk aimdesk.tar.xz

distclean: clean ## also remove the installed tools (bin/)
	rm -rf bin
