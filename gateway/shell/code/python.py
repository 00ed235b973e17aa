"""Python program text → effects, with the standard library's own parser (``ast``).

Names are resolved through the program's imports (``import shutil as s``, ``from os import remove as
rm``, ``__import__('os')``, ``getattr(os, 'remove')``), and arguments through a small constant folder
(string literals, f-strings of literals, ``+``, ``os.path.join``, ``pathlib.Path(…) / …``, names bound
once to such a value, ``~`` for the home directory). Literal code given to ``exec``/``eval``/``compile``
is analysed in turn; built code is ``DYNAMIC``.
"""

from __future__ import annotations

import ast
import posixpath

from gateway.shell.code.effects import (
    CONNECT,
    DELETE,
    DELETE_TREE,
    DYNAMIC,
    ENVIRONMENT,
    EXEC,
    MAX_EFFECTS,
    READ,
    WRITE,
    Effect,
    command_line,
)

_MAX_NESTED = 4  # exec("exec('…')") levels followed

# Fully qualified function → (effect, index of the path/command argument).
_CALLS: dict[str, tuple[str, int]] = {
    "os.remove": (DELETE, 0), "os.unlink": (DELETE, 0), "os.rmdir": (DELETE, 0), "os.removedirs": (DELETE, 0),
    "shutil.rmtree": (DELETE_TREE, 0),
    "shutil.copy": (WRITE, 1), "shutil.copy2": (WRITE, 1), "shutil.copyfile": (WRITE, 1),
    "shutil.copytree": (WRITE, 1), "shutil.move": (WRITE, 1), "os.rename": (WRITE, 1), "os.replace": (WRITE, 1),
    "os.symlink": (WRITE, 1), "os.link": (WRITE, 1), "os.chmod": (WRITE, 0), "os.chown": (WRITE, 0),
    "os.truncate": (WRITE, 0), "os.mkfifo": (WRITE, 0), "urllib.request.urlretrieve": (WRITE, 1),
    "os.system": (EXEC, 0), "os.popen": (EXEC, 0), "subprocess.run": (EXEC, 0), "subprocess.call": (EXEC, 0),
    "subprocess.check_call": (EXEC, 0), "subprocess.check_output": (EXEC, 0), "subprocess.Popen": (EXEC, 0),
    "subprocess.getoutput": (EXEC, 0), "subprocess.getstatusoutput": (EXEC, 0), "pty.spawn": (EXEC, 0),
    "commands.getoutput": (EXEC, 0), "asyncio.create_subprocess_shell": (EXEC, 0),
    "asyncio.create_subprocess_exec": (EXEC, -1),
    "os.execv": (EXEC, 1), "os.execve": (EXEC, 1), "os.execvp": (EXEC, 1), "os.execvpe": (EXEC, 1),
    "os.execl": (EXEC, -1), "os.execle": (EXEC, -1), "os.execlp": (EXEC, -1), "os.execlpe": (EXEC, -1),
    "os.spawnl": (EXEC, -2), "os.spawnlp": (EXEC, -2), "os.spawnv": (EXEC, 2), "os.spawnvp": (EXEC, 2),
    "os.posix_spawn": (EXEC, 1), "os.posix_spawnp": (EXEC, 1),
    "socket.create_connection": (CONNECT, 0), "telnetlib.Telnet": (CONNECT, 0), "ftplib.FTP": (CONNECT, 0),
    "smtplib.SMTP": (CONNECT, 0), "http.client.HTTPConnection": (CONNECT, 0),
    "http.client.HTTPSConnection": (CONNECT, 0),
}
# Methods of a pathlib.Path built from a known path.
_PATH_METHODS = {"unlink": DELETE, "rmdir": DELETE, "write_text": WRITE, "write_bytes": WRITE, "touch": WRITE,
                 "chmod": WRITE, "read_text": READ, "read_bytes": READ, "rename": WRITE, "replace": WRITE,
                 "symlink_to": WRITE, "hardlink_to": WRITE}
