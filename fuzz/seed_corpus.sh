#!/bin/sh
# Copies the HLO fixtures of tests/corpus into the parser target's corpus
# (run from the repository root or from fuzz/). `cargo xtask fuzz parser`
# works without it; this just gives libFuzzer real modules to mutate.
set -e
cd "$(dirname "$0")"
mkdir -p corpus/parser
for f in ../tests/corpus/*.hlo; do
  cp "$f" "corpus/parser/$(basename "$f")"
done
echo "copied $(ls corpus/parser | wc -l) files into fuzz/corpus/parser"
