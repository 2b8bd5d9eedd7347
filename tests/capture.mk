# SPDX-License-Identifier: MIT
# tests/capture.mk: captures of slow calls (rbtrace(5), "CAPTURES"),
# included from tests/local.mk.  tests/integration/capture.sh builds
# tests/apps/slowcall.c itself, with gcc and with clang.
CAPTURE_TESTS = \
	tests/integration/capture.sh \
	tests/integration/capture-hostile.sh \
	tests/integration/tui-captures.sh \
	tests/integration/snapshot-capture.sh

TESTS += $(CAPTURE_TESTS)
EXTRA_DIST += $(CAPTURE_TESTS) tests/apps/slowcall.c