_PATH_TYPES = frozenset({"pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "Path"})
_HOME_VARS = frozenset({"HOME", "USERPROFILE"})
# Calls whose argument reaches the transcript, a file or the network as text.
_OUTPUTS = frozenset({"print", "pprint.pprint", "pprint.pp", "json.dumps", "json.dump", "yaml.dump",
                      "yaml.safe_dump", "sys.stdout.write", "sys.stderr.write", "logging.info", "logging.warning",
                      "logging.debug", "logging.error", "str", "repr", "format"})


def effects(source: str, depth: int = 0) -> list[Effect] | None:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # python could not run it either; the caller keeps its heuristics
    try:
        return _Reader(tree, depth).run()
    except RecursionError:
        return None


# Python's site folders, as the analysis places them: what loads from them loads at every start of Python.
_USER_SITE = "~/.local/lib/python3/site-packages"
_SYSTEM_SITE = "/usr/lib/python3/site-packages"


def _pid(node: ast.expr) -> int | None:
    """A literal process id (`-1`: every process the user may signal)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -node.operand.value if isinstance(node.operand.value, int) else None
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, int) else None


class _Reader:
    def __init__(self, tree: ast.Module, depth: int) -> None:
        self.tree = tree
        self.depth = depth
        self.aliases: dict[str, str] = {}  # local name → qualified name (modules and imported functions)
        self.constants: dict[str, str | None] = {}  # names bound to a foldable value (None: rebound)
        self.alternatives: dict[str, list[str]] = {}  # names imported as different things in different places
        self.out: list[Effect] = []

    def bind(self, name: str, target: str) -> None:
        previous = self.aliases.get(name)
        if previous is not None and previous != target:
            # `if py3: import urllib.request as r / else: import urllib as r`: either may be in force.
            self.alternatives.setdefault(name, [previous]).append(target)
        self.aliases[name] = target

    def run(self) -> list[Effect]:
        nodes = list(ast.walk(self.tree))
        for node in nodes:
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.bind(a.asname or a.name.split(".")[0], a.name if a.asname else a.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    if a.name != "*":
                        self.bind(a.asname or a.name, f"{node.module}.{a.name}")
        for node in nodes:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                name = node.targets[0].id
                if isinstance(node.value, (ast.Name, ast.Attribute, ast.Call)):
                    # `f = os.unlink; f(p)`, `run = getattr(os, 'sys' + 'tem')`, `m = __import__('os')`: a
                    # function (or module) under another name, resolved like an import
                    target = self.qualified(node.value)
                    if target is not None and target != name:
                        self.aliases[name] = target
                # names bound once to a foldable value: `p = '/etc'; shutil.rmtree(p)`
                value = self.fold(node.value)
                self.constants[name] = value if name not in self.constants else None
        for node in nodes:
            if isinstance(node, ast.For | ast.comprehension):
                self.walk_variable(node.target, node.iter)
        calls = [node for node in nodes if isinstance(node, ast.Call)]
        self.environment_dumps(nodes)
        self.calls(calls)
        for name, targets in list(self.alternatives.items())[:8]:
            for target in targets[:8]:
                if target != self.aliases.get(name):
                    self.aliases[name] = target
                    self.calls(calls)
        return self.out

    def walk_variable(self, target: ast.expr, iterable: ast.expr) -> None:
        """`for p in Path('build').rglob('*')`, `for root, _, files in os.walk('~')`: the loop variable names
        something under the walked directory (`build/*`), so what is done to it is done under there."""
        if not isinstance(iterable, ast.Call):
            return
        func = self.qualified(iterable.func) or ""
        root: str | None = None
        if isinstance(iterable.func, ast.Attribute) and iterable.func.attr in ("rglob", "glob", "iterdir", "walk"):
            root = self.fold(iterable.func.value)
        elif func in ("os.walk", "os.listdir", "os.scandir", "os.fwalk") and iterable.args:
            root = self.fold(iterable.args[0])
        elif func in ("glob.glob", "glob.iglob") and iterable.args:
            pattern = self.fold(iterable.args[0])
            root = posixpath.dirname(pattern.split("*", 1)[0]) or "." if pattern is not None else None
        if root is None:
            return
        names = [target] if isinstance(target, ast.Name) else [
            e for e in target.elts if isinstance(e, ast.Name)] if isinstance(target, ast.Tuple) else []
        for name in names:
            if name.id not in self.constants:
                self.constants[name.id] = posixpath.join(root, "*")

    def whole_environment(self, node: ast.expr) -> bool:
        """`os.environ`, `dict(os.environ)`, `os.environ.items()`, `{**os.environ}`, `os.environ.copy()` …"""
        if isinstance(node, ast.Starred):
            node = node.value
        if isinstance(node, ast.Dict):
            return any(k is None and self.whole_environment(v) for k, v in zip(node.keys, node.values, strict=True))
        if isinstance(node, ast.Call):
            func = self.qualified(node.func)
            if func in ("dict", "list", "sorted", "str", "repr", "os.environ.copy", "os.environ.items",
                        "os.environ.keys", "os.environ.values", "os.environb.items"):
                return func.startswith("os.environ") or (bool(node.args) and self.whole_environment(node.args[0]))
            return False
        return self.qualified(node) in ("os.environ", "os.environb")

    def environment_dumps(self, nodes: list[ast.AST]) -> None:
        """The whole environment handed to output (print, json.dumps, a log, a write) or walked item by item:
        every API key the agent holds, like `printenv`. `env=os.environ.copy()` for a child stays fine."""
        for node in nodes:
            if isinstance(node, ast.For | ast.comprehension) and self.whole_environment(node.iter):
                self.out.append(Effect(ENVIRONMENT, None))
            elif isinstance(node, ast.Call):
                func = self.qualified(node.func) or ""
                sink = func in _OUTPUTS or func.endswith((".write", ".send", ".sendall", ".post", ".put",
                                                           ".info", ".warning", ".debug", ".error"))
                given = [*node.args, *(k.value for k in node.keywords if k.arg not in ("env", "environ"))]
                if sink and any(self.whole_environment(a) for a in given):  # `requests.post(u, json=dict(os.environ))`
                    self.out.append(Effect(ENVIRONMENT, None))
            elif isinstance(node, ast.JoinedStr) and any(
                    isinstance(v, ast.FormattedValue) and self.whole_environment(v.value) for v in node.values):
                self.out.append(Effect(ENVIRONMENT, None))

    def calls(self, calls: list[ast.Call]) -> None:
        for node in calls:
            if len(self.out) >= MAX_EFFECTS:
                break
            self.call(node)

    # -- names and values ----------------------------------------------------------------------------

    def qualified(self, node: ast.expr) -> str | None:
        """The dotted name an expression refers to, imports resolved: `s.rmtree` → `shutil.rmtree`."""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self.qualified(node.value)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Call):  # __import__('os').remove, importlib.import_module('os').remove
            func = self.qualified(node.func)
            if func in ("__import__", "importlib.import_module") and node.args:
                return self.fold(node.args[0])
            if func == "getattr" and len(node.args) >= 2:  # getattr(os, 'remove')(…)
                base, attr = self.qualified(node.args[0]), self.fold(node.args[1])
                return f"{base}.{attr}" if base and attr else None
        return None

    def fold(self, node: ast.expr | None) -> str | None:
        """A string the program computes from literals only, else None."""
        if node is None:
            return None
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else str(node.value) if isinstance(
                node.value, int) and not isinstance(node.value, bool) else None
        if isinstance(node, ast.Name):
            return self.constants.get(node.id)
        if isinstance(node, ast.JoinedStr):
            parts = [self.fold(v.value) if isinstance(v, ast.FormattedValue) else self.fold(v) for v in node.values]
            return "".join(parts) if all(p is not None for p in parts) else None  # type: ignore[arg-type]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.fold(node.left), self.fold(node.right)
            return left + right if left is not None and right is not None else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):  # Path('/a') / 'b'
            left, right = self.fold(node.left), self.fold(node.right)
            return posixpath.join(left, right) if left is not None and right is not None else None
        if isinstance(node, ast.Subscript):  # os.environ['HOME']
            if self.qualified(node.value) == "os.environ" and self.fold(node.slice) in _HOME_VARS:
                return "~"
            if self.qualified(node.value) in ("site.getsitepackages", "site.getsitepackages()") or (
                    isinstance(node.value, ast.Call) and self.qualified(node.value.func) == "site.getsitepackages"):
                return _SYSTEM_SITE  # site.getsitepackages()[0]
            return None
        if isinstance(node, ast.Attribute) and self.qualified(node) in ("site.USER_SITE", "site.USER_BASE"):
            return _USER_SITE if node.attr == "USER_SITE" else "~/.local"
        if isinstance(node, ast.Call):
            return self.fold_call(node)
        return None

    def fold_call(self, node: ast.Call) -> str | None:
        func = self.qualified(node.func)
        args = [self.fold(a) for a in node.args]
        if func in ("os.path.join", "posixpath.join") or func in _PATH_TYPES or (
                func and func.endswith(".joinpath")):
            if func and func.endswith(".joinpath") and isinstance(node.func, ast.Attribute):
                args = [self.fold(node.func.value), *args]
            return posixpath.join(*args) if args and all(a is not None for a in args) else None  # type: ignore[arg-type]
        if func in ("os.path.expanduser", "os.path.abspath", "os.path.normpath", "os.path.realpath", "str",
                    "os.fspath") and len(args) == 1:
            return args[0]
        if func in ("os.getenv", "os.environ.get") and args and args[0] in _HOME_VARS:
            return "~"
        if func in ("pathlib.Path.home", "Path.home", "os.path.expanduser") and not args:
            return "~"
        if func in ("os.getcwd", "pathlib.Path.cwd", "Path.cwd"):
            return "."
        if func == "site.getusersitepackages":
            return _USER_SITE  # where usercustomize.py and .pth files load at every start of Python
        if func in ("sysconfig.get_path", "sysconfig.get_paths", "distutils.sysconfig.get_python_lib"):
            return _SYSTEM_SITE
        return None

    def argv(self, node: ast.expr) -> str | None:
        """A command given as a string or a list of literals, as one shell command line."""
        if isinstance(node, (ast.List, ast.Tuple)):
            return command_line([self.fold(e) for e in node.elts])
        return self.fold(node)

    # -- calls ----------------------------------------------------------------------------------------

    def call(self, node: ast.Call) -> None:
        func = self.qualified(node.func)
        if func in ("exec", "eval", "compile", "builtins.exec", "builtins.eval"):
            self.code(node)
            return
        if func == "getattr" and len(node.args) >= 2 and self.fold(node.args[1]) is None:
            self.out.append(Effect(DYNAMIC, None))  # getattr(os, 'sys' + x): an unknowable function
            return
        if func in ("open", "io.open", "builtins.open", "codecs.open"):
            self.open_(node)
            return
        if func in ("os.kill", "os.killpg") and node.args and _pid(node.args[0]) in (-1, 0, 1):
            self.out.append(Effect(EXEC, "kill -9 -1"))  # `os.kill(-1, SIGKILL)`: every process the user has
            return
        if func is not None and func in _CALLS:
            kind, index = _CALLS[func]
            self.out.append(Effect(kind, self.argument(node, kind, index)))
            return
        if isinstance(node.func, ast.Attribute):
            self.method(node, node.func)

    def argument(self, node: ast.Call, kind: str, index: int) -> str | None:
        if kind == EXEC and index < 0:  # execl(path, arg0, arg1…): the arguments after the path
            return command_line([self.fold(a) for a in node.args[-index:]])
        if index >= len(node.args):
            keyword = {"src": 0, "dst": 1, "path": 0, "args": 0, "cmd": 0, "command": 0, "address": 0,
                       "host": 0}
            for kw in node.keywords:
                if kw.arg in keyword and keyword[kw.arg] == index:
                    return self.argv(kw.value) if kind == EXEC else self.fold(kw.value)
            return None
        arg = node.args[index]
        if kind == EXEC:
            return self.argv(arg)
        if kind == CONNECT and isinstance(arg, ast.Tuple) and arg.elts:  # create_connection((host, port))
            return self.fold(arg.elts[0])
        return self.fold(arg)

    def open_(self, node: ast.Call) -> None:
        path = self.fold(node.args[0]) if node.args else None
        mode_node = node.args[1] if len(node.args) > 1 else next(
            (kw.value for kw in node.keywords if kw.arg == "mode"), None)
        mode = self.fold(mode_node) if mode_node is not None else "r"
        writes = mode is None or any(m in mode for m in "wax+")
        self.out.append(Effect(WRITE if writes else READ, path))

    def method(self, node: ast.Call, func: ast.Attribute) -> None:
        name = func.attr
        if name == "connect" and node.args and isinstance(node.args[0], ast.Tuple) and node.args[0].elts:
            self.out.append(Effect(CONNECT, self.fold(node.args[0].elts[0])))  # sock.connect((host, port))
            return
        if name in _PATH_METHODS and isinstance(func.value, (ast.Call, ast.BinOp, ast.Name)):
            base = func.value
            is_path = (isinstance(base, ast.Call) and self.qualified(base.func) in _PATH_TYPES) or isinstance(
                base, ast.BinOp) or (isinstance(base, ast.Name) and self.constants.get(base.id) is not None)
            if is_path:
                target = self.fold(base)
                if name in ("rename", "replace", "symlink_to", "hardlink_to") and node.args:
                    target = self.fold(node.args[0]) if name in ("rename", "replace") else target
                self.out.append(Effect(_PATH_METHODS[name], target))

    def code(self, node: ast.Call) -> None:
        text = self.fold(node.args[0]) if node.args else None
        if text is None or self.depth >= _MAX_NESTED:
            self.out.append(Effect(DYNAMIC, None))
            return
        nested = effects(text, self.depth + 1)
        if nested is not None:
            self.out.extend(nested)
