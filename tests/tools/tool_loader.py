"""Loads one of tools/' scripts (files without a .py suffix) as a module,
so its functions can be tested on inputs written by hand."""
import os
import types
from importlib.machinery import SourceFileLoader

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_tool(script):
    """tools/<script> as a module named <script>_tool (dashes to _)."""
    path = os.path.join(ROOT, "tools", script)
    name = script.replace("-", "_") + "_tool"
    mod = types.ModuleType(name)
    mod.__file__ = path
    SourceFileLoader(name, path).exec_module(mod)
    return mod
