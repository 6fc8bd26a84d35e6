# make pxe: the folder a TFTP server serves to boot the kernel from the
# network (docs/pxe.md), build/pxe/:
#   boot/kernel.elf            the kernel
#   boot.ipxe                  an iPXE script: loads the kernel (multiboot1)
#                              with nic=all and PXE_APPEND, boots it
#   grub/grub.cfg              GRUB's menu (boot/grub.cfg, nic=all, +
#                              PXE_APPEND, whose words win)
#   grub/i386-pc/core.0        GRUB's netboot image for BIOS PXE
#   grub/x86_64-efi/core.efi   ... and for UEFI network boot
# Point a DHCP server's boot file at one of the three; `tools/qemu-run
# --pxe build/pxe[:FILE]` does it with QEMU's own DHCP and TFTP.
#   PXE_APPEND   kernel command line for both (default: none)
# The QEMU tests boot build/pxe-test/, the same with no command line.
.PHONY: pxe
PXE_DIR := $(BUILD)/pxe
PXE_TEST_DIR := $(BUILD)/pxe-test
PXE_APPEND ?=

# $(call pxe_folder,DIR,APPEND)
define pxe_folder
	@rm -rf $(1) && mkdir -p $(1)/boot
	cp $(KERNEL_ELF) $(1)/boot/kernel.elf
	printf '#!ipxe\nkernel boot/kernel.elf nic=all $(2)\nboot\n' > $(1)/boot.ipxe
	grub-mknetdir --net-directory=$(1) --subdir=grub \
		>$(1).grub-mknetdir.log 2>&1 || \
		{ cat $(1).grub-mknetdir.log; exit 1; }
	sed 's|^\(\s*multiboot2 /boot/kernel.elf.*\)$$|\1 $(2)|' \
		boot/grub.cfg > $(1)/grub/grub.cfg
endef

pxe: deps-kernel $(KERNEL_ELF) boot/grub.cfg
	$(call pxe_folder,$(PXE_DIR),$(PXE_APPEND))
	@echo "pxe: $(PXE_DIR) ready: tools/qemu-run --pxe $(PXE_DIR) boots it"

$(PXE_TEST_DIR)/boot.ipxe: $(KERNEL_ELF) boot/grub.cfg mk/pxe.mk | deps-kernel
	$(call pxe_folder,$(PXE_TEST_DIR),)

# tests/qemu/test_pxe.py boots it
test-qemu: $(PXE_TEST_DIR)/boot.ipxe
