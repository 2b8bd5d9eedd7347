# SPDX-License-Identifier: MIT
# bench/lua/lua.mk - the lua interpreter alone, from a Lua 5.4 source tree
# (Debian's lua5.4, unpacked by bench/record.sh), built as bench/record.sh
# asks: every src/*.c but luac.c, with the compiler and flags given, no
# library, no readline.
#
# usage: make -f bench/lua/lua.mk SRC=DIR/src OUT=DIR CC=CC CFLAGS='...'
# makes OUT/lua.  Debian's luaconf.h includes lua5.4-deb-multiarch.h
# (debian/rules writes it): written here into OUT.

SRC =
OUT =
CC = cc
CFLAGS = -O2 -g
MULTIARCH = x86_64-linux-gnu
LUA_CPPFLAGS = -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -I$(OUT) -I$(SRC)
LUA_LDFLAGS = -Wl,-E
LUA_LIBS = -lm -ldl

LUA_SRCS = $(filter-out $(SRC)/luac.c $(SRC)/onelua.c,$(wildcard $(SRC)/*.c))
LUA_OBJS = $(patsubst $(SRC)/%.c,$(OUT)/%.o,$(LUA_SRCS))

$(OUT)/lua: $(LUA_OBJS)
	$(CC) $(CFLAGS) $(LUA_LDFLAGS) -o $@ $(LUA_OBJS) $(LUA_LIBS)

$(OUT)/%.o: $(SRC)/%.c $(OUT)/lua5.4-deb-multiarch.h
	$(CC) $(CFLAGS) $(LUA_CPPFLAGS) -c -o $@ $<

$(OUT)/lua5.4-deb-multiarch.h:
	mkdir -p $(OUT)
	printf '#define DEB_HOST_MULTIARCH "%s"\n' '$(MULTIARCH)' >$@
