"""tools/qemu-run --help, the README's way to learn the runner: it prints
the text that says what each option does, and that text names every
option the runner accepts."""
import re
import subprocess

from tool_loader import ROOT, load_tool

tool = load_tool("qemu-run")


def test_help_describes_every_option():
    described = set(re.findall(r"^  (?:-h, )?(--[a-z0-9-]+)", tool.__doc__, re.M))
    accepted = {o for action in tool.parser()._actions for o in action.option_strings
                if o.startswith("--")}
    assert accepted - described == set()
    assert described - accepted == set()


def test_help_prints_the_description_and_succeeds():
    r = subprocess.run([ROOT + "/tools/qemu-run", "--help"], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 0
    assert r.stdout.startswith("Boot the kernel in QEMU")
    assert "--serial-socket PATH  COM1 on a unix socket" in r.stdout
