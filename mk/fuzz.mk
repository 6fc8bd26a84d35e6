# Fuzzing (tests/fuzz/): one libFuzzer harness per allocator, each
# checking every result against a reference model, and one of the HTTP
# engine (fuzz_http.c: the request stream cut at random points).
#
#   make fuzz              each harness FUZZ_SECS seconds (default 60),
#                          corpus kept in build/fuzz/corpus/; prints the
#                          operations each executed, seconds, ops/s
#   make fuzz FUZZ_OPS=K   each harness until K operations ran (FUZZ_SECS
#                          is then the cap: give it room)
#   make fuzz FUZZ_HARNESSES="pages slab"   only those
#   make test-fuzz         (in make test) replays the committed corpus
#                          tests/fuzz/corpus/NAME/ and fuzzes each harness
#                          FUZZ_TEST_SECS seconds (default 4)
#   make fuzz-corpus       regenerates the committed corpus: each harness
#                          fuzzes FUZZ_SECS, then the corpus is merged
#                          down to the inputs that add coverage
#
# mm/ is compiled a fourth time, with clang, coverage for libFuzzer and
# ASan + UBSan (any report aborts): build/fuzz/libmm.a.
.PHONY: fuzz test-fuzz fuzz-corpus fuzz-build deps-fuzz

FUZZ_CC ?= clang-14
FUZZ_SECS ?= 60
FUZZ_OPS ?= 0
FUZZ_TEST_SECS ?= 4
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c11 -g -O1 $(HOST_WARN) -D_GNU_SOURCE -pthread \
	-DMM_DEBUG=0 -Imm -Imm/host $(LIBC_QUOTE) $(FUZZ_SAN)
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_HARNESSES := $(patsubst tests/fuzz/fuzz_%.c,%,$(filter-out \
	tests/fuzz/fuzz_common.c,$(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_MODEL_OBJS := $(FUZZ_DIR)/fuzz_common.o $(FUZZ_DIR)/fz_set.o
FUZZ_BINS := $(addprefix $(FUZZ_DIR)/fuzz_,$(FUZZ_HARNESSES))
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
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h \
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

fuzz-build: $(FUZZ_BINS) $(FUZZ_DIR)/test_fz_set

fuzz: fuzz-build
	@tools/run-fuzz --ops $(FUZZ_OPS) --secs $(FUZZ_SECS) $(FUZZ_HARNESSES)

test-fuzz: fuzz-build
	@$(FUZZ_DIR)/test_fz_set
	@tools/run-fuzz --replay --secs $(FUZZ_TEST_SECS) $(FUZZ_HARNESSES)

fuzz-corpus: fuzz-build
	@tools/run-fuzz --make-corpus --secs $(FUZZ_SECS) $(FUZZ_HARNESSES)
