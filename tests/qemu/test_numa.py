"""Where packet buffers land: the NIC's NUMA node from the firmware, and
the rx_alloc=/tx_alloc= policies, on a q35 machine with two nodes (CPU 0
on node 0, CPU 1 on node 1) and virtio-net behind a PCIe expander bridge
(pxb-pcie) on node 1.

Placement is read from the guest's own counters in /stats.json after real
traffic: page_frag's new RX blocks per node of the polling CPU (CPU 0,
which runs lwIP and polls the one queue), numastat, and net_mem's TX heap
allocations per node. Counters are compared before and after the traffic,
so the buffers the driver posted at probe (before the policy applied) do
not count.
"""
import re
import time

from test_net import NetVM, bad_value_line, in_use

TWO_NODES = ("0:256M", "1:256M")
TRAFFIC = bytes(range(256)) * 4096  # 1 MiB echoed: ~700 RX frames each way


def boot_pxb(qemu, append):
    """Two nodes, the NIC behind a pxb-pcie on node 1, user networking."""
    return NetVM(qemu, "native", append=append, machine="q35", numa=TWO_NODES,
                 nic_pxb=1)


def rx_refills(st, cpu=0):
    return st["page_frag"]["cpu"]["cpu%d" % cpu]["refills_node"]


def delta(after, before):
    return [a - b for a, b in zip(after, before)]


def echo_traffic(vm):
    """1 MiB through TCP echo (RX and TX); then the stack must be idle."""
    before = vm.stats()
    if vm.tcp_echo(TRAFFIC) != TRAFFIC:
        vm.fail("1 MiB TCP echo came back different")
    return before, vm.stats()


def test_nic_behind_pxb_reports_node_1(qemu):
    vm = boot_pxb(qemu, "")
    log = vm.vm.log()
    assert re.search(r"^acpi: pci host bridge PC20 seg=0 bus=0x20 pxm=1 node=1$", log,
                     re.M), vm.vm.describe()
    assert re.search(r"^pci: 21:00\.0 1af4:10(00|41) class 0200 .* node=1$", log,
                     re.M), vm.vm.describe()
    assert re.search(r"^pci: 00:00\.0 8086:29c0 class 0600 node=0$", log, re.M)
    assert re.search(r"^net: rx_alloc=local tx_alloc=local nic_node=1 \(firmware\), "
                     r"2 cpu\(s\), 2 node\(s\)$", log, re.M), vm.vm.describe()
    st = vm.stats()
    assert st["net_numa"]["nic_node"] == 1
    assert st["page_frag"]["cpu"]["cpu0"]["refill_policy"] == "local"


def test_rx_alloc_local_puts_rx_blocks_on_the_polling_cpus_node(qemu):
    vm = boot_pxb(qemu, "rx_alloc=local")
    before, after = echo_traffic(vm)
    d = delta(rx_refills(after), rx_refills(before))
    assert d[0] > 0 and d[1] == 0, "cpu0 new RX blocks per node: %s" % d
    heap = delta(after["net_mem"]["heap_node"], before["net_mem"]["heap_node"])
    assert heap[0] > 0 and heap[1] == 0, "TX heap allocations per node: %s" % heap


def test_rx_alloc_device_puts_rx_blocks_on_the_nics_node(qemu):
    vm = boot_pxb(qemu, "rx_alloc=device tx_alloc=device")
    assert re.search(r"^net: rx_alloc=device \(node 1\) tx_alloc=device \(node 1\) "
                     r"nic_node=1 \(firmware\)", vm.vm.log(), re.M), vm.vm.describe()
    before, after = echo_traffic(vm)
    d = delta(rx_refills(after), rx_refills(before))
    assert d[0] == 0 and d[1] > 0, "cpu0 new RX blocks per node: %s" % d
    assert after["page_frag"]["cpu"]["cpu0"]["refill_policy"] == "device"
    assert after["page_frag"]["cpu"]["cpu0"]["refill_node"] == 1
    # node 1's pages went to a CPU of node 0: other_node, and all were hits
    n1b, n1a = before["numastat"]["node1"], after["numastat"]["node1"]
    assert n1a["other_node"] > n1b["other_node"]
    assert after["numastat"]["node0"]["numa_foreign"] == before["numastat"]["node0"]["numa_foreign"]
    heap = delta(after["net_mem"]["heap_node"], before["net_mem"]["heap_node"])
    assert heap[0] == 0 and heap[1] > 0, "TX heap allocations per node: %s" % heap
    # buffers freed on CPU 0 belong to node 1: remote frees, and none kept
    assert after["page_frag"]["remote_frees"] > before["page_frag"]["remote_frees"]
    deadline = time.monotonic() + 10
    while in_use(after) != in_use(before) and time.monotonic() < deadline:
        time.sleep(0.5)
        after = vm.stats()
    assert in_use(after) == in_use(before), "packet buffers held after traffic"


