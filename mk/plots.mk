# make plots: charts of every benchmark, pictures of the allocators over
# time, and the data-structure diagrams of docs/.
#
#  - tools/plot-bench reads bench/results.json (make bench writes it: host
#    allocators with peers, in-kernel -icount, network) -> bench-*.png/svg;
#  - tools/mm-sample runs bench/packet_mix.c (a packet-like workload on the
#    host library, 2 nodes, 2 CPUs) with the sampler on, then tools/mm-plot
#    draws packet_mix-buddy, -pcp, -counters;
#  - tools/draw-diagrams writes the diagram-*.svg structure pictures.
#
# Everything lands in build/plots/ (PNG and SVG); the SVGs the docs show
# are copied to docs/figures/, which is committed: run make plots after
# make bench and commit docs/figures/ with the new results. ~20 s here.
#   PLOTS_DIR=DIR     everything (default build/plots)
#   FIGURES_DIR=DIR   the docs' copies (default docs/figures; make test
#                     sends both to a temporary folder)
.PHONY: plots
PLOTS_DIR ?= $(BUILD)/plots
FIGURES_DIR ?= docs/figures
PACKET_MIX := $(PLOTS_DIR)/packet_mix

# Built the way the README tells users to build their own program.
$(PACKET_MIX): bench/packet_mix.c $(BUILD)/host/libmm.a $(BUILD)/host/include/mm.h
	@mkdir -p $(dir $@)
	$(HOST_CC) -std=c11 -O2 -Wall -Wextra -Werror $< -I$(BUILD)/host/include \
		$(BUILD)/host/libmm.a -lpthread -o $@

plots: deps-host deps-plots $(PACKET_MIX)
	tools/plot-bench --results bench/results.json --out $(PLOTS_DIR)
	tools/mm-sample -o $(PLOTS_DIR) -n packet_mix -- $(PACKET_MIX)
	tools/draw-diagrams --out $(PLOTS_DIR)
	@mkdir -p $(FIGURES_DIR)
	cp $(PLOTS_DIR)/bench-*.svg $(PLOTS_DIR)/packet_mix-*.svg \
		$(PLOTS_DIR)/diagram-*.svg $(FIGURES_DIR)/
	@echo "plots: PNG and SVG in $(PLOTS_DIR)/, the docs' SVGs in $(FIGURES_DIR)/"
