# The allocator labs (labs/README.md): make lab-NAME builds the host
# library with one allocator source replaced by the student's copy, runs
# that allocator's host tests (plain, ASan, TSan), replays the lab's
# traces against the student's copy and the reference in one program, and
# prints the score table (labs/grader/grade).
#
#   LAB_SOLUTION=work       the student's file, labs/work/NAME.c, copied
#                           from labs/skeletons/NAME.c the first time
#                           (default; git ignores what labs/work/ holds)
#   LAB_SOLUTION=reference  the product's own file (every lab passes)
#   LAB_SOLUTION=skeleton   the empty skeleton (every lab fails)
#   LAB_QUICK=1             the plain unit tests and a short replay only,
#                           no sanitizers, one timed round (make test)
#   LAB_PLOTS=0             no pictures (they need matplotlib)
#   LAB_FIGURES=DIR         copy the pictures' SVGs there too
#   LAB_WORK=DIR            the student's folder (default labs/work)
#   LAB_BUILD=DIR           where the lab builds (default
#                           build/labs/SOLUTION)
#
# Each solution builds under build/labs/SOLUTION/NAME/. Everything but the
# replaced file is the host build's own objects (mk/host.mk).
.PHONY: lab-traces
LABS := buddy pcp slab page_frag
LAB_SOLUTION ?= work
LAB_QUICK ?= 0
LAB_PLOTS ?= 1
LAB_FIGURES ?=
ifneq ($(filter-out work reference skeleton,$(LAB_SOLUTION)),)
$(error LAB_SOLUTION=$(LAB_SOLUTION): want work, reference or skeleton)
endif
LAB_WORK ?= labs/work
LAB_BUILD ?= $(BUILD)/labs/$(LAB_SOLUTION)
LAB_TRACE_DIR := labs/traces

# Per lab: the file it replaces, its host tests (unit tests run plain and
# under ASan, stress tests under ASan and TSan) and its traces.
LAB_SRC_buddy := mm/buddy.c
LAB_UNIT_buddy := test_page_buddy test_page_api test_page_numa test_page_init
LAB_STRESS_buddy := stress_page_alloc
LAB_TRACES_buddy := checkerboard mixed_orders packet_mix kernel_http_pages kernel_iperf_pages

LAB_SRC_pcp := mm/pcp.c
LAB_UNIT_pcp := test_page_pcp test_page_api test_page_numa
LAB_STRESS_pcp := stress_pcp_drain
LAB_TRACES_pcp := pcp_pingpong mixed_orders packet_mix kernel_http_pages kernel_iperf_pages

LAB_SRC_slab := mm/slab.c
LAB_UNIT_slab := test_slab test_kmalloc test_slab_bulk test_slab_debug
LAB_STRESS_slab := stress_slab
LAB_TRACES_slab := slab_sparse packet_mix kernel_http kernel_iperf

LAB_SRC_page_frag := mm/page_frag.c
LAB_UNIT_page_frag := test_page_frag test_page_frag_percpu test_page_frag_policy
LAB_STRESS_page_frag := stress_page_frag
LAB_TRACES_page_frag := frag_pinned packet_mix kernel_http kernel_iperf

# lab_file(NAME): the source the lab builds in place of LAB_SRC_NAME.
lab_file = $(if $(filter reference,$(LAB_SOLUTION)),$(LAB_SRC_$(1)),$(if \
	$(filter skeleton,$(LAB_SOLUTION)),labs/skeletons/$(1).c,$(LAB_WORK)/$(1).c))

# The student's copy is made once and never overwritten.
$(LAB_WORK)/%.c: | labs/skeletons/%.c
	@mkdir -p $(dir $@)
	cp labs/skeletons/$*.c $@
	@echo "lab: your copy is $@ -- fill it in (docs/labs/$*.md)"