def test_rx_alloc_interleave_uses_both_nodes(qemu):
    vm = boot_pxb(qemu, "rx_alloc=interleave tx_alloc=interleave")
    before, after = echo_traffic(vm)
    d = delta(rx_refills(after), rx_refills(before))
    assert d[0] > 0 and d[1] > 0, "cpu0 new RX blocks per node: %s" % d
    assert abs(d[0] - d[1]) <= 1, "interleave alternates: %s" % d
    heap = delta(after["net_mem"]["heap_node"], before["net_mem"]["heap_node"])
    assert heap[0] > 0 and heap[1] > 0, "TX heap allocations per node: %s" % heap


def test_bad_policy_values_are_reported_and_local_used(qemu):
    log = qemu.boot(append="exit_after_boot=1 rx_alloc=remote tx_alloc=node:16 "
                    "nic_node=x", smp=2, machine="q35", numa=TWO_NODES, nic="virtio",
                    nic_pxb=1)
    assert bad_value_line(log, "rx_alloc", "remote", "local"), log
    assert bad_value_line(log, "tx_alloc", "node:16", "local"), log
    assert bad_value_line(log, "nic_node", "x", ""), log
    assert re.search(r"^net: rx_alloc=local tx_alloc=local nic_node=1 \(firmware\)", log,
                     re.M), log


def test_policy_naming_a_node_the_machine_lacks_is_reported(qemu):
    log = qemu.boot(append="exit_after_boot=1 rx_alloc=node:3 tx_alloc=node:1 "
                    "nic_node=5", smp=2, machine="q35", numa=TWO_NODES, nic="virtio",
                    nic_pxb=1)
    assert re.search(r"^net: rx_alloc=node:3: the machine has 2 node\(s\), using 'local'$",
                     log, re.M), log
    assert re.search(r"^net: nic_node=5: the machine has 2 node\(s\), using the "
                     r"firmware's node 1$", log, re.M), log
    assert re.search(r"^net: rx_alloc=local tx_alloc=node:1 nic_node=1 \(firmware\)", log,
                     re.M), log


def test_nic_node_overrides_the_firmware(qemu):
    """On a PC whose firmware says nothing (i440fx: no _PXM), nic_node=
    is where "device" comes from."""
    log = qemu.boot(append="exit_after_boot=1 rx_alloc=device nic_node=1", smp=2,
                    numa=TWO_NODES, nic="virtio")
    assert re.search(r"^pci: 00:\w\w\.\d 1af4:1000 class 0200 .*node=0$", log, re.M), log
    assert re.search(r"^net: rx_alloc=device \(node 1\) tx_alloc=local nic_node=1 "
                     r"\(nic_node=\)", log, re.M), log


def test_frag_selftest_follows_the_refill_policy(qemu):
    """selftest=frag checks each fragment's node against the CPU's policy:
    under rx_alloc=device every CPU's fragments are on the NIC's node."""
    log = qemu.boot(append="exit_after_boot=1 selftest=frag rx_alloc=device", smp=2,
                    machine="q35", numa=TWO_NODES, nic="virtio", nic_pxb=1)
    assert re.search(r"^selftest: frag PASS cpus=2 nodes=2 ", log, re.M), log


