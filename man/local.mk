# man: rbtrace(1), rbmon(1), rbtrace(5).
dist_man_MANS += man/rbtrace.1 man/rbmon.1 man/rbtrace.5
