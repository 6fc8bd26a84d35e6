# Host world: mm/ compiled as a Linux library, with its tests.
#
# Three variants of the same sources: plain (-O2), tsan and asan. Each test
# file tests/host/test_*.c and tests/host/*/test_*.c (cmocka) and
# tests/host/stress_*.c (pthreads) becomes one binary per variant, linked
# against that variant's libmm.a.
.PHONY: host-lib test-host test-host-unit test-host-stress test-host-example \
	test-host-inject

HOST_CC ?= cc
HOST_WARN := -Wall -Wextra -Werror
# libc/'s own headers (libc/strbuf.h) are included by their path from the
# top of the tree, as the kernel's are; -iquote . finds them without
# putting anything in front of the host's <stdio.h> and <limits.h>.
LIBC_QUOTE := -iquote .
HOST_CFLAGS_COMMON := -std=c11 -g $(HOST_WARN) -D_GNU_SOURCE -pthread \
	-DMM_DEBUG=$(MM_DEBUG) -Imm -Imm/host $(LIBC_QUOTE)
HOST_CFLAGS_plain := -O2
HOST_CFLAGS_tsan := -O1 -fsanitize=thread
HOST_CFLAGS_asan := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
HOST_VARIANTS := plain tsan asan

# The part of libc/ that mm/ uses and the host's C library does not have
# goes into the host library with mm/ (the rest, vsnprintf and the string
# functions, the host has).
LIBC_HOST_SRCS := libc/strbuf.c libc/stat_table.c libc/trace_event.c
MM_HOST_SRCS := $(sort $(wildcard mm/*.c) $(wildcard mm/host/*.c)) \
	$(LIBC_HOST_SRCS)
MM_HEADERS := $(wildcard mm/*.h mm/host/*.h) $(LIBC_HOST_SRCS:.c=.h)
# Tests of other folders' code run on the host too, under tests/host/FOLDER/
# (tests/host/drivers/test_e1000.c): their binaries keep that folder.
HOST_TESTS := $(patsubst tests/host/%.c,%,$(wildcard tests/host/test_*.c \
	tests/host/*/test_*.c))
