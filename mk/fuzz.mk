# Fuzzing (tests/fuzz/, docs/testing.md): one libFuzzer harness per
# allocator, each checking every result against a reference model, one of
# the HTTP engine (fuzz_http.c: the request stream cut at random points),
# and one per parser of outside input (FUZZ_PARSERS below: frames, the
# serial shell, the command line, ACPI tables, AML, multiboot).
#
#   make fuzz              each harness FUZZ_SECS seconds (default 60),
#                          corpus kept in build/fuzz/corpus/; prints the
#                          operations each executed, seconds, ops/s; then
#                          the parsers' line coverage (make fuzz-coverage)
#   make fuzz-coverage     that coverage alone, from the corpus a run grew
#                          and the committed one: build/fuzz/coverage/
#   make fuzz FUZZ_OPS=K   each harness until K operations ran (FUZZ_SECS
#                          is then the cap: give it room)
#   make fuzz FUZZ_HARNESSES="pages slab"   only those
#   make test-fuzz         (in make test) replays the committed corpus
#                          tests/fuzz/corpus/NAME/ and fuzzes each harness
#                          FUZZ_TEST_SECS seconds (default 4)
#   make fuzz-corpus       regenerates the allocators' committed corpus:
#                          each harness fuzzes FUZZ_SECS, then the corpus
#                          is merged down to the inputs that add coverage
#
# mm/ is compiled a fourth time, with clang, coverage for libFuzzer and
# ASan + UBSan (any report aborts): build/fuzz/libmm.a. The parser
# harnesses compile what they fuzz into themselves, with the same flags.
.PHONY: fuzz test-fuzz fuzz-corpus fuzz-build deps-fuzz fuzz-coverage

FUZZ_CC ?= clang-14
FUZZ_SECS ?= 60
FUZZ_OPS ?= 0
FUZZ_TEST_SECS ?= 4
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c11 -g -O1 $(HOST_WARN) -D_GNU_SOURCE -pthread \
	-DMM_DEBUG=0 -Imm -Imm/host $(LIBC_QUOTE) $(FUZZ_SAN)
FUZZ_DIR := $(BUILD)/fuzz
# The parser harnesses (below) fuzz what the machine, the firmware, the
# boot loader and the wire hand the kernel; every other fuzz_*.c is an
# allocator's.
FUZZ_PARSERS := rx_frame shell cmdline acpi aml multiboot
FUZZ_MM_HARNESSES := $(filter-out $(FUZZ_PARSERS),$(patsubst \
	tests/fuzz/fuzz_%.c,%,$(filter-out tests/fuzz/fuzz_common.c,$(wildcard \
	tests/fuzz/fuzz_*.c))))
FUZZ_HARNESSES := $(FUZZ_MM_HARNESSES) $(FUZZ_PARSERS)
FUZZ_MODEL_OBJS := $(FUZZ_DIR)/fuzz_common.o $(FUZZ_DIR)/fz_set.o
FUZZ_MM_BINS := $(addprefix $(FUZZ_DIR)/fuzz_,$(FUZZ_MM_HARNESSES))
FUZZ_PARSE_BINS := $(addprefix $(FUZZ_DIR)/fuzz_,$(FUZZ_PARSERS))
FUZZ_BINS := $(FUZZ_MM_BINS) $(FUZZ_PARSE_BINS)
FUZZ_MM_OBJS := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(MM_HOST_SRCS))

deps-fuzz:
	@tools/setup-deps host fuzz

# tests/fuzz/coverage-ignore.txt names the scan and stats loops of mm/
# left without coverage (why, and what it saved, in the file).
# The files whose listed functions are static are built without inlining,
# so the functions stay themselves and out of their callers' coverage.
FUZZ_COV_IGNORE := tests/fuzz/coverage-ignore.txt
FUZZ_NO_INLINE := mm/slab_debug.c mm/slabinfo.c mm/page_frag_stats.c \
	mm/page_debug.c
$(FUZZ_DIR)/obj/%.o: %.c $(MM_HEADERS) $(FUZZ_COV_IGNORE) | deps-fuzz
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link \
		-fsanitize-coverage-ignorelist=$(FUZZ_COV_IGNORE) \
		$(if $(filter $<,$(FUZZ_NO_INLINE)),-fno-inline) -c $< -o $@
$(FUZZ_DIR)/libmm.a: $(FUZZ_MM_OBJS)
	@rm -f $@
	ar rcs $@ $^
