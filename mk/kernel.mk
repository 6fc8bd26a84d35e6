# Freestanding kernel: build/kernel.elf, the GRUB ISO, `make run` and the
# QEMU tests.
#
# Sources are found by wildcard: boot/*.S boot/*.c kernel/*.c
# libc/*.c mm/*.c drivers/*.c net/*.c apps/*.c, plus $(KERNEL_EXTRA_OBJS)
# and $(KERNEL_EXTRA_CFLAGS) that mk/net.mk (included earlier) may set.
# mm/ sees <mm_port.h> from kernel/mm_port; kernel code includes "mm/mm.h".
.PHONY: kernel iso run test-qemu

KERNEL_CC ?= gcc
KERNEL_ELF := $(BUILD)/kernel.elf
KERNEL_ISO := $(BUILD)/kernel.iso
KOBJ := $(BUILD)/kernel/obj
GCC_INCLUDE := $(shell $(KERNEL_CC) -print-file-name=include)

KERNEL_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror \
	-ffreestanding -nostdinc -isystem $(GCC_INCLUDE) \
	-isystem libc/include -I. -Ikernel/mm_port \
	-mno-red-zone -mgeneral-regs-only -mcmodel=small -fno-pic -fno-pie \
	-fno-stack-protector -fno-omit-frame-pointer \
	-fno-asynchronous-unwind-tables -fno-builtin-printf \
	-fno-tree-loop-distribute-patterns -ftls-model=local-exec \
	-DMM_DEBUG=$(MM_DEBUG) $(KERNEL_EXTRA_CFLAGS)
KERNEL_ASFLAGS := -I. -D__ASSEMBLER__
KERNEL_LDFLAGS := -nostdlib -static -no-pie -Wl,--build-id=none \
	-Wl,-z,max-page-size=0x1000 -Wl,-z,noexecstack \
	-Wl,--no-warn-rwx-segments -Wl,-T,linker.ld