HOST_STRESS := $(basename $(notdir $(wildcard tests/host/stress_*.c)))
HOST_TEST_COMMON := $(wildcard tests/host/common/*.c)

# Objects depend on this stamp, rewritten only when MM_DEBUG changes, so
# `make MM_DEBUG=1 test-host` after a plain build really rebuilds.
HOST_FLAGS_STAMP := $(BUILD)/host/flags.stamp
$(shell mkdir -p $(BUILD)/host && { echo 'MM_DEBUG=$(MM_DEBUG)' | \
	cmp -s - $(HOST_FLAGS_STAMP) || echo 'MM_DEBUG=$(MM_DEBUG)' > $(HOST_FLAGS_STAMP); })

# host_variant(v): objects, library and test binaries for variant v.
define host_variant
HOST_OBJS_$(1) := $$(patsubst %.c,$(BUILD)/host/$(1)/obj/%.o,$$(MM_HOST_SRCS))
$(BUILD)/host/$(1)/obj/%.o: %.c $$(MM_HEADERS) $(HOST_FLAGS_STAMP)
	@mkdir -p $$(dir $$@)
	$$(HOST_CC) $$(HOST_CFLAGS_COMMON) $$(HOST_CFLAGS_$(1)) -c $$< -o $$@
$(BUILD)/host/$(1)/libmm.a: $$(HOST_OBJS_$(1))
	@rm -f $$@
	ar rcs $$@ $$^
$(BUILD)/host/$(1)/tests/%: tests/host/%.c $$(HOST_TEST_COMMON) \
		$(BUILD)/host/$(1)/libmm.a $$(MM_HEADERS) $$(wildcard tests/host/common/*.h)
	@mkdir -p $$(dir $$@)
	$$(HOST_CC) $$(HOST_CFLAGS_COMMON) $$(HOST_CFLAGS_$(1)) -I. -Itests/host/common \
		$$< $$(HOST_TEST_COMMON) $(BUILD)/host/$(1)/libmm.a -lcmocka -o $$@
endef
$(foreach v,$(HOST_VARIANTS),$(eval $(call host_variant,$(v))))

# The one host test of kernel code: the kernel port's per-CPU counter add,
# which is plain x86-64 and runs on the host CPU unchanged.
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/test_kernel_counter_add): \
	kernel/mm_port/mm_port.h

# The AML scanner's test compiles kernel/acpi_aml.c into itself, the
# NUMA tables' test kernel/acpi_numa.c.
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/kernel/test_acpi_aml): \
	kernel/acpi_aml.c kernel/acpi_aml.h
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/kernel/test_acpi_numa): \
	kernel/acpi_numa.c kernel/acpi_numa.h kernel/acpi.h kernel/acpi_table.h \
	kernel/config.h

# The MP table reader, on bytes (a table dumped from SeaBIOS, broken copies).
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/kernel/test_mptable): \
	kernel/mptable.c kernel/mptable.h \
	tests/host/kernel/data/qemu-pc-4sockets.mptable

# The node-by-node choice of CPUs, plain C on arrays.
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/kernel/test_cpu_pick): \
	kernel/cpu_pick.c kernel/cpu_pick.h kernel/config.h

# The shell's line editor, its word splitter and COM1's line discipline: plain C with no
# machine in it, each compiled into its test.
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/kernel/test_shell_line): \
	kernel/shell_line.c kernel/shell_line.h kernel/shell_tunables.h
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/kernel/test_console_line): \
	kernel/console_line.c kernel/console_line.h kernel/config.h
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/kernel/test_shell_words): \
	kernel/shell_words.c kernel/shell_words.h
# The boot command line with the kernel's number parser, on keys of the
# test's own gathered as linker.ld does (tests/host/kernel/cmdline_keys.ld).
HOST_TEST_CMDLINE := $(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/kernel/test_cmdline)
$(HOST_TEST_CMDLINE): kernel/cmdline.c kernel/cmdline.h libc/stdlib.c \
	tests/host/kernel/cmdline_keys.ld
$(HOST_TEST_CMDLINE): private HOST_CFLAGS_COMMON += -Wl,-T,tests/host/kernel/cmdline_keys.ld
# The multiboot information as loaders may bend it.
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/kernel/test_multiboot): \
	kernel/multiboot.c kernel/multiboot.h
# The ACPI table walk on tables the firmware got wrong.
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/kernel/test_acpi): \
	kernel/acpi.c kernel/acpi.h
# The LAPIC timer's mode switches, against a model of its registers.
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/kernel/test_lapic_timer): \
	kernel/lapic_timer.c kernel/lapic_regs.h kernel/apic.h

# The driver tests compile drivers/ sources into themselves. These lines
# sit here, after HOST_VARIANTS is set: in mk/net.mk (included first) the
# foreach saw an empty list and a changed driver left a stale test binary.
# tests/host/drivers/test_e1000.c (and test_e1000e.c, with e1000e_hw.c)
# compiles drivers/e1000.c, e1000_hw.c, gbe_hw.c and netdev.c into itself
# (it plays the NIC against the driver's rings): rebuild it when they
# change.
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/drivers/test_e1000 \
		$(BUILD)/host/$(v)/tests/drivers/test_e1000e): \
	$(wildcard drivers/e1000*.[ch] drivers/gbe_hw.[ch] drivers/netdev.[ch] \
		drivers/drv_port.h drivers/pci.h)
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/drivers/test_e1000e): \
	tests/host/drivers/gbe_sim.h
# tests/host/drivers/test_igb.c plays the 82576 against igb.c, igb_hw.c,
# gbe_hw.c, frame_hdr.c and netdev.c the same way; it and test_e1000e.c
# share the simulated part of tests/host/drivers/gbe_sim.h.
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/drivers/test_igb): \
	$(wildcard drivers/igb*.[ch] drivers/gbe_hw.[ch] drivers/netdev.[ch] \
		drivers/frame_hdr.[ch] drivers/tcp_merge.[ch] drivers/e1000*_regs.h \
		drivers/drv_port.h drivers/pci.h) tests/host/drivers/gbe_sim.h
# tests/host/drivers/test_virtqueue.c, test_virtq_event.c, test_virtio_gso.c
# and test_virtio_pci.c do the same with the virtio files (they play the
# device against the driver's rings and capabilities); all but the last
# share the simulated device of tests/host/drivers/virtq_sim.h.
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/drivers/test_virtqueue \
		$(BUILD)/host/$(v)/tests/drivers/test_virtq_event \
		$(BUILD)/host/$(v)/tests/drivers/test_virtio_gso): \
	$(wildcard drivers/virt*.[ch] drivers/netdev.[ch] drivers/drv_port.h \
		drivers/pci.h drivers/frame_hdr.[ch] drivers/tcp_merge.[ch]) \
		tests/host/drivers/virtq_sim.h
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/drivers/test_virtio_pci): \
	$(wildcard drivers/virtio_pci.[ch] drivers/drv_port.h drivers/pci.h)
# tests/host/drivers/test_pci.c compiles drivers/pci.c over simulated ECAM.
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/drivers/test_pci): \
	drivers/pci.c drivers/pci.h drivers/drv_port.h

# The HTTP engine's tests compile apps/http_server.c, apps/http_parse.c and
# lwIP's core/pbuf.c into themselves, against the fake transport of
# tests/host/apps/http_fake_tcp.h, with lwIP's headers and the host's
# options (tests/host/apps/lwip_host/lwipopts.h, found before net/'s for
# lwIP's #include "lwipopts.h"; net/arch/cc.h is the port). The parser's
# own test compiles apps/http_parse.c alone.
HOST_TEST_HTTP := $(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/apps/test_http_server)
$(HOST_TEST_HTTP): apps/http_server.c apps/http_server.h apps/http_parse.c \
	apps/http_parse.h tests/host/apps/http_fake_tcp.h \
	tests/host/apps/lwip_host/lwipopts.h | $(LWIP_STAMP)
$(HOST_TEST_HTTP): private HOST_CFLAGS_COMMON += -Itests/host/apps/lwip_host -Inet \
	-I$(LWIP_SRC)/include
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/apps/test_http_parse): \
	apps/http_parse.c apps/http_parse.h

# The public library: build/host/libmm.a and build/host/include/mm.h.
# Only the public headers are installed: mm.h and mm_host.h with every
# header they include (as gcc -MM lists them), mm's flat, so that a
# program writes #include <mm.h>, and libc/'s in libc/ (mm's headers
# include them by that path: libc/trace_event.h). The internal ones
# (zone.h, pcp.h, slab_internal.h, the page allocator's tunables...) stay
# in mm/.
MM_PUBLIC_HEADERS = $(filter %.h,$(shell $(HOST_CC) -MM -Imm -Imm/host \
	$(LIBC_QUOTE) -x c mm/mm.h mm/host/mm_host.h))
host-lib: $(BUILD)/host/libmm.a $(BUILD)/host/include/mm.h
$(BUILD)/host/libmm.a: $(BUILD)/host/plain/libmm.a
	cp $< $@
$(BUILD)/host/include/mm.h: $(MM_HEADERS)
	@rm -rf $(dir $@) && mkdir -p $(dir $@)libc
	cp $(filter-out libc/%,$(MM_PUBLIC_HEADERS)) $(dir $@)
	cp $(filter libc/%,$(MM_PUBLIC_HEADERS)) $(dir $@)libc/

HOST_UNIT_BINS := $(foreach v,plain asan,$(addprefix $(BUILD)/host/$(v)/tests/,$(HOST_TESTS)))
HOST_STRESS_BINS := $(foreach v,$(HOST_VARIANTS),$(addprefix $(BUILD)/host/$(v)/tests/,$(HOST_STRESS)))

test-host: test-host-unit test-host-stress test-host-example test-host-inject

# The README's example program, compiled exactly as the README tells users
# to (cc exp.c -Ibuild/host/include build/host/libmm.a -lpthread), then run.
HOST_EXAMPLE := $(BUILD)/host/example_program
$(HOST_EXAMPLE): tests/host/example_program.c $(BUILD)/host/libmm.a \
		$(BUILD)/host/include/mm.h
	$(HOST_CC) $< -I$(BUILD)/host/include $(BUILD)/host/libmm.a -lpthread -o $@

test-host-example: $(HOST_EXAMPLE)
	@tools/run-host-tests $(HOST_EXAMPLE)

# Every binary runs even if an earlier one failed; the target fails if any did.
test-host-unit: deps-host $(HOST_UNIT_BINS)
	@tools/run-host-tests $(HOST_UNIT_BINS)

test-host-stress: deps-host $(HOST_STRESS_BINS)
	@TSAN_OPTIONS=halt_on_error=1 tools/run-host-tests $(HOST_STRESS_BINS)

# The stress tests again with failure injection armed (MM_FAULT, see
# mm/fault_inject.h), once with random failures at every site and once
# with every-Nth ones: a refused allocation is skipped (tests/host/common/
# inject.h), and every page must still come back, every counter agree and
# every NULL be an injected failure. About 40 s in all.
INJECT_TESTS := stress_page_alloc stress_slab stress_qmempool \
	stress_page_frag stress_pcp_drain
INJECT_BINS := $(addprefix $(BUILD)/host/plain/tests/,$(INJECT_TESTS))
INJECT_RANDOM := failslab=random:5,seed:3 fail_page_alloc=random:5,seed:7 \
	fail_qmempool=random:5,seed:11 fail_page_frag=random:5,seed:13
INJECT_EVERY := failslab=every:50 fail_page_alloc=every:97 \
	fail_qmempool=every:13 fail_page_frag=every:29
test-host-inject: deps-host $(INJECT_BINS)
	@MM_FAULT="$(INJECT_RANDOM)" tools/run-host-tests $(INJECT_BINS) && \
	MM_FAULT="$(INJECT_EVERY)" tools/run-host-tests $(INJECT_BINS)

# tests/host/test_libc_memcpy.c compiles libc/memcpy.c into itself.
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/test_libc_memcpy): libc/memcpy.c
# tests/host/test_libc_siphash.c compiles libc/siphash.c into itself.
$(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/tests/test_libc_siphash): \
	libc/siphash.c libc/siphash.h
