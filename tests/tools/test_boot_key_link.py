"""Boot keys (kernel/cmdline.h CMDLINE_KEY) as the linker sees them: two
parts that declare the same key name do not link, and different keys
from different objects end up one after the other in .cmdline_keys, with
no padding between them (kernel/cmdline.c reads the section as one
array). Objects are compiled with the kernel's freestanding flags and
joined with `ld -r`, which applies the same one-definition rule as the
kernel's link."""
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENTRY_SIZE = 7 * 8  # struct cmdline_key: seven pointers


def compile_key(tmp_path, name, owner, key):
    src = tmp_path / (name + ".c")
    src.write_text('#include "kernel/cmdline.h"\n'
                   'CMDLINE_KEY(%s, %s, "red", cmdline_valid_choice, "red|blue",\n'
                   '            "a key of %s");\n' % (owner, key, name))
    gcc_include = subprocess.run(["gcc", "-print-file-name=include"], check=True,
                                 capture_output=True, text=True).stdout.strip()
    obj = tmp_path / (name + ".o")
    subprocess.run(["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
                    "-ffreestanding", "-nostdinc", "-isystem", gcc_include,
                    "-isystem", os.path.join(ROOT, "libc/include"), "-I", ROOT,
                    "-mcmodel=small", "-fno-pic", "-c", str(src), "-o", str(obj)],
                   check=True)
    return str(obj)


def link(tmp_path, objs):
    out = tmp_path / "joined.o"
    r = subprocess.run(["ld", "-r", "-o", str(out)] + objs,
                       capture_output=True, text=True)
    return r, str(out)


def section_size(obj, name):
    out = subprocess.run(["objdump", "-h", obj], check=True, capture_output=True,
                         text=True).stdout
    m = re.search(r"^\s*\d+\s+%s\s+([0-9a-f]+)\s" % re.escape(name), out, re.M)
    assert m, out
    return int(m.group(1), 16)


def test_a_key_declared_by_two_parts_does_not_link(tmp_path):
    objs = [compile_key(tmp_path, "kernel_part", "kernel", "colour"),
            compile_key(tmp_path, "net_part", "net", "colour")]
    r, _ = link(tmp_path, objs)
    assert r.returncode != 0
    assert "multiple definition of `cmdline_key_colour'" in r.stderr, r.stderr


@pytest.mark.parametrize("count", [2, 3])
def test_keys_of_several_objects_make_one_array_without_holes(tmp_path, count):
    objs = [compile_key(tmp_path, "part%d" % i, "kernel", "key%d" % i)
            for i in range(count)]
    r, joined = link(tmp_path, objs)
    assert r.returncode == 0, r.stderr
    assert section_size(joined, ".cmdline_keys") == count * ENTRY_SIZE
