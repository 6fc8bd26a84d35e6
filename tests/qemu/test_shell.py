"""The serial shell on COM1, typed into through a unix socket chardev
(tools/qemu-run --serial-socket) as a person or a script at a terminal
would, and checked against what the kernel answers on the same line and
on HTTP (/stats.json).

Most tests share one booted guest (user networking, HTTP, echo and iperf
forwarded from the host); each leaves it at a fresh prompt. The ones that
end the guest (poweroff, reboot) or need other boot options boot their
own.
"""
import json
import os
import re
import socket
import subprocess
import time

import pytest

from conftest import ROOT, QemuFactory, free_port

NET_TIMEOUT = 60
PROMPT = b"shell> "
BOOT_MD = os.path.join(ROOT, "docs", "boot.md")
OWNERS = ["kernel", "mm", "drivers", "net", "apps"]  # layer order
COMMANDS = ["help", "buddyinfo", "zoneinfo", "numastat", "pcp", "slabinfo",
            "qmempool", "frag", "selftest", "reboot", "poweroff", "trace", "ifconfig",
            "netstat", "stats", "ping", "capture"]


class ShellVM:
    def __init__(self, factory, append="", nic="virtio"):
        self.http, self.echo, self.iperf = free_port(), free_port(), free_port()
        fwd = ["%d:80" % self.http, "%d:7" % self.echo, "%d:5001" % self.iperf]
        self.vm = factory.start(append=append, smp=2, nic=nic,
                                hostfwd=fwd if nic != "none" else (),
                                serial_socket=True)
        self.con = self.vm.serial()
        if nic != "none":
            self.vm.wait_for(r"^net: listening .*", NET_TIMEOUT)
            # The last lines a boot prints on its own come with IPv6 (link-local
            # address, then SLAAC from user networking's router advertisement):
            # a test that checks the console stays quiet after a command must
            # not start before them.
            self.vm.wait_for(r"^net: eth0 ip6 \S+ ready \(SLAAC\)$", NET_TIMEOUT)
        self.vm.wait_for(r"^shell: on COM1", NET_TIMEOUT)
        self.con.send(b"\r")  # the first key wakes the shell
        self.con.expect(PROMPT)

    def stats_json(self):
        r = subprocess.run(["curl", "-sS", "-f", "-m", "20",
                            "http://127.0.0.1:%d/stats.json" % self.http],
                           capture_output=True, timeout=30)
        assert r.returncode == 0, r.stderr.decode()
        return json.loads(r.stdout)


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    factory = QemuFactory(tmp_path_factory.mktemp("shell"))
    vm = ShellVM(factory)
    yield vm
    factory.cleanup(failed=False)


@pytest.fixture
def con(shell):
    """The shared guest's console, at a fresh prompt."""
    c = shell.con
    c.quiet(0.05)
    return c


@pytest.fixture
def own(qemu):
    """Boots a guest of the test's own: own(append=..., nic=...)."""
    return lambda **kw: ShellVM(qemu, **kw)


# ---- the commands ----

def test_help_lists_every_command(con):
    out = con.command("help")
    names = re.findall(r"^  (\S+)", out, re.M)
    assert names == COMMANDS, out


def help_keys(con):
    """`help keys` as {key: (default, allowed, owner, help)}, checking its
    layout on the way: an "OWNER:" line per owner, then two lines a key."""
    lines = con.command("help keys").splitlines()
    assert lines[0].startswith("boot keys by owner: "), lines[0]
    keys, owner, owners = {}, None, []
    it = iter(lines[1:])
    for line in it:
        m = re.fullmatch(r"(\w+):", line)
        if m:
            owner = m.group(1)
            owners.append(owner)
            continue
        m = re.fullmatch(r"  (\w+)=(\S*)  \((.+)\)", line)
        assert m and owner, line
        text = next(it, "")
        assert re.fullmatch(r"      \S.*", text), (line, text)
        assert m.group(1) not in keys, line
        keys[m.group(1)] = (m.group(2), m.group(3), owner, text.strip())
    assert owners == [o for o in OWNERS if o in owners], owners
    return keys


def cell(text):
    """A markdown table cell's value: no backticks, \\| back to |."""
    return text.strip().strip("`").replace("\\|", "|")


