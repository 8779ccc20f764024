//! Delta-debugging reducer (placeholder).
