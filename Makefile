# OpenBench-style build: `make EXE=/path/to/turncoat-dev` builds the lean UCI
# engine there (no web server, match runner or trainer: `--no-default-features`).
# `turncoat bench` prints "Nodes searched" and "Nodes/second" as OpenBench reads them.
EXE ?= turncoat

.PHONY: all
all:
	cargo build --release --no-default-features
	cp target/release/turncoat $(EXE)
