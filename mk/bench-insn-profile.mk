# `make insn-profile`: the QEMU TCG plugin behind tools/insn-profile/insn-profile,
# which counts the guest instructions each kernel function executes during a
# network workload (exact, no sampling). Built with the host compiler; QEMU
# loads it with -plugin. Not part of `make bench`: it is a tool for finding
# where the instructions go, e.g.
#   make kernel insn-profile && tools/insn-profile/insn-profile http 300
.PHONY: insn-profile
insn-profile: $(BUILD)/tools/insn_profile.so

$(BUILD)/tools/insn_profile.so: tools/insn-profile/insn_profile.c tools/insn-profile/qemu_plugin_api.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -shared -fPIC -o $@ $< -pthread
