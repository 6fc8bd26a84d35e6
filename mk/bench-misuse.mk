# The misuse comparison (`make misuse-table`): bench/misuse.c's classic
# misuse programs against kmalloc (normal build and mm_debug on) and the
# peers' malloc (the libraries bench-slab links), one table in
# build/bench/misuse.{md,json}. A comparison, not a test: not in make test.
# (MISUSE_BINS is recursive: bench-slab.mk, read after this file, names
# the peers.)
.PHONY: misuse-table
MISUSE_CFLAGS := -std=c11 -O1 -g -D_GNU_SOURCE -Wall -Wextra -Werror \
	-fno-builtin
MISUSE_BINS = $(BUILD)/bench/misuse_slab \
	$(addprefix $(BUILD)/bench/misuse_,$(SLAB_BENCH_PEERS))

$(BUILD)/bench/misuse_slab: bench/misuse.c $(BUILD)/host/plain/libmm.a \
		$(MM_HEADERS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(MISUSE_CFLAGS) -DMISUSE_SLAB -Imm -Imm/host $< \
		$(BUILD)/host/plain/libmm.a -lpthread -o $@

# -fno-builtin: the compiler would otherwise drop a malloc/free pair whose
# memory is never used, and the misuse with it.
$(BUILD)/bench/misuse_%: bench/misuse.c
	@mkdir -p $(dir $@)
	$(HOST_CC) $(MISUSE_CFLAGS) -DMISUSE_NAME='"$*"' $< \
		$(SLAB_BENCH_LIBS_$*) -o $@

misuse-table: $(MISUSE_BINS)
	python3 bench/misuse_table.py --out $(BUILD)/bench/misuse $(MISUSE_BINS)
