# Builds for OpenBench and for releases; day-to-day work uses cargo directly.
#
#   make EXE=/path/to/guoxiang   the release binary at that path (OpenBench's convention)
#   make release                 versioned binaries for Linux and Windows in dist/

EXE ?= guoxiang
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
LINUX := x86_64-unknown-linux-gnu
WINDOWS := x86_64-pc-windows-gnu

ifeq ($(OS),Windows_NT)
    BUILT := target/release/guoxiang.exe
else
    BUILT := target/release/guoxiang
endif

.PHONY: openbench release
openbench:
	cargo build --release
	cp $(BUILT) $(EXE)

# Needs the Windows target and linker: rustup target add x86_64-pc-windows-gnu,
# and Debian's gcc-mingw-w64-x86-64. .ci/windows-check runs the .exe under wine.
release:
	cargo build --release --target $(LINUX)
	cargo build --release --target $(WINDOWS)
	mkdir -p dist
	cp target/$(LINUX)/release/guoxiang dist/guoxiang-$(VERSION)-$(LINUX)
	cp target/$(WINDOWS)/release/guoxiang.exe dist/guoxiang-$(VERSION)-$(WINDOWS).exe
	@ls -l dist/guoxiang-$(VERSION)-*
