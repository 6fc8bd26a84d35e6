"""Machines with as many PCI functions and NICs as today's servers have.

- PCI: a q35 with 80 PCIe root ports (10 slots of 8 functions each, 89
  functions in all) and a NIC behind the last one (bus 0x50), and a
  second NIC behind a PCIe expander bridge on bus 0xfe, whose root port
  is the last bus the MCFG window covers (0xff). Both must come up and
  answer HTTP, each through its own port forward. (QEMU's expander
  bridges sit in segment 0, so a second MCFG segment is tested on the
  host: tests/host/drivers/test_pci.c.)

Readiness comes from the serial log ("net: ethN up ip=..."), never from
a forwarded port being open.
"""
import re
import subprocess

from conftest import free_port
from test_net import NET_TIMEOUT, CLIENT_TIMEOUT, random_mac

ROOT_PORTS = 80


def root_ports(n):
    """n PCIe root ports on q35's pcie.0, 8 functions to a slot from slot
    8 up (bus 0 has under 30 free slots: one port per slot would not
    fit)."""
    args = []
    for i in range(1, n + 1):
        slot, fn = 8 + (i - 1) // 8, (i - 1) % 8
        args += ["-device", "pcie-root-port,id=rp%d,bus=pcie.0,chassis=%d,addr=0x%x.%d%s"
                 % (i, i, slot, fn, ",multifunction=on" if fn == 0 else "")]
    return args


def user_nic(k, device, mac, port, bus=None):
    """NIC k on its own user network 10.0.(k+2).0/24, guest port 80
    forwarded from host port."""
    return ["-netdev", "user,id=n%d,net=10.0.%d.0/24,hostfwd=tcp:127.0.0.1:%d-:80"
            % (k, k + 2, port),
            "-device", "%s,netdev=n%d,mac=%s%s" % (device, k, mac,
                                                   ",bus=" + bus if bus else "")]


def http_ok(vm, port):
    r = subprocess.run(["curl", "-sS", "-f", "-m", "20", "-o", "/dev/null", "-w",
                        "%{http_code}", "http://127.0.0.1:%d/" % port],
                       capture_output=True, timeout=CLIENT_TIMEOUT)
    assert r.stdout == b"200", "HTTP through port %d: %r %r\n%s" % (
        port, r.stdout, r.stderr, vm.describe())


def test_nics_behind_the_80th_root_port_and_on_the_last_bus_answer(qemu):
    macs, ports = [random_mac(), random_mac()], [free_port(), free_port()]
    extra = root_ports(ROOT_PORTS)
    extra += user_nic(1, "virtio-net-pci", macs[0], ports[0], bus="rp%d" % ROOT_PORTS)
    extra += ["-device", "pxb-pcie,bus_nr=254,id=pxb1",
              "-device", "pcie-root-port,id=rpx,bus=pxb1,chassis=200"]
    extra += user_nic(2, "virtio-net-pci", macs[1], ports[1], bus="rpx")
    vm = qemu.start(append="nic=virtio", smp=1, machine="q35", extra=extra)
    vm.wait_for(r"^net: eth0 up ip=10\.0\.3\.15/24 mac=%s nic=virtio" % macs[0],
                NET_TIMEOUT)
    vm.wait_for(r"^net: eth1 up ip=10\.0\.4\.15/24 mac=%s nic=virtio" % macs[1],
                NET_TIMEOUT)
    vm.wait_for(r"^net: listening ", NET_TIMEOUT)
    log = vm.log()
    m = re.search(r"^pci: (\d+) functions via ecam$", log, re.M)
    assert m and int(m.group(1)) > 64 + ROOT_PORTS // 8, log
    assert re.search(r"^pci: 50:00\.0 1af4:1041 class 0200 ", log, re.M), log
    assert re.search(r"^pci: ff:00\.0 1af4:1041 class 0200 ", log, re.M), log
    for port in ports:
        http_ok(vm, port)

