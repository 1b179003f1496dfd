//! Reading code: trees, files, history and last commits.