def docs_keys():
    """docs/boot.md's key table as {key: (default, allowed, owner)}."""
    keys, in_table = {}, False
    with open(BOOT_MD) as f:
        for line in f:
            if line.startswith("| key | default | allowed | owner |"):
                in_table = True
            elif in_table and not line.startswith("|"):
                break
            elif in_table and not line.startswith("| ---"):
                cells = [cell(c) for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
                assert cells[0] not in keys, line
                keys[cells[0]] = tuple(cells[1:4])
    assert keys, "no key table in docs/boot.md"
    return keys


def test_help_keys_lists_every_key_with_its_default_values_owner_and_help(con):
    keys = help_keys(con)
    assert keys["nic"][:3] == ("virtio", "virtio|e1000|e1000e|igb|all|none", "net")
    assert keys["mm_debug"][:3] == ("0", "0|1", "mm")
    assert keys["app"][:3] == ("echo,http,iperf", "echo|http|iperf|none", "apps")
    assert keys["gw"][:3] == ("", "A.B.C.D", "net")
    assert keys["smp_wait_ms"][2] == "kernel"


def test_docs_key_table_is_the_kernels(con):
    """docs/boot.md documents exactly the keys the kernel declares, with
    the same default, allowed values and owner."""
    kernel = {k: v[:3] for k, v in help_keys(con).items()}
    docs = docs_keys()
    assert sorted(set(kernel) - set(docs)) == [], "keys without a row in docs/boot.md"
    assert sorted(set(docs) - set(kernel)) == [], "rows in docs/boot.md of no key"
    wrong = {k: {"docs": docs[k], "kernel": kernel[k]} for k in kernel
             if docs[k] != kernel[k]}
    assert wrong == {}, "(default, allowed, owner) differ"


def test_buddyinfo_has_the_proc_layout(con, shell):
    out = con.command("buddyinfo")
    rows = out.splitlines()
    assert rows, out
    for row in rows:  # "Node %d, zone %8s " then "%6lu " per order
        assert re.fullmatch(r"Node \d+, zone   Normal (( {0,5}\d{1,6}) ){11}", row), row
    free = sum(int(n) << o for o, n in enumerate(rows[0].split()[4:]))
    stats_free = shell.stats_json()["buddyinfo"]["node0"]["free_pages"]
    assert abs(free - stats_free) < 256, (free, stats_free)  # moved a little


def test_zoneinfo_has_the_proc_keys_for_every_cpu(con):
    out = con.command("zoneinfo")
    assert out.startswith("Node 0, zone   Normal\n"), out
    for key in ("  pages free ", "        managed ", "      nr_free_pages ",
                "      numa_hit ", "  pagesets\n", "  start_pfn: "):
        assert key in out, key
    assert re.findall(r"^    cpu: (\d+)$", out, re.M) == ["0", "1"], out
    for key in ("count", "high", "batch"):
        assert len(re.findall(r"^              %s: +\d+$" % key, out, re.M)) == 2


def test_numastat_is_numactls_table(con):
    out = con.command("numastat")
    lines = out.splitlines()
    assert lines[0] == " " * 27 + "node0", out
    names = [l.split()[0] for l in lines[1:]]
    assert names == ["numa_hit", "numa_miss", "numa_foreign", "local_node",
                     "other_node"], out
    assert all(len(l) == 32 for l in lines), out


def test_pcp_has_a_row_per_cpu_with_count_high_batch(con):
    out = con.command("pcp")
    rows = [l for l in out.splitlines()[1:] if l.strip()]
    assert [r.split()[:2] for r in rows] == [["0", "0"], ["0", "1"]], out
    for r in rows:
        for col in r.split()[2:6]:
            count, high, batch = map(int, col.split("/"))
            assert 0 <= count and 0 < batch <= high, r


def test_slabinfo_is_version_2_1_and_names_the_caches_of_stats_json(con, shell):
    out = con.command("slabinfo")
    lines = out.splitlines()
    assert lines[0] == "slabinfo - version: 2.1", out
    assert lines[1].startswith("# name            <active_objs> <num_objs> "
                               "<objsize> <objperslab> <pagesperslab> : tunables "), out
    row = re.compile(r"(\S+) +(\d+) +(\d+) +(\d+) +(\d+) +(\d+) : tunables +\d+ +\d+ +\d+"
                     r" : slabdata +\d+ +(\d+) +\d+ : stats .*")
    names = []
    for l in lines[2:]:
        m = row.fullmatch(l)
        assert m, l
        names.append(m.group(1))
        assert int(m.group(3)) == int(m.group(7)) * int(m.group(5)), l
    assert set(names) == set(shell.stats_json()["slabinfo"]), names


def test_qmempool_and_frag_print_their_counters(con, shell):
    out = con.command("qmempool")
    assert out.startswith("# pool "), out
    pools = shell.stats_json()["qmempool"]
    assert len(out.splitlines()) == 1 + len(pools), out
    out = con.command("frag")
    names = [l.split()[0] for l in out.splitlines()]
    assert "fragments" in names and "refills_node" in names, out
    keys = shell.stats_json()["page_frag"]
    assert [n for n in names if n not in keys] == [], (names, list(keys))


def test_stats_is_the_stats_json_document(con, shell):
    out = con.command("stats")
    assert out.endswith("}\n") and out.count("\n") == 1, out[-200:]
    mine = json.loads(out)
    http = shell.stats_json()
    assert list(mine) == list(http)
    assert set(mine["nic"]) == set(http["nic"])
    assert mine["shell"]["last"]["name"] in COMMANDS


def test_ifconfig_shows_the_interface_as_net_tools_does(con):
    out = con.command("ifconfig")
    assert re.match(r"eth0: flags=\d+<UP,BROADCAST,RUNNING>  mtu 1500\n", out), out
    assert "        inet 10.0.2.15  netmask 255.255.255.0  broadcast 10.0.2.255\n" in out
    assert re.search(r"^        ether 52:54:00:12:34:56  ", out, re.M), out
    rx = re.search(r"^        RX packets (\d+)  bytes (\d+) ", out, re.M)
    assert rx and int(rx.group(1)) > 0 and int(rx.group(2)) > 0, out


def test_netstat_lists_the_listeners_and_a_live_connection(con, shell):
    row = r"^tcp +\d+ +\d+ %s +%s +%s$"
    out = con.command("netstat")
    assert out.startswith("Active Internet connections (servers and established)\n"
                          "Proto Recv-Q Send-Q Local Address           Foreign Address"
                          "         State\n"), out
    for port in (80, 7, 5001):
        assert re.search(row % (r"0\.0\.0\.0:%d" % port, r"0\.0\.0\.0:\*", "LISTEN"),
                         out, re.M), out
    assert re.search(r"^udp +0 +0 0\.0\.0\.0:7 ", out, re.M), out
    with socket.create_connection(("127.0.0.1", shell.echo), timeout=20) as s:
        s.sendall(b"hello\n")
        assert s.recv(16) == b"hello\n"
        out = con.command("netstat")
        assert re.search(row % (r"10\.0\.2\.15:7", r"10\.0\.2\.2:\d+", "ESTABLISHED"),
                         out, re.M), out


def test_ping_the_gateway_prints_replies_and_a_summary(con):
    con.send(b"ping 10.0.2.2 2\r")
    m = con.expect(rb"ping 10.0.2.2 2\r\n(.*?)shell> ", 30)
    out = m.group(1).decode().replace("\r\n", "\n")
    assert out.startswith("PING 10.0.2.2 (10.0.2.2) 56(84) bytes of data.\n"), out
    seqs = re.findall(r"^64 bytes from 10\.0\.2\.2: icmp_seq=(\d) ttl=\d+ "
                      r"time=[\d.]+ ms$", out, re.M)
    assert seqs == ["1", "2"], out
    assert "\n--- 10.0.2.2 ping statistics ---\n" in out
    assert re.search(r"^2 packets transmitted, 2 received, 0% packet loss, "
                     r"time \d+ms$", out, re.M), out
    assert re.search(r"^rtt min/avg/max/mdev = [\d.]+/[\d.]+/[\d.]+/[\d.]+ ms$",
                     out, re.M), out


def test_the_network_answers_while_ping_waits(con, shell):
    con.send(b"ping 10.0.2.2 3\r")
    con.expect(rb"icmp_seq=1 ", 30)
    t0 = time.monotonic()
    shell.stats_json()  # served while the ping job is between requests
    assert time.monotonic() - t0 < 2.0
    assert b"packets transmitted" not in con.received()[con.pos:]
    con.expect(rb"3 packets transmitted, 3 received.*?shell> ", 30)


def test_network_commands_call_lwip_under_its_core_lock(con, shell):
    """lwIP is shared by every CPU that owns a NIC queue under one core
    lock; the shell's ifconfig, netstat and ping take it too (lwIP's own
    LWIP_ASSERT_CORE_LOCKED counts a call without it)."""
    con.command("ifconfig")
    con.command("netstat")
    assert "1 received" in con.command("ping 10.0.2.2 1", 30)
    st = shell.stats_json()
    assert st["core_lock"]["unlocked_calls"] == 0, st["core_lock"]
    assert b"without the core lock" not in con.received()


def test_ctrl_c_stops_ping_with_its_summary(con):
    con.send(b"ping 10.0.2.2 50\r")
    con.expect(rb"icmp_seq=1 ", 30)
    con.send(b"\x03")
    m = con.expect(rb"\^C\r\n\r\n--- 10.0.2.2 ping statistics ---\r\n(\d+) packets "
                   rb"transmitted, (\d+) received.*?shell> ", 30)
    assert 1 <= int(m.group(1)) < 50


def test_ping_an_address_that_does_not_answer_loses_everything(con):
    out = con.command("ping 10.0.2.99 1", 30)
    assert "1 packets transmitted, 0 received, 100% packet loss" in out, out
    assert "rtt" not in out


def test_selftest_runs_again_after_boot_with_the_same_answer(con):
    first = con.command("selftest printf")
    second = con.command("selftest printf")
    m = re.fullmatch(r"selftest: printf PASS n=(\d+)\n", first)
    assert m and second == first, (first, second)  # counted afresh
    assert re.search(r"^selftest: mm PASS ", con.command("selftest mm", 60), re.M)


# ---- bad input ----

def test_unknown_command_gets_one_line_naming_it(con):
    out = con.command("frobnicate now")
    assert out == "shell: unknown command 'frobnicate' (help lists the commands)\n"


@pytest.mark.parametrize("line,want", [
    ("buddyinfo extra", "shell: buddyinfo: wrong number of arguments (usage: buddyinfo)\n"),
    ("ping", "shell: ping: wrong number of arguments (usage: ping HOST [COUNT])\n"),
    ("ping 10.0.2.2 0", "ping: bad count '0' (1-100)\n"),
    ("ping 10.0.2.2 2x", "ping: bad count '2x' (1-100)\n"),
    ("ping 10.0.2.2 +2", "ping: bad count '+2' (1-100)\n"),
    ("ping example.org", "ping: 'example.org': not an IPv4 address (no DNS here)\n"),
    ("selftest", "shell: selftest: wrong number of arguments (usage: selftest NAME)\n"),
    ("selftest panic", "selftest: 'panic' ends the system: boot only "
                       "(selftest=panic on the command line)\n"),
    ("selftest nosuch", "selftest: unknown test 'nosuch' (after boot: printf irq smp mm "
                        "slab frag qmempool misuse net)\n"),
    ("a b c d e f g h i", "shell: too many words (at most 8)\n"),
    ("help me", "help: no help on 'me' (help keys: the boot keys)\n"),
    ("help keys now", "shell: help: wrong number of arguments (usage: help [keys])\n"),
])
def test_bad_arguments_get_one_clear_line(con, line, want):
    assert con.command(line) == want


def test_overlong_line_is_refused_and_the_shell_goes_on(con):
    con.send(b"x" * 100 + b"\r")
    con.expect(rb"\r\nshell: line too long \(more than 72 characters\), ignored\r\n"
               + re.escape(PROMPT))
    assert "commands:" in con.command("help")


def test_backspace_both_codes_edit_the_line(con):
    con.send(b"buddx\x7fyinfoo\x08\r")
    con.expect(rb"\r\n(Node 0, zone   Normal[ \d]+\r\n)shell> ")


def test_ctrl_u_clears_the_line_and_ctrl_c_abandons_it(con):
    con.send(b"garbage\x15pcp\r")
    con.expect(rb"\r\nnode cpu .*?shell> ")
    con.send(b"frobnicate\x03")
    con.expect(rb"frobnicate\^C\r\nshell> ")
    con.send(b"\r")
    con.expect(PROMPT)
    assert b"unknown command" not in con.quiet(0.3)


def test_up_and_down_arrows_recall_the_history(con):
    con.command("numastat")
    con.command("frag")
    con.send(b"\x1b[A\x1b[A\r")  # two back: numastat
    con.expect(rb"\r\n {27}node0\r\n.*?shell> ")
    con.send(b"\x1b[A\x1b[A\x1b[B\r")  # back two, forward one: numastat again
    con.expect(rb"\r\n {27}node0\r\n.*?shell> ")
    con.send(b"\x1b[A\x1b[B\x1b[B\r")  # past the newest: the empty new line
    con.expect(re.escape(b"\r\n" + PROMPT))


@pytest.mark.parametrize("end", [b"\r", b"\n", b"\r\n"], ids=["cr", "lf", "crlf"])
def test_cr_lf_and_crlf_run_one_command_each(con, end):
    con.send(b"numastat" + end)
    con.expect(rb"other_node +\d+\r\nshell> ")
    rest = con.quiet(0.5)
    assert rest == b"", rest  # no second prompt: no empty extra command


def test_control_bytes_do_not_reach_the_command(con, shell):
    before = shell.stats_json()["shell"]["ignored_bytes"]
    con.send(b"he\x01\x02\x1b[Clp\r")
    con.expect(rb"help\r\ncommands:\r\n.*?shell> ")
    assert shell.stats_json()["shell"]["ignored_bytes"] == before + 3


# ---- the log stays whole ----

def test_log_line_during_a_half_typed_command_starts_at_column_0(con, shell):
    con.send(b"buddy")  # at a fresh prompt: the fixture consumed "shell> "
    con.expect(rb"buddy")
    r = subprocess.run(["iperf", "-c", "127.0.0.1", "-p", str(shell.iperf), "-t", "1",
                        "-y", "C"], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr.decode()
    # the half-typed line ends, the log line follows whole, the line is
    # drawn again as it was
    m = con.expect(rb"(.*?)(iperf: done [^\r\n]*)\r\nshell> buddy", 30)
    before = m.group(1)  # what came between the typed text and the log line
    assert before.startswith(b"\r\n") and before.endswith(b"\n"), before
    assert re.fullmatch(rb"iperf: done 10\.0\.2\.2:\d+ bytes=\d+ ms=\d+ kbps=\d+",
                        m.group(2)), m.group(2)
    con.send(b"info\r")  # and it still completes to a command
    con.expect(rb"info\r\nNode 0, zone   Normal[ \d]+\r\nshell> ")
    log = shell.vm.log()
    assert re.search(r"^iperf: done 10\.0\.2\.2:\d+ ", log, re.M), log[-2000:]
    assert shell.stats_json()["shell"]["console"]["input_redraws"] >= 1


def test_an_idle_shell_leaves_the_uart_alone_while_traffic_runs(shell):
    """The shell's poller shares CPU 0 with the network: with nobody
    typing it reads the UART only on its slow look (every 100 ms with the
    receive interrupt), not on every poll round of the packet path."""
    before = shell.stats_json()
    t0 = time.monotonic()
    r = subprocess.run(["iperf", "-c", "127.0.0.1", "-p", str(shell.iperf), "-t", "2",
                        "-y", "C"], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr.decode()
    after = shell.stats_json()
    seconds = time.monotonic() - t0
    looks = after["shell"]["uart_looks"] - before["shell"]["uart_looks"]
    polls = after["cpus"]["cpu0"]["polls"] - before["cpus"]["cpu0"]["polls"]
    assert after["shell"]["rx_irq"] is True
    assert looks <= seconds * 10 + 5, (looks, seconds)
    assert polls > 20 * max(looks, 1), (polls, looks)


def test_boot_and_net_lines_start_at_column_0_after_the_shell_starts(shell):
    log = shell.vm.log()
    for pattern in (r"^shell: on COM1 \(receive interrupt on IRQ 4\), press Enter",
                    r"^net: eth0 up ip=10\.0\.2\.15/24 ", r"^net: listening tcp/7 "):
        assert re.search(pattern, log, re.M), pattern


# ---- guests of their own ----

def test_poweroff_ends_the_machine_with_success(own):
    vm = own(nic="none")
    vm.con.send(b"poweroff\r")
    vm.con.expect(rb"shell: powering off\r\n")
    assert vm.vm.wait_exit() == 0


def test_reboot_resets_the_machine(own):
    vm = own(nic="none")
    vm.con.send(b"reboot\r")
    vm.con.expect(rb"shell: rebooting\r\n")
    assert vm.vm.wait_exit() == 0  # -no-reboot: the reset ends QEMU


def test_network_commands_say_so_without_a_nic(own):
    vm = own(nic="none", append="nic=none")
    assert vm.con.command("ifconfig") == \
        "ifconfig: no interface (nic=none, or no NIC found)\n"
    assert vm.con.command("ping 10.0.2.2") == "ping: no network interface\n"
    assert vm.con.command("netstat").count("\n") == 2  # the two header lines


def test_shell_0_leaves_com1_to_the_log(qemu):
    vm = qemu.start(append="shell=0", serial_socket=True)
    con = vm.serial()
    vm.wait_for(r"^shell: off \(shell=0\)$")
    con.send(b"help\r")
    assert b"shell>" not in con.quiet(1.0)
