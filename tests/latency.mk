# SPDX-License-Identifier: MIT
# tests/latency.mk: rbmon latency, on a program whose calls are known:
# counts and durations from a recording, the live logs, the screen's view.
check_PROGRAMS += tests/apps/latency
tests_apps_latency_SOURCES = tests/apps/latency.c tests/apps/app.h
tests_apps_latency_CFLAGS = $(INTEGRATION_APP_CFLAGS)
tests_apps_latency_LDFLAGS = $(INTEGRATION_APP_LINKFLAGS)

LATENCY_TESTS = \
	tests/integration/latency.sh \
	tests/integration/latency-live.sh \
	tests/integration/tui-latency.sh
TESTS += $(LATENCY_TESTS)
EXTRA_DIST += $(LATENCY_TESTS)
