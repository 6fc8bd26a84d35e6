# Freestanding kernel: build/kernel.elf, the GRUB ISO, and `make run`.
# (Filled in by the boot work.)
.PHONY: kernel iso run test-qemu
kernel:
test-qemu:
