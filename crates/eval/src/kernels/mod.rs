//! Kernels of the heavier ops (convolution, gather, scatter, windows, sort, rng), each a plain function over literals.