# The replay (labs/grader/replay.c) linked with one copy of the library
# into one object whose only global is lab_replay, renamed NAME_lab_replay
# (labs/grader/lab_trace.c explains why).
LAB_GRADER_CFLAGS = $(HOST_CFLAGS_COMMON) $(HOST_CFLAGS_plain) -Ilabs/grader
$(BUILD)/labs/replay.o: labs/grader/replay.c labs/grader/trace.h $(MM_HEADERS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(LAB_GRADER_CFLAGS) -c $< -o $@
# lab_copy(OUT, PREFIX, OBJECTS)
define lab_copy
ld -r -o $(1).all $(3)
objcopy --keep-global-symbol=$(2)_lab_replay --redefine-sym lab_replay=$(2)_lab_replay $(1).all $(1)
@rm -f $(1).all
endef
$(BUILD)/labs/ref_replay.o: $(BUILD)/labs/replay.o $(HOST_OBJS_plain)
	$(call lab_copy,$@,ref,$^)

# lab_variant(NAME, VARIANT): the library with the lab's file replaced,
# and the lab's test binaries linked against it.
define lab_variant
$(LAB_BUILD)/$(1)/$(2)/lab.o: $(call lab_file,$(1)) $(MM_HEADERS) $(HOST_FLAGS_STAMP) \
		labs/skeletons/lab_todo.h
	@mkdir -p $$(dir $$@)
	$(HOST_CC) $(HOST_CFLAGS_COMMON) $(HOST_CFLAGS_$(2)) -Ilabs/skeletons -c $$< -o $$@
LAB_OBJS_$(1)_$(2) := $(filter-out $(BUILD)/host/$(2)/obj/$(LAB_SRC_$(1):.c=.o), \
	$(HOST_OBJS_$(2))) $(LAB_BUILD)/$(1)/$(2)/lab.o
$(LAB_BUILD)/$(1)/$(2)/libmm.a: $$(LAB_OBJS_$(1)_$(2))
	@rm -f $$@
	ar rcs $$@ $$^
$(LAB_BUILD)/$(1)/$(2)/tests/%: tests/host/%.c $(HOST_TEST_COMMON) \
		$(LAB_BUILD)/$(1)/$(2)/libmm.a $(MM_HEADERS)
	@mkdir -p $$(dir $$@)
	$(HOST_CC) $(HOST_CFLAGS_COMMON) $(HOST_CFLAGS_$(2)) -I. -Itests/host/common \
		$$< $(HOST_TEST_COMMON) $(LAB_BUILD)/$(1)/$(2)/libmm.a -lcmocka -o $$@
endef

# lab(NAME): the grader's binaries and make lab-NAME.
define lab
$(foreach v,$(HOST_VARIANTS),$(eval $(call lab_variant,$(1),$(v))))
LAB_BINS_$(1) := $(addprefix $(LAB_BUILD)/$(1)/plain/tests/,$(LAB_UNIT_$(1)))
ifneq ($(LAB_QUICK),1)
LAB_BINS_$(1) += $(addprefix $(LAB_BUILD)/$(1)/asan/tests/,$(LAB_UNIT_$(1)) $(LAB_STRESS_$(1))) \
	$(addprefix $(LAB_BUILD)/$(1)/tsan/tests/,$(LAB_STRESS_$(1)))
endif
$(LAB_BUILD)/$(1)/stu_replay.o: $(BUILD)/labs/replay.o $$(LAB_OBJS_$(1)_plain)
	$$(call lab_copy,$$@,stu,$$^)
$(LAB_BUILD)/$(1)/lab_trace: labs/grader/lab_trace.c labs/grader/trace.c \
		labs/grader/trace.h $(BUILD)/labs/ref_replay.o $(LAB_BUILD)/$(1)/stu_replay.o
	$(HOST_CC) $(LAB_GRADER_CFLAGS) labs/grader/lab_trace.c labs/grader/trace.c \
		$(BUILD)/labs/ref_replay.o $(LAB_BUILD)/$(1)/stu_replay.o -o $$@
.PHONY: lab-$(1)
lab-$(1): deps-host $(if $(filter 1,$(LAB_PLOTS)),deps-plots) $$(LAB_BINS_$(1)) \
		$(LAB_BUILD)/$(1)/lab_trace
	@labs/grader/grade --lab $(1) --file $(call lab_file,$(1)) \
		--solution $(LAB_SOLUTION) --dir $(LAB_BUILD)/$(1) \
		--quick $(LAB_QUICK) --plots $(LAB_PLOTS) \
		$(if $(LAB_FIGURES),--figures $(LAB_FIGURES)) \
		--tests $$(LAB_BINS_$(1)) \
		--traces $(patsubst %,$(LAB_TRACE_DIR)/%.trace.gz,$(LAB_TRACES_$(1)))
endef
$(foreach l,$(LABS),$(eval $(call lab,$(l))))

# make lab-traces: write the traces again. The adversarial ones come out
# the same every time; packet_mix is recorded from bench/packet_mix.c
# (labs/traces/record.c), its threads' timing differs run to run.
LAB_RECORD_SYMS := mm_host_boot mm_host_set_cpu mm_host_shutdown alloc_pages \
	__free_pages napi_alloc_frag page_frag_free __kmalloc kfree \
	drain_all_pages page_frag_percpu_drain mm_sample_mark
LAB_PACKET_MIX_MS ?= 15
$(BUILD)/labs/packet_mix_rec: bench/packet_mix.c labs/traces/record.c \
		$(BUILD)/host/libmm.a $(BUILD)/host/include/mm.h
	@mkdir -p $(dir $@)
	$(HOST_CC) -std=c11 -O2 $(HOST_WARN) -I$(BUILD)/host/include -c $< -o $@.o
	objcopy $(foreach s,$(LAB_RECORD_SYMS),--redefine-sym $(s)=rec_$(s)) $@.o
	$(HOST_CC) -std=c11 -O2 $(HOST_WARN) -D_GNU_SOURCE -I$(BUILD)/host/include \
		$@.o labs/traces/record.c $(BUILD)/host/libmm.a -lpthread -o $@

lab-traces: deps-host $(BUILD)/labs/packet_mix_rec
	labs/traces/gen-adversarial --out $(LAB_TRACE_DIR)
	LAB_TRACE_OUT=$(BUILD)/labs/packet_mix.trace \
	LAB_TRACE_HEADER="# packet_mix: bench/packet_mix.c, $(LAB_PACKET_MIX_MS) ms a phase, recorded by labs/traces/record.c (make lab-traces)" \
		$(BUILD)/labs/packet_mix_rec $(LAB_PACKET_MIX_MS)
	gzip -9nc $(BUILD)/labs/packet_mix.trace > $(LAB_TRACE_DIR)/packet_mix.trace.gz

# make lab-traces-kernel: record the kernel's own allocations under two
# loads (tools/trace-capture, the mm class: a booted guest under QEMU) and
# convert each trace twice (labs/traces/from-kernel-trace): kernel_LOAD
# (kmalloc and page fragments, the slab and page_frag labs) and
# kernel_LOAD_pages (what the page allocator saw, the buddy and pcp labs).
# LOAD:COUNT, the count as tools/trace-capture takes it: GET / requests,
# KiB sent to lwiperf. The first 256 fragment frees of a session are the RX
# ring's buffers from before it (skipped): the counts reach well past that.
LAB_KERNEL_LOADS := http:150 iperf:2048
.PHONY: lab-traces-kernel
define lab_kernel_trace
	tools/trace-capture --load $(1) --count $(2) --classes mm \
		--out $(BUILD)/labs/kernel_$(1).json
	labs/traces/from-kernel-trace --view objects $(BUILD)/labs/kernel_$(1).json \
		--title "kernel_$(1): tools/trace-capture --load $(1) --count $(2) (make lab-traces-kernel)" \
		| gzip -9n > $(LAB_TRACE_DIR)/kernel_$(1).trace.gz
	labs/traces/from-kernel-trace --view pages $(BUILD)/labs/kernel_$(1).json \
		--title "kernel_$(1)_pages: tools/trace-capture --load $(1) --count $(2) (make lab-traces-kernel)" \
		| gzip -9n > $(LAB_TRACE_DIR)/kernel_$(1)_pages.trace.gz

endef
lab-traces-kernel: deps-kernel $(KERNEL_ELF)
	$(foreach l,$(LAB_KERNEL_LOADS),$(call lab_kernel_trace,$(word 1,$(subst :, ,$(l))),$(word 2,$(subst :, ,$(l)))))
