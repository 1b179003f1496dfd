//! Reading code: trees, files, history, last commits and commits.
