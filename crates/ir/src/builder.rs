//! The builder API (XLA's XlaBuilder / the spec's ComputationBuilder): build
//! computations op by op with shape inference on every call.
