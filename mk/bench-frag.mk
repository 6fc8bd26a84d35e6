# page_frag benchmark (`make bench-frag`, part of `make bench`): one source,
# bench/page_frag_bench.c, built into one binary per contender -- ours, ours
# with downward carving, ours with one atomic per free, our kmalloc, and malloc from glibc, mimalloc,
# jemalloc and tcmalloc -- then run in interleaved rounds by ours, which
# writes $(BENCH_OUT)/frag.md and frag.json.
#
# How long: one round of every binary took ~45 s on this 2-core VM when
# quiet (glibc 13 s, mimalloc 9, jemalloc 9, tcmalloc 5, ours 1-3 each:
# the slow peers' large cross-CPU fragments set it), so the default 5
# rounds ~4 minutes; under load the peers' cases and the hand-off
# calibrations stretch 2-10x. Knobs (environment or make variables):
#   FRAG_BENCH_ROUNDS=N     rounds, 1..15 (default 5)
#   FRAG_BENCH_NR=N         push/pop fragments per case (default 1000000)
#   FRAG_BENCH_CASE_S=S     wall-time cap per push/pop case, seconds
#                           (default 0: none); the report says how few
#                           fragments the slowest case then ran
#   FRAG_BENCH_PEERS='...'  a subset of the malloc peers (default all)
#   FRAG_BENCH_OURS='...'   a subset of our binaries (frag is the driver
#                           and always runs)
# A full run (every contender, every size, both alignments, 3 rounds):
#   FRAG_BENCH_ROUNDS=3 FRAG_BENCH_CASE_S=2 make bench-frag
# ~2-2.5 minutes when quiet (5 rounds ~4), and at most ~11 even when
# not: 13 capped cases per binary and round, 2 s each, calibrations
# bounded to 0.3 s each. BENCH_QUICK=1: one round of 20,000 fragments
# per case, capped at 1 s (~5 s in all).
.PHONY: bench-frag
BENCH_TARGETS += bench-frag

FRAG_BENCH_DIR := $(BUILD)/bench/frag
FRAG_BENCH_SRC := bench/page_frag_bench.c
FRAG_BENCH_DEPS := $(FRAG_BENCH_SRC) bench/bench_util.h $(MM_HEADERS)
# Each peer's malloc, linked in front of glibc's.
FRAG_BENCH_PEERS ?= glibc mimalloc jemalloc tcmalloc
FRAG_PEER_LIBS_glibc :=
FRAG_PEER_LIBS_mimalloc := -lmimalloc
FRAG_PEER_LIBS_jemalloc := -ljemalloc
FRAG_PEER_LIBS_tcmalloc := -ltcmalloc_minimal
# The downward-carving variant: page_frag's sources rebuilt with the tunable
# flipped, linked ahead of libmm.a so they replace its page_frag objects
# (the TX file needs upward carving and is left out; the bench skips it).
FRAG_DOWN_SRCS := mm/page_frag.c mm/page_frag_percpu.c mm/page_frag_stats.c

$(FRAG_BENCH_DIR)/page_frag_bench-frag: $(FRAG_BENCH_DEPS) $(BUILD)/host/plain/libmm.a
	@mkdir -p $(dir $@)
	$(HOST_CC) $(BENCH_CFLAGS) -DBENCH_FRAG $< $(BUILD)/host/plain/libmm.a -ldl -o $@

$(FRAG_BENCH_DIR)/page_frag_bench-frag_down: $(FRAG_BENCH_DEPS) $(FRAG_DOWN_SRCS) $(BUILD)/host/plain/libmm.a
	@mkdir -p $(dir $@)
	$(HOST_CC) $(BENCH_CFLAGS) -DBENCH_FRAG_DOWN -DPAGE_FRAG_CARVE_DOWN=1 \
		$< $(FRAG_DOWN_SRCS) $(BUILD)/host/plain/libmm.a -ldl -o $@

# The unbatched-free variant: page_frag_free.c rebuilt with
# PAGE_FRAG_FREE_BATCH=0 (one atomic decrement per page_frag_free, as before
# the batch), linked ahead of libmm.a in the same way.
$(FRAG_BENCH_DIR)/page_frag_bench-frag_nobatch: $(FRAG_BENCH_DEPS) mm/page_frag_free.c $(BUILD)/host/plain/libmm.a
	@mkdir -p $(dir $@)
	$(HOST_CC) $(BENCH_CFLAGS) -DBENCH_FRAG_NOBATCH -DPAGE_FRAG_FREE_BATCH=0 \
		$< mm/page_frag_free.c $(BUILD)/host/plain/libmm.a -ldl -o $@

$(FRAG_BENCH_DIR)/page_frag_bench-kmalloc: $(FRAG_BENCH_DEPS) $(BUILD)/host/plain/libmm.a
	@mkdir -p $(dir $@)
	$(HOST_CC) $(BENCH_CFLAGS) -DBENCH_KMALLOC $< $(BUILD)/host/plain/libmm.a -ldl -o $@

$(FRAG_BENCH_DIR)/page_frag_bench-%: $(FRAG_BENCH_DEPS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(BENCH_CFLAGS) -DBENCH_MALLOC $< -ldl $(FRAG_PEER_LIBS_$*) -o $@

FRAG_BENCH_OURS ?= frag frag_nobatch frag_down kmalloc
# FRAG_BENCH_EXTRA='frag_before=PATH': one more binary of ours, built from
# another commit (a name starting with "frag" is not a malloc peer), for a
# before/after in the same rounds.
FRAG_BENCH_EXTRA ?=
# frag drives the run and is the column every ratio is taken against.
FRAG_BENCH_RUN := frag $(filter-out frag,$(FRAG_BENCH_OURS)) $(FRAG_BENCH_PEERS)
FRAG_BENCH_BINS := $(addprefix $(FRAG_BENCH_DIR)/page_frag_bench-,$(FRAG_BENCH_RUN))

FRAG_BENCH_QUICK := $(if $(BENCH_QUICK_ON),FRAG_BENCH_ROUNDS=1 FRAG_BENCH_NR=20000 \
	FRAG_BENCH_CASE_S=1)
bench-frag: $(FRAG_BENCH_BINS)
	@mkdir -p $(BENCH_OUT)
	$(FRAG_BENCH_QUICK) $(FRAG_BENCH_DIR)/page_frag_bench-frag --report $(BENCH_OUT) \
		$(foreach b,$(FRAG_BENCH_RUN),$(b)=$(FRAG_BENCH_DIR)/page_frag_bench-$(b)) \
		$(FRAG_BENCH_EXTRA)
