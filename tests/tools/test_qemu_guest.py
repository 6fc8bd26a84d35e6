"""tools/qemu_guest.py, the guest every benchmark tool and the QEMU tests'
fixture boot: real guests, booted briefly, and what the class reports
about them (readiness, ports, the QEMU process, teardown, failures)."""
import os
import socket
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tools"))
import hostports  # noqa: E402
import irq_figures  # noqa: E402
import qemu_guest  # noqa: E402
from qemu_guest import Guest, GuestFailed  # noqa: E402


@pytest.fixture(autouse=True)
def kernel():
    if not os.path.exists(qemu_guest.KERNEL):
        pytest.fail("%s missing: run make kernel" % qemu_guest.KERNEL)


def test_options_become_qemu_run_words():
    words = qemu_guest.run_options({"smp": 2, "icount": True, "uefi": False, "mem": None,
                                    "numa": ["0:256M", "1:256M"], "nic_pxb": 1,
                                    "append": ""})
    assert words == ["--smp", "2", "--icount", "--numa", "0:256M", "--numa", "1:256M",
                     "--nic-pxb", "1", "--append", ""]


def test_a_guest_that_exits_reports_qemu_runs_status(tmp_path):
    g = Guest(str(tmp_path / "exit.log"), append="exit_after_boot=1", nic="none")
    try:
        assert g.wait_for(r"^boot: cmdline=\"(.*)\"").group(1) == "exit_after_boot=1"
        assert g.wait_exit() == 0
        assert "boot: exit_after_boot=1, exiting" in g.log()
        assert g.args[:3] == [qemu_guest.QEMU_RUN, "--serial-log", g.log_path]
        assert ["--accel", "tcg"] == g.args[g.args.index("--accel"):][:2]
    finally:
        g.stop()


def test_a_networked_guest_is_ready_reachable_and_stopped(tmp_path):
    g = Guest(str(tmp_path / "net.log"), ready=qemu_guest.READY, services=qemu_guest.SERVICES,
              append="net_alloc=stock", smp=1)
    with g:
        assert g.ready_match.group(1) == "stock"
        assert 0 < g.boot_s < qemu_guest.BOOT_TIMEOUT
        assert sorted(g.ports) == sorted(qemu_guest.SERVICES)
        ports = list(g.ports.values())
        assert len(set(ports)) == len(ports)
        assert all(hostports.PORT_FIRST <= p <= hostports.PORT_LAST for p in ports)
        assert b"<html>" in g.get("/")
        assert g.stats()["nic"]["eth0"]["rx_packets"] > 0
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(10)
            s.sendto(b"qemu_guest", g.address("uecho"))
            assert s.recv(64) == b"qemu_guest"
        pid = g.qemu_pid()
        assert irq_figures.comm(pid).startswith("qemu-system")
        assert g.host_cpu_s() > 0
    # QEMU went first, so qemu-run returned by itself (not killed by a
    # signal: a negative status) and removed its temporary folder.
    assert g.proc.returncode is not None and g.proc.returncode >= 0
    assert not os.path.exists("/proc/%d" % pid)
    g.stop()  # a second stop is harmless


def test_a_forward_qemu_cannot_bind_is_retried_on_new_ports(tmp_path, monkeypatch):
    taken = socket.socket()
    taken.bind(("127.0.0.1", hostports.free_port()))
    taken.listen()
    picks = iter([taken.getsockname()[1]])
    monkeypatch.setattr(qemu_guest, "free_port", lambda kind: next(picks, None)
                        or hostports.free_port(kind))
    try:
        g = Guest(str(tmp_path / "retry.log"), ready=qemu_guest.READY,
                  services={"http": "80"})
        with g:
            assert g.ports["http"] != taken.getsockname()[1]
            assert b"<html>" in g.get("/")
    finally:
        taken.close()


def test_a_missing_ready_line_raises_with_the_command_and_logs(tmp_path):
    with pytest.raises(GuestFailed) as e:
        Guest(str(tmp_path / "never.log"), ready=r"^never printed$", boot_timeout=60,
              append="exit_after_boot=1", nic="none")
    msg = str(e.value)
    assert msg.startswith("no /^never printed$/ on serial before QEMU exited (status 0)")
    assert "command: %s" % qemu_guest.QEMU_RUN in msg
    assert "boot: exit_after_boot=1, exiting" in msg  # the serial log's tail


def test_a_line_half_written_is_not_matched_until_it_ends(tmp_path):
    """The guest writes its serial log while wait_for reads it: a capture
    must not be cut where the read caught the line (CI once saw
    "net_alloc=stoc")."""
    import threading
    import time
    log = tmp_path / "half.log"
    log.write_text("boot: ready\nnet: listening tcp/80 net_alloc=stoc")
    g = object.__new__(Guest)  # wait_for on a log alone, no QEMU
    g.log_path = str(log)
    g.alive = lambda: True

    def finish():
        time.sleep(0.3)
        with open(str(log), "a") as f:
            f.write("k\n")
    t = threading.Thread(target=finish)
    t.start()
    try:
        assert g.wait_for(qemu_guest.READY, 10).group(1) == "stock"
    finally:
        t.join()


def test_a_failed_wait_can_return_none_instead(tmp_path):
    g = Guest(str(tmp_path / "none.log"), append="exit_after_boot=1", nic="none")
    with g:
        assert g.wait_for(r"^never printed$", 60, fail=False) is None
        assert g.wait_exit() == 0
