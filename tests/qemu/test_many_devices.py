"""Machines with as many PCI functions and NICs as today's servers have.

- PCI: a q35 with 80 PCIe root ports (10 slots of 8 functions each, 89
  functions in all) and a NIC behind the last one (bus 0x50), and a
  second NIC behind a PCIe expander bridge on bus 0xfe, whose root port
  is the last bus the MCFG window covers (0xff). Both must come up and
  answer HTTP, each through its own port forward. (QEMU's expander
  bridges sit in segment 0, so a second MCFG segment is tested on the
  host: tests/host/drivers/test_pci.c.)
- NICs: five of the three drivers (3 virtio-net, an e1000, an e1000e)
  with nic=all, each on its own user network (10.0.2.0/24 .. 10.0.6.0/24)
  so replies leave by the NIC the request came in on: each gets its
  address and answers HTTP through its own forward.
- Past the limit: 17 virtio-net NICs. 16 are bound (eth0..eth15), the
  17th is named in one boot line and left stopped.

Readiness comes from the serial log ("net: ethN up ip=..."), never from
a forwarded port being open.
"""
import re
import subprocess

from conftest import free_port
from test_net import NET_TIMEOUT, CLIENT_TIMEOUT, random_mac

ROOT_PORTS = 80
NETDEV_MAX = 16


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


def test_five_nics_of_three_drivers_each_answer_on_their_own(qemu):
    kinds = ["virtio-net-pci", "virtio-net-pci", "e1000", "e1000e"]
    macs = [random_mac() for _ in range(5)]
    ports = [free_port() for _ in range(5)]
    extra = []
    for k, kind in enumerate(kinds, start=1):
        extra += user_nic(k, kind, macs[k], ports[k])
    vm = qemu.start(append="nic=all", smp=2, machine="q35", nic="virtio",
                    mac=macs[0], hostfwd=["%d:80" % ports[0]], extra=extra)
    # virtio first (eth0-2, in PCI order), then e1000 (eth3), e1000e (eth4)
    for k, kind in enumerate(["virtio", "virtio", "virtio", "e1000", "e1000e"]):
        vm.wait_for(r"^net: eth%d up ip=10\.0\.%d\.15/24 mac=%s nic=%s$"
                    % (k, k + 2, macs[k], kind), NET_TIMEOUT)
    vm.wait_for(r"^net: listening ", NET_TIMEOUT)
    assert re.search(r"^net: lwIP \S+ up on 5 interface\(s\)", vm.log(), re.M), vm.describe()
    for port in ports:
        http_ok(vm, port)


def test_a_nic_past_sixteen_is_named_and_left_out(qemu):
    """17 virtio-net NICs (no host forwards: only the boot lines are
    checked): eth0..eth15 registered, the 17th named, and 16 netifs."""
    extra = []
    for k in range(1, NETDEV_MAX + 1):
        extra += ["-netdev", "user,id=n%d" % k,
                  "-device", "virtio-net-pci,netdev=n%d,mac=52:54:00:00:01:%02x" % (k, k)]
    log = qemu.boot(append="exit_after_boot=1 nic=virtio", smp=1, nic="virtio",
                    extra=extra, timeout=120)
    for i in range(NETDEV_MAX):
        assert re.search(r"^virtio-net: eth%d \S+ virtio " % i, log, re.M), log
    assert "eth16" not in log, log
    m = re.search(r"^netdev: NETDEV_MAX=16 devices bound, 1 left out: "
                  r"00:(\w\w)\.0 virtio-net 1af4:10(00|41)$", log, re.M)
    assert m, log
    assert not re.search(r"^virtio-net: \S+ 00:%s\.0 " % m.group(1), log, re.M), log
    assert re.search(r"^net: lwIP \S+ up on 16 interface\(s\)", log, re.M), log
