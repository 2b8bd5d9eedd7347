# SPDX-License-Identifier: MIT
# examples: the demo program to watch with rbtrace / rbmon (not installed).
noinst_PROGRAMS += examples/demo
examples_demo_SOURCES = examples/demo.c
examples_demo_CFLAGS = $(WARN_CFLAGS) -g -O1 -finstrument-functions -fno-inline \
	$(PTHREAD_CFLAGS) $(SAN_AUT_CFLAGS)
examples_demo_LDFLAGS = $(PTHREAD_LIBS) $(SAN_AUT_LDFLAGS)
