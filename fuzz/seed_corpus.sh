#!/bin/sh
# Copies the HLO fixtures of tests/corpus into the parser target's corpus
# (and the StableHLO samples into stablehlo_parse's)
# (run from the repository root or from fuzz/). `cargo xtask fuzz parser`
# works without it; this just gives libFuzzer real modules to mutate.
set -e
cd "$(dirname "$0")"
mkdir -p corpus/parser
for f in ../tests/corpus/*.hlo; do
  cp "$f" "corpus/parser/$(basename "$f")"
done
echo "copied $(ls corpus/parser | wc -l) files into fuzz/corpus/parser"
# The StableHLO reader's target gets JAX's StableHLO text.
mkdir -p corpus/stablehlo_parse
for f in ../tests/corpus_jax/*.mlir ../crates/stablehlo/tests/jax/*.mlir; do
  cp "$f" "corpus/stablehlo_parse/$(basename "$f")"
done
echo "copied $(ls corpus/stablehlo_parse | wc -l) files into fuzz/corpus/stablehlo_parse"
