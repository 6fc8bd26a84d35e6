"""tools/qemu-run builds the QEMU command the tests and `make run` rely on
(checked with --dry-run; nothing is booted here)."""
import subprocess

from conftest import QEMU_RUN


def dry_run(*args):
    out = subprocess.run([QEMU_RUN, "--dry-run", "--accel", "tcg"] + list(args),
                         stdin=subprocess.DEVNULL, capture_output=True,
                         text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_every_run_has_isa_debug_exit_and_no_reboot():
    cmd = dry_run()
    assert "isa-debug-exit,iobase=0xf4,iosize=0x04" in cmd
    assert "-no-reboot" in cmd


def test_serial_goes_to_stdio_when_stdin_is_not_a_terminal():
    cmd = dry_run()
    assert cmd[cmd.index("-serial") + 1] == "stdio"


def test_serial_log_option_writes_serial_to_a_file():
    cmd = dry_run("--serial-log", "/tmp/x.log")
    assert cmd[cmd.index("-serial") + 1] == "file:/tmp/x.log"


def test_serial_socket_puts_com1_on_a_unix_socket_the_guest_waits_for():
    cmd = dry_run("--serial-socket", "/tmp/s/com1")
    dev = cmd[cmd.index("-chardev") + 1].split(",")
    assert dev[0] == "socket" and "path=/tmp/s/com1" in dev, dev
    assert "server=on" in dev and "wait=on" in dev, dev  # no byte before the client
    assert not [o for o in dev if o.startswith("logfile=")], dev
    assert cmd[cmd.index("-serial") + 1] == "chardev:com1"
    assert cmd.count("-serial") == 1


def test_serial_socket_and_serial_log_are_refused_together():
    out = subprocess.run([QEMU_RUN, "--dry-run", "--serial-socket", "/tmp/s/com1",
                          "--serial-log", "/tmp/x.log"], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=30)
    assert out.returncode != 0
    assert "--serial-socket and --serial-log" in out.stderr, out.stderr


def test_numa_nodes_become_memory_backends_and_size_adds_up():
    cmd = " ".join(dry_run("--numa", "0-1:256M", "--numa", "2-3:256M",
                           "--numa-dist", "0:1:21"))
    assert "-m 512M" in cmd
    assert "node,nodeid=0,cpus=0-1,memdev=m0" in cmd
    assert "node,nodeid=1,cpus=2-3,memdev=m1" in cmd
    assert "dist,src=0,dst=1,val=21" in cmd and "dist,src=1,dst=0,val=21" in cmd


def test_nic_kinds_map_to_qemu_devices():
    assert "virtio-net-pci,netdev=n0,mac=52:54:00:12:34:56" in dry_run()
    assert "virtio-net-pci,disable-modern=on,netdev=n0,mac=52:54:00:12:34:56" \
        in dry_run("--nic", "virtio-legacy")
    assert "virtio-net-pci,disable-legacy=on,netdev=n0,mac=52:54:00:12:34:56" \
        in dry_run("--nic", "virtio-modern")
    assert "e1000,netdev=n0,mac=52:54:00:12:34:58" \
        in dry_run("--nic", "e1000", "--mac", "52:54:00:12:34:58")
    cmd = dry_run("--nic", "none")
    assert cmd[cmd.index("-nic") + 1] == "none"


def machine_type(cmd):
    """The -machine option's type: its first comma-separated field."""
    return cmd[cmd.index("-machine") + 1].split(",")[0]


def test_e1000e_is_the_82574l_on_q35_unless_a_machine_is_given():
    cmd = dry_run("--nic", "e1000e", "--mac", "52:54:00:12:34:59")
    assert "e1000e,netdev=n0,mac=52:54:00:12:34:59" in cmd
    assert machine_type(cmd) == "q35"
    cmd = dry_run("--nic", "e1000e", "--machine", "pc")
    assert machine_type(cmd) == "pc"
    # Only the PCIe NIC changes the default machine.
    cmd = dry_run("--nic", "e1000")
    assert machine_type(cmd) == "pc"


def test_host_forwards_bind_loopback_only():
    cmd = dry_run("--hostfwd", "8080:80", "--hostfwd", "udp:7007:7")
    netdev = cmd[cmd.index("-netdev") + 1]
    assert "hostfwd=tcp:127.0.0.1:8080-:80" in netdev
    assert "hostfwd=udp:127.0.0.1:7007-:7" in netdev


def test_tap_backend_names_the_interface():
    cmd = dry_run("--net", "tap:tap0")
    assert cmd[cmd.index("-netdev") + 1] == \
        "tap,id=n0,ifname=tap0,script=no,downscript=no"


def test_uefi_uses_ovmf_and_q35():
    cmd = dry_run("--iso", "build/kernel.iso", "--uefi")
    assert machine_type(cmd) == "q35"
    assert any("OVMF_CODE_4M.fd" in c for c in cmd)


def test_extra_arguments_after_double_dash_reach_qemu():
    assert dry_run("--", "-icount", "shift=1")[-2:] == ["-icount", "shift=1"]


def test_nic_pxb_puts_the_nic_behind_an_expander_bridge_on_that_node():
    cmd = " ".join(dry_run("--numa", "0:256M", "--numa", "1:256M", "--nic-pxb", "1"))
    assert "-machine q35" in cmd
    assert "-device pxb-pcie,bus_nr=32,id=pxb1,numa_node=1" in cmd
    assert "-device pcie-root-port,id=rp1,bus=pxb1,chassis=1" in cmd
    assert "virtio-net-pci,netdev=n0,mac=52:54:00:12:34:56,bus=rp1" in cmd


def test_queues_make_a_multiqueue_tap_and_virtio_mq():
    cmd = " ".join(dry_run("--net", "tap:tap0", "--queues", "4"))
    assert "tap,id=n0,ifname=tap0,script=no,downscript=no,queues=4" in cmd
    assert "virtio-net-pci,netdev=n0,mac=52:54:00:12:34:56,mq=on,vectors=10" in cmd


def test_queues_give_igb_a_multiqueue_tap_and_no_virtio_options():
    cmd = " ".join(dry_run("--net", "tap:tap0", "--queues", "4", "--nic", "igb"))
    assert "tap,id=n0,ifname=tap0,script=no,downscript=no,queues=4" in cmd
    assert "-device igb,netdev=n0,mac=52:54:00:12:34:56 " in cmd + " "


def test_queues_and_pxb_refuse_what_cannot_work():
    for args, msg in ((["--queues", "2"], "needs --net tap"),
                      (["--net", "tap:t", "--queues", "2", "--nic", "e1000"], "virtio NIC or igb"),
                      (["--nic-pxb", "1"], "--numa nodes"),
                      (["--machine", "pc", "--numa", "0:1G", "--numa", "1:1G",
                        "--nic-pxb", "1"], "q35")):
        r = subprocess.run([QEMU_RUN, "--dry-run"] + args, capture_output=True, text=True)
        assert r.returncode != 0 and msg in r.stderr, (args, r.stderr)


def test_guest_ram_is_a_backend_reserving_no_host_swap():
    """-m 256G on a 24 GiB host: RAM comes from a memory backend with
    reserve=off (no swap reservation up front; QEMU maps it lazily)."""
    cmd = dry_run("--mem", "256G")
    assert cmd[cmd.index("-machine") + 1] == "pc,memory-backend=ram"
    assert "memory-backend-ram,size=262144M,id=ram,reserve=off" in cmd
