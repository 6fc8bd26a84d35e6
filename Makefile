# Top-level build. `make run` and `make test` do all set-up themselves
# (README.md). Each area keeps its rules in one fragment under mk/.
SHELL := /bin/bash
BUILD := build
MM_DEBUG ?= 0

.DEFAULT_GOAL := all
.PHONY: all test lint clean

all: kernel host-lib

include mk/deps.mk
include mk/net.mk
include mk/www.mk
include mk/kernel.mk
include mk/host.mk
include mk/labs.mk
include mk/bench.mk
include mk/plots.mk
include mk/profile.mk
include mk/trace.mk
include mk/soak.mk
include mk/fuzz.mk
include mk/lwip-unit.mk
include mk/pxe.mk
include mk/matrix.mk
include mk/readme.mk

# clang-format and cppcheck over every tracked C file, then the shape of
# the tree (tools/check-layers: which folder uses which, no circles), read
# from the includes and from the objects of both builds, then the docs
# (tools/check-docs: every path, link and make target they name exists).
lint: deps-host $(KERNEL_OBJS) $(HOST_OBJS_plain)
	@tools/lint
	@tools/check-layers --kernel-obj $(KOBJ) --host-obj $(BUILD)/host/plain/obj
	@tools/check-docs

# The whole suite: host unit tests (plain, ASan), stress tests (plain, TSan,
# ASan), the fuzz harnesses' committed corpus and a few seconds of fuzzing
# each, lwIP's own unit tests on our allocators and on its own, the lint
# pass, the tools' tests, the QEMU integration tests, then every command
# the README shows, briefly (mk/readme.mk).
test: deps test-host test-fuzz test-lwip-unit lint test-tools test-qemu test-readme

clean:
	rm -rf $(BUILD)
