//! Loaders: sequence text → statechart IR, with `file:line:column` errors.