KERNEL_SRCS := $(sort $(wildcard boot/*.S boot/*.c kernel/*.c kernel/*/*.c libc/*.c \
	mm/*.c drivers/*.c net/*.c apps/*.c))
KERNEL_OBJS := $(patsubst %,$(KOBJ)/%.o,$(KERNEL_SRCS))
KERNEL_HEADERS := $(wildcard boot/*.h kernel/*.h kernel/*/*.h \
	libc/*.h libc/include/*.h mm/*.h drivers/*.h net/*.h apps/*.h)

# The framebuffer console's font: a PSF from Debian's console-setup-linux
# (tools/setup-deps kernel), linked in as _binary_font_psf_start/_end.
KERNEL_FONT_SRC ?= /usr/share/consolefonts/Lat15-Fixed16.psf.gz
KERNEL_FONT_OBJ := $(BUILD)/kernel/font.o

kernel: $(KERNEL_ELF)

$(KOBJ)/%.c.o: %.c $(KERNEL_HEADERS)
	@mkdir -p $(dir $@)
	$(KERNEL_CC) $(KERNEL_CFLAGS) -c $< -o $@

$(KOBJ)/%.S.o: %.S $(KERNEL_HEADERS)
	@mkdir -p $(dir $@)
	$(KERNEL_CC) $(KERNEL_ASFLAGS) -c $< -o $@

$(KERNEL_FONT_OBJ): $(KERNEL_FONT_SRC)
	@mkdir -p $(dir $@)
	@test -r $< || { echo "kernel: missing $< (run: tools/setup-deps kernel)" >&2; exit 1; }
	gzip -dc $< > $(dir $@)font.psf
	cd $(dir $@) && objcopy -I binary -O elf64-x86-64 -B i386:x86-64 \
		--rename-section .data=.rodata,alloc,load,readonly,data,contents \
		font.psf font.o

# Two links: the first with an empty symbol table, whose `nm -n` becomes
# the table of the second (tools/gen-ksyms; backtraces name functions).
# The table sits last in .rodata, so code does not move between the two;
# the cmp checks that.
KERNEL_LINK_OBJS = $(KERNEL_OBJS) $(KERNEL_EXTRA_OBJS) $(KERNEL_FONT_OBJ)
KSYMS_DIR := $(BUILD)/kernel
$(KSYMS_DIR)/ksyms0.o: tools/gen-ksyms
	@mkdir -p $(dir $@)
	tools/gen-ksyms < /dev/null > $(KSYMS_DIR)/ksyms0.S
	$(KERNEL_CC) -c $(KSYMS_DIR)/ksyms0.S -o $@
$(KSYMS_DIR)/pass1.elf: $(KERNEL_LINK_OBJS) $(KSYMS_DIR)/ksyms0.o linker.ld
	$(KERNEL_CC) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_LINK_OBJS) \
		$(KSYMS_DIR)/ksyms0.o -lgcc
$(KSYMS_DIR)/ksyms.o: $(KSYMS_DIR)/pass1.elf tools/gen-ksyms
	nm -n $< | tools/gen-ksyms > $(KSYMS_DIR)/ksyms.S
	$(KERNEL_CC) -c $(KSYMS_DIR)/ksyms.S -o $@
$(KERNEL_ELF): $(KERNEL_LINK_OBJS) $(KSYMS_DIR)/ksyms.o linker.ld
	$(KERNEL_CC) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_LINK_OBJS) \
		$(KSYMS_DIR)/ksyms.o -lgcc
	@nm -n $(KSYMS_DIR)/pass1.elf | grep -i ' [tw] ' > $(KSYMS_DIR)/syms1.txt
	@nm -n $@ | grep -i ' [tw] ' > $(KSYMS_DIR)/syms2.txt
	@cmp -s $(KSYMS_DIR)/syms1.txt $(KSYMS_DIR)/syms2.txt || \
		{ echo "kernel: code moved between link passes (linker.ld)" >&2; \
		  rm -f $@; exit 1; }

# GRUB rescue ISO that boots on BIOS (SeaBIOS) and UEFI (OVMF).
iso: $(KERNEL_ISO)
$(KERNEL_ISO): $(KERNEL_ELF) boot/grub.cfg
	@mkdir -p $(BUILD)/iso/boot/grub
	cp $(KERNEL_ELF) $(BUILD)/iso/boot/kernel.elf
	cp boot/grub.cfg $(BUILD)/iso/boot/grub/grub.cfg
	grub-mkrescue -o $@ $(BUILD)/iso >$(BUILD)/grub-mkrescue.log 2>&1 || \
		{ cat $(BUILD)/grub-mkrescue.log; exit 1; }

# The same ISO with exit_after_boot=1 on the kernel's command line, for the
# QEMU tests (an ISO's command line comes from grub.cfg, not -append).
KERNEL_TEST_ISO := $(BUILD)/kernel-test.iso
$(KERNEL_TEST_ISO): $(KERNEL_ELF) boot/grub.cfg
	@mkdir -p $(BUILD)/iso-test/boot/grub
	cp $(KERNEL_ELF) $(BUILD)/iso-test/boot/kernel.elf
	sed 's|^\(\s*multiboot2 /boot/kernel.elf.*\)$$|\1 exit_after_boot=1|' \
		boot/grub.cfg > $(BUILD)/iso-test/boot/grub/grub.cfg
	grub-mkrescue -o $@ $(BUILD)/iso-test >$(BUILD)/grub-mkrescue-test.log 2>&1 || \
		{ cat $(BUILD)/grub-mkrescue-test.log; exit 1; }

# `make run`: boot in QEMU with serial on the terminal. Users add runner
# options with RUN_ARGS, e.g. make run RUN_ARGS='--smp 4 --append "app=http"'.
# mk/net.mk (included earlier) may set RUN_NET_ARGS (e.g. host forwards),
# or RUN_CMD to a wrapper that picks free ports and prints how to reach the
# kernel before it calls tools/qemu-run with the arguments it is given.
RUN_CMD ?= tools/qemu-run
RUN_NET_ARGS ?=
RUN_ARGS ?=
run: deps-kernel $(KERNEL_ELF)
	$(RUN_CMD) --kernel $(KERNEL_ELF) $(RUN_NET_ARGS) $(RUN_ARGS)

# QEMU integration tests (pytest, tests/qemu), in two phases: the tests
# not marked serial run QEMU_TEST_JOBS at a time (pytest-xdist, groups
# kept on one worker: --dist loadgroup), then the serial ones alone
# (tests/qemu/conftest.py says which and why). Most of a parallel test's
# time is the guest's protocol timers and the host's clients, not CPU:
# on a 2-core machine its 292 tests took 180 s with 3 workers, against
# about 450 s one at a time; the 78 serial ones take about 475 s.
# QEMU_TEST_JOBS=1 runs the first phase in one process too.
# Pytest's exit status 5 means it found no test to run: a phase that the
# selection (QEMU_TEST_ARGS, e.g. -k) leaves empty is fine, both empty is
# a failure, said in one line.
PYTEST ?= /usr/bin/python3 -m pytest
QEMU_TEST_ARGS ?=
QEMU_TEST_JOBS ?= 3
test-qemu: deps-kernel deps-browser deps-viewer $(KERNEL_ELF) $(KERNEL_ISO) $(KERNEL_TEST_ISO)
	@$(PYTEST) -q tests/qemu -m "not serial" \
		$(if $(filter-out 0 1,$(QEMU_TEST_JOBS)),-n $(QEMU_TEST_JOBS) --dist loadgroup) \
		$(QEMU_TEST_ARGS); rc1=$$?; \
	$(PYTEST) -q tests/qemu -m serial $(QEMU_TEST_ARGS); rc2=$$?; \
	if [ $$rc1 -eq 5 ] && [ $$rc2 -eq 5 ]; then \
		echo "test-qemu: pytest collected no tests" >&2; exit 5; fi; \
	[ $$rc1 -eq 5 ] && rc1=0; [ $$rc2 -eq 5 ] && rc2=0; \
	[ $$rc1 -eq 0 ] && [ $$rc2 -eq 0 ]
