complete --keep-order --exclusive --command svc --arguments "(COMPLETE=fish svc -- (commandline --current-process --tokenize --cut-at-cursor) (commandline --current-token))"