# Machines with as many nodes as the kernel holds (MAX_NODES, 16) and
# more: node 0 keeps room for the kernel, every other node 16 MiB and one
# CPU of its own.
MAX_NODES = 16


def many_nodes(n):
    return ["%d:%s" % (i, "64M" if i == 0 else "16M") for i in range(n)]


def slit(n, near):
    """Every pair of n nodes at 20, but the pairs in near {(a, b): d}."""
    return ["%d:%d:%d" % (a, b, near.get((a, b), 20))
            for a in range(n) for b in range(a + 1, n)]


def test_sixteen_nodes_each_keep_their_cpu_and_memory(qemu):
    """Node 15 is a node like node 1: its CPU, its memory, its zone, and
    the keys that name a node take it."""
    log = qemu.boot(append="exit_after_boot=1 rx_alloc=node:15 nic_node=15",
                    smp=MAX_NODES, numa=many_nodes(MAX_NODES), nic="virtio")
    assert re.search(r"^boot: cpus=16 nodes=16 memory=304MiB$", log, re.M), log
    for n in range(1, MAX_NODES):
        assert re.search(r"^node %d: cpus=%d memory=16MiB$" % (n, n), log, re.M), log
        assert re.search(r"^cpu %d: apic=%d node=%d$" % (n, n, n), log, re.M), log
    m = re.search(r"^mm: node 15 free=\d+ pages managed=(\d+) pages$", log, re.M)
    assert m and int(m.group(1)) > 3000, log
    assert "folded" not in log and "cmdline: bad value" not in log, log
    assert re.search(r"^net: rx_alloc=node:15 tx_alloc=local nic_node=15 \(nic_node=\), "
                     r"16 cpu\(s\), 16 node\(s\)$", log, re.M), log


def test_nodes_beyond_the_limit_fold_into_the_nearest_by_slit(qemu):
    """18 nodes: the firmware's domains 16 and 17 are nearest to nodes 5
    and 9 (SLIT 11 and 12); each joins that node with its CPU and memory,
    one boot line says so, and nothing lands on node 0."""
    n = MAX_NODES + 2
    log = qemu.boot(append="exit_after_boot=1", smp=n, numa=many_nodes(n),
                    numa_dist=slit(n, {(5, 16): 11, (9, 17): 12}))
    assert re.search(r"^acpi: 18 proximity domains, MAX_NODES=16: 2 folded into the "
                     r"nearest node: pxm 16 \(memory=16MiB cpus=1\) -> node 5 "
                     r"\(distance 11\), pxm 17 \(memory=16MiB cpus=1\) -> node 9 "
                     r"\(distance 12\)$", log, re.M), log
    assert re.search(r"^cpu 16: apic=16 node=5$", log, re.M), log
    assert re.search(r"^cpu 17: apic=17 node=9$", log, re.M), log
    assert re.search(r"^node 5: cpus=5,16 memory=32MiB$", log, re.M), log
    assert re.search(r"^node 9: cpus=9,17 memory=32MiB$", log, re.M), log
    assert re.search(r"^node 0: cpus=0 memory=64MiB$", log, re.M), log
    assert re.search(r"^boot: cpus=18 nodes=16 memory=336MiB$", log, re.M), log


def test_without_slit_a_node_beyond_the_limit_folds_into_node_0_said(qemu):
    """No SLIT, so no distance to choose by: node 0 takes domain 16, and
    the line says it had no distance to go by."""
    n = MAX_NODES + 1
    log = qemu.boot(append="exit_after_boot=1", smp=n, numa=many_nodes(n))
    assert re.search(r"^acpi: 17 proximity domains, MAX_NODES=16: 1 folded into the "
                     r"nearest node: pxm 16 \(memory=16MiB cpus=1\) -> node 0 "
                     r"\(no SLIT distance\)$", log, re.M), log
    assert re.search(r"^node 0: cpus=0,16 memory=80MiB$", log, re.M), log
    assert re.search(r"^boot: cpus=17 nodes=16 memory=320MiB$", log, re.M), log
