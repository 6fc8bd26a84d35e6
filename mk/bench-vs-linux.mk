# This kernel beside a Linux guest (`make bench-vs-linux`): not part of
# `make bench` or `make test` (a full run takes ~30 minutes; --skip drops figures). Included by
# mk/bench.mk's bench-*.mk wildcard.
#
# linux-guest builds build/linux-guest/{vmlinux,initramfs.gz} from Debian
# packages (tools/build-linux-guest: apt-get download into build/, nothing
# installed on the host); bench-vs-linux boots it and build/kernel.elf
# (net_alloc=native and stock) side by side and writes bench/vs-linux.md
# and bench/vs-linux.json (tools/bench-vs-linux).
# VSLINUX_ARGS passes options, e.g. VSLINUX_ARGS="--rounds 1 --nics e1000".
.PHONY: bench-vs-linux linux-guest deps-vslinux test-vs-linux
VSLINUX_ARGS ?=

deps-vslinux:
	@tools/setup-deps vslinux

# A file target: a second make with nothing changed does nothing (the tool
# itself checks, unpacks and packs everything again: ~17 s). It runs again
# when the tool, the guest's own files or the served pages change; newer
# Debian packages: tools/build-linux-guest --refresh.
LINUX_GUEST := $(BUILD)/linux-guest/manifest.json
linux-guest: $(LINUX_GUEST)
$(LINUX_GUEST): tools/build-linux-guest $(wildcard bench/linux-guest/*) $(WWW_FILES) \
		| deps-vslinux
	tools/build-linux-guest

bench-vs-linux: deps-kernel deps-vslinux $(BUILD)/kernel.elf linux-guest
	tools/bench-vs-linux $(VSLINUX_ARGS)

# The Linux guest's smoke test alone (it also runs in make test once the
# guest has been built).
test-vs-linux: deps-kernel linux-guest
	$(PYTEST) -q tests/qemu/test_vs_linux.py
