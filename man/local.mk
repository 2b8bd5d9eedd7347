# SPDX-License-Identifier: MIT
# man: rbtrace(1), rbmon(1), rbtrace(5), librbtrace(3).
dist_man_MANS += man/rbtrace.1 man/rbmon.1 man/rbtrace.5 man/librbtrace.3
