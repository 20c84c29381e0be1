# OpenBench-style build: `make EXE=/path/to/turncoat-dev` builds the engine there.
# `turncoat bench` prints "Nodes searched" and "Nodes/second" as OpenBench reads them.
EXE ?= turncoat

.PHONY: all
all:
	cargo build --release
	cp target/release/turncoat $(EXE)