# The model's helpers carry no coverage: their loops over object contents
# would feed libFuzzer comparisons that say nothing about the allocators
# (they were 60% of a harness's instructions). -O2: the model is checked
# code, not fuzzed code (its fill and verify loops, 22 % of fuzz_pages'
# samples at -O1).
$(FUZZ_DIR)/fuzz_common.o $(FUZZ_DIR)/fz_set.o: $(FUZZ_DIR)/%.o: \
		tests/fuzz/%.c tests/fuzz/fuzz_common.h $(MM_HEADERS) | deps-fuzz
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -O2 -c $< -o $@
$(FUZZ_MM_BINS): $(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h \
		$(FUZZ_MODEL_OBJS) $(FUZZ_DIR)/libmm.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Itests/fuzz -fsanitize=fuzzer $< \
		$(FUZZ_MODEL_OBJS) $(FUZZ_DIR)/libmm.a -o $@
# fuzz_http is no allocator's: it compiles the HTTP engine, its parser and
# lwIP's core/pbuf.c into itself, against the host tests' fake transport
# (tests/host/apps/http_fake_tcp.h, with lwIP's headers and the host's
# options), and links the model's objects only for the summary line.
$(FUZZ_DIR)/fuzz_http: apps/http_server.c apps/http_server.h \
	apps/http_parse.c apps/http_parse.h tests/host/apps/http_fake_tcp.h \
	tests/host/apps/lwip_host/lwipopts.h | $(LWIP_STAMP)
$(FUZZ_DIR)/fuzz_http: private FUZZ_CFLAGS += -I. -Itests/host/apps/lwip_host \
	-Inet -I$(LWIP_SRC)/include
# The model's interval set against a brute-force list (ASan + UBSan).
$(FUZZ_DIR)/test_fz_set: tests/fuzz/test_fz_set.c $(FUZZ_DIR)/fz_set.o
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Itests/fuzz $^ -o $@

# ---- the parser harnesses ----
#
# Each tests/fuzz/fuzz_NAME.c of FUZZ_PARSERS compiles the sources it
# fuzzes into itself (#include, as the host unit tests do) with the host's
# headers; clang's -MMD lists them for make. FUZZ_TARGETS_NAME are the
# files whose line coverage make fuzz-coverage reports.
FUZZ_TARGETS_rx_frame := drivers/virtio_net.c drivers/virtio_net_offload.c \
	drivers/virtio_net_gso.c drivers/frame_hdr.c drivers/tcp_merge.c \
	net/rx_csum.c net/rx_gro.c
FUZZ_TARGETS_cmdline := kernel/cmdline.c libc/stdlib.c
FUZZ_TARGETS_multiboot := kernel/multiboot.c
FUZZ_TARGETS_acpi := kernel/acpi.c kernel/acpi_numa.c kernel/acpi_aml.c
FUZZ_TARGETS_aml := kernel/acpi_aml.c
FUZZ_TARGETS_shell := kernel/shell.c kernel/shell_line.c \
	kernel/shell_words.c kernel/console_line.c
FUZZ_PARSE_CFLAGS := -std=gnu11 -g -O1 $(HOST_WARN) -D_GNU_SOURCE -I. -Imm -Imm/host \
	-Itests/fuzz -MMD -MP
# fuzz_cmdline: its boot keys in one section, as linker.ld gathers them,
# without red zones between them (the file says why).
FUZZ_FLAGS_cmdline := -Wl,-T,tests/host/kernel/cmdline_keys.ld
FUZZ_SAN_cmdline := -fsanitize-ignorelist=tests/fuzz/cmdline_keys.ignore
$(FUZZ_DIR)/fuzz_cmdline $(FUZZ_DIR)/cov/fuzz_cmdline: \
	tests/host/kernel/cmdline_keys.ld tests/fuzz/cmdline_keys.ignore

# What they share carries no coverage and no sanitizer: it judges, it is
# not judged. (One source per compile: -MMD writes one list per output.)
FUZZ_PARSE_COMMON := $(FUZZ_DIR)/parse_common.o
$(FUZZ_PARSE_COMMON): tests/fuzz/parse_common.c tests/fuzz/parse_common.h \
		| deps-fuzz
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_PARSE_CFLAGS) -O2 -c $< -o $@
# fuzz_rx_frame: net/'s headers as the kernel finds them, and net/chksum.c
# built by gcc (its inline assembly's memory operand, an array of unknown
# size, is a GCC extension clang refuses): no coverage and no ASan inside
# the sum itself, whose lengths the harness checks against a reference.
FUZZ_FLAGS_rx_frame := -Inet
FUZZ_OBJS_rx_frame := $(FUZZ_DIR)/gcc/chksum.o
$(FUZZ_DIR)/gcc/chksum.o: net/chksum.c net/chksum.h
	@mkdir -p $(dir $@)
	$(HOST_CC) -std=c11 -O2 -g $(HOST_WARN) -Inet -c $< -o $@
