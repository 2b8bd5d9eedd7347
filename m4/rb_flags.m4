dnl SPDX-License-Identifier: MIT
# AX_CHECK_COMPILE_FLAG_RB(FLAG): append FLAG to WARN_CFLAGS if the compiler takes it.
AC_DEFUN([AX_CHECK_COMPILE_FLAG_RB], [
  AC_MSG_CHECKING([whether $CC accepts $1])
  rb_save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS -Werror $1"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
    [AC_MSG_RESULT([yes]); WARN_CFLAGS="$WARN_CFLAGS $1"], [AC_MSG_RESULT([no])])
  CFLAGS=$rb_save_CFLAGS
])
