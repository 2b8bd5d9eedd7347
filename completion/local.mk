# SPDX-License-Identifier: MIT
# completion: bash completion for rbtrace and rbmon, installed where
# bash-completion looks for them (its pkg-config variable completionsdir,
# else $(datadir)/bash-completion/completions).
bashcompletiondir = $(BASH_COMPLETION_DIR)
dist_bashcompletion_DATA = completion/rbtrace completion/rbmon
