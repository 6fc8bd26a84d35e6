"""Network boot (docs/pxe.md): the folder `make pxe` prepares, served by
QEMU's user network (its DHCP names the boot file, its TFTP serves the
folder), boots the kernel three ways, and the booted kernel networks:

  - the NIC's iPXE ROM runs boot.ipxe, which loads the kernel as a
    multiboot1 image (SeaBIOS);
  - GRUB's BIOS netboot image (grub/i386-pc/core.0) reads grub/grub.cfg
    and loads it as multiboot2 (SeaBIOS);
  - GRUB's UEFI netboot image (grub/x86_64-efi/core.efi) the same (OVMF).

The loader's name in the kernel's first line says which way it came."""
import os
import urllib.request

import pytest

from conftest import BOOT_TIMEOUT, PXE_TEST, UEFI_TIMEOUT, free_port

READY = r"^net: listening .*net_alloc=native"


@pytest.fixture(autouse=True)
def pxe_folder():
    if not os.path.exists(os.path.join(PXE_TEST, "boot.ipxe")):
        pytest.fail("%s missing: run make build/pxe-test/boot.ipxe" % PXE_TEST)


def boot_over_the_network(qemu, bootfile, loader, uefi=False, timeout=BOOT_TIMEOUT):
    http = free_port()
    vm = qemu.start(pxe="%s:%s" % (PXE_TEST, bootfile), uefi=uefi, nic="virtio",
                    hostfwd=["%d:80" % http])
    vm.wait_for(r"^boot: x86_64 unikernel starting \(%s" % loader, timeout)
    vm.wait_for(r"^net: eth0 up ip=10\.0\.2\.15/24 ", timeout)
    vm.wait_for(READY, timeout)
    return vm, http


def test_ipxe_script_loads_the_kernel_and_it_networks(qemu):
    _, http = boot_over_the_network(qemu, "boot.ipxe", r"multiboot1, iPXE")
    with urllib.request.urlopen("http://127.0.0.1:%d/" % http, timeout=30) as r:
        assert b"<title>netkernel</title>" in r.read()


def test_grub_bios_netboot_loads_the_kernel_and_it_networks(qemu):
    boot_over_the_network(qemu, "grub/i386-pc/core.0", r"multiboot2, GRUB")


def test_grub_uefi_netboot_loads_the_kernel_and_it_networks(qemu):
    boot_over_the_network(qemu, "grub/x86_64-efi/core.efi", r"multiboot2, GRUB",
                          uefi=True, timeout=UEFI_TIMEOUT)