$(FUZZ_DIR)/fuzz_rx_frame $(FUZZ_DIR)/cov/fuzz_rx_frame: $(FUZZ_OBJS_rx_frame)
# The kernel's writers put their text through libc/'s accumulator and
# counter tables: every harness links them (their own lines fuzzed too).
FUZZ_PARSE_LIBC := libc/strbuf.c libc/stat_table.c
$(FUZZ_PARSE_BINS): $(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_PARSE_COMMON) \
		$(FUZZ_PARSE_LIBC)
	$(FUZZ_CC) $(FUZZ_PARSE_CFLAGS) $(FUZZ_SAN) $(FUZZ_SAN_$*) \
		-fsanitize=fuzzer $(FUZZ_FLAGS_$*) $< $(FUZZ_PARSE_LIBC) \
		$(FUZZ_PARSE_COMMON) $(FUZZ_OBJS_$*) -o $@

# The same harnesses built for llvm-cov (no sanitizers: only the lines
# run are wanted), fed the corpus a fuzz run grew and the committed one.
FUZZ_COV_BINS := $(addprefix $(FUZZ_DIR)/cov/fuzz_,$(FUZZ_PARSERS))
$(FUZZ_COV_BINS): $(FUZZ_DIR)/cov/fuzz_%: tests/fuzz/fuzz_%.c \
		$(FUZZ_PARSE_COMMON) $(FUZZ_PARSE_LIBC)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_PARSE_CFLAGS) -fprofile-instr-generate \
		-fcoverage-mapping -fsanitize=fuzzer $(FUZZ_FLAGS_$*) $< \
		$(FUZZ_PARSE_LIBC) $(FUZZ_PARSE_COMMON) $(FUZZ_OBJS_$*) -o $@
-include $(wildcard $(FUZZ_DIR)/*.d $(FUZZ_DIR)/cov/*.d)

fuzz-build: $(FUZZ_BINS) $(FUZZ_DIR)/test_fz_set

# make fuzz: every harness FUZZ_SECS, then the parsers' coverage report.
fuzz: fuzz-build
	@tools/run-fuzz --ops $(FUZZ_OPS) --secs $(FUZZ_SECS) $(FUZZ_HARNESSES)
	@$(MAKE) --no-print-directory fuzz-coverage \
		FUZZ_HARNESSES="$(FUZZ_HARNESSES)"

# make fuzz-coverage: line coverage of each parser harness's targets
# from its corpus (build/fuzz/corpus/NAME and tests/fuzz/corpus/NAME),
# into build/fuzz/coverage/: NAME.txt (llvm-cov report), NAME/ (HTML)
# and summary.txt (one line per harness).
FUZZ_COV_NAMES = $(filter $(FUZZ_PARSERS),$(FUZZ_HARNESSES))
FUZZ_NOTHING :=
FUZZ_SPACE := $(FUZZ_NOTHING) $(FUZZ_NOTHING)
FUZZ_COMMA := ,
fuzz-coverage: $(addprefix $(FUZZ_DIR)/cov/fuzz_,$(FUZZ_COV_NAMES))
	@tools/fuzz-coverage $(foreach h,$(FUZZ_COV_NAMES),$(h)=$(subst \
		$(FUZZ_SPACE),$(FUZZ_COMMA),$(strip $(FUZZ_TARGETS_$(h)))))

test-fuzz: fuzz-build
	@$(FUZZ_DIR)/test_fz_set
	@tools/run-fuzz --replay --secs $(FUZZ_TEST_SECS) $(FUZZ_HARNESSES)

# The parsers' committed corpus is their seeds (tests/fuzz/seeds/) and
# regress-* inputs, many larger than the 1 KiB a merge keeps: not merged.
fuzz-corpus: fuzz-build
	@tools/run-fuzz --make-corpus --secs $(FUZZ_SECS) \
		$(filter-out $(FUZZ_PARSERS),$(FUZZ_HARNESSES))
