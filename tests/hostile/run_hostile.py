#!/usr/bin/env python3
"""Runs the hostile-input table (cases.yaml): each row is one class of bad input or output
target, run through qnn-validate or qnn-rules, with the exit code and a message fragment it
must give, and checks on what was left on disk. Debian's python3 and PyYAML only.

Usage: run_hostile.py --validate QNN_VALIDATE --rules-tool QNN_RULES [--only NAME]...
"""
import argparse
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

import yaml

# Rows marked `unprivileged` (an unreadable file) prove nothing when run as root, who reads any
# file: as root (CI runs as root) their command runs without the capabilities that bypass file
# permissions (util-linux's setpriv drops them from the bounding set, so the tool never has them),
# still as uid 0, so the build tree stays reachable wherever the checkout is.
WITHOUT_FILE_CAPS = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE_DIR = tempfile.TemporaryDirectory(prefix="hostile-cache-")
INPUTS = os.path.join(HERE, "inputs")
# A hang guard, not a speed assertion; sanitizer Debug builds run several times slower
# (tests/CMakeLists.txt sets QNNRULES_HOSTILE_TIMEOUT there).
TIMEOUT = float(os.environ.get("QNNRULES_HOSTILE_TIMEOUT", "60"))


def graph(nodes, name="generated"):
    return json.dumps({"format": "qnnrules-graph", "version": 1, "name": name, "nodes": nodes})


def relu_chain(count, stats):
    """An input and `count` relus, each output sharing its input's encoding: one long shared chain."""
    nodes = [{"name": "x", "kind": "input", "outputs": [{
        "dtype": "float32", "shape": [4], "qspec": {"dtype": "uint8", "quant_min": 0, "quant_max": 255},
        **({"stats": {"min": -1.0, "max": 1.0}} if stats else {})}]}]
    for i in range(count):
        prev = "x" if i == 0 else f"r{i - 1}"
        nodes.append({"name": f"r{i}", "kind": "call", "target": "aten.relu.default", "args": [{"ref": prev}],
                      "outputs": [{"dtype": "float32", "shape": [4], "qspec": {"shared_with": {"node": prev}}}]})
    return graph(nodes, "chain")


# --- ONNX models, encoded by hand (Debian's python3 has no onnx): the fields of onnx.proto3
# that the reader needs, by field number.
def _varint(v):
    v &= (1 << 64) - 1  # negative int64 fields are ten-byte two's complement varints
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _field(number, value):
    """One protobuf field: int -> varint, bytes/str -> length-delimited."""
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    if isinstance(value, str):
        value = value.encode()
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def _value_info(name, elem_type, dims):
    shape = b"".join(_field(1, _field(1, d)) for d in dims)
    return _field(1, name) + _field(2, _field(1, _field(1, elem_type) + _field(2, shape)))


def onnx_dequantize(scale_dims, scale_type=1, scale_raw=b"\0" * 16, input_dims=(1, 4), opset=13, ir_version=7,
                    with_opset=True, axis_attributes=(), opset_twice=False):
    """x (uint8 input) -> DequantizeLinear(x, scale initializer) -> y."""
    tensor = b"".join(_field(1, d) for d in scale_dims) + _field(2, scale_type) + _field(8, "scale") + _field(9, scale_raw)
    attrs = b"".join(_field(5, _field(1, "axis") + _field(3, a) + _field(20, 2)) for a in axis_attributes)
    node = _field(1, "x") + _field(1, "scale") + _field(2, "y") + _field(3, "dq") + _field(4, "DequantizeLinear") + attrs
    graph = (_field(1, node) + _field(2, "hostile") + _field(5, tensor) + _field(11, _value_info("x", 2, input_dims)) +
             _field(12, _value_info("y", 1, input_dims)))
    model = _field(1, ir_version) + _field(7, graph)
    if with_opset:
        model += _field(8, _field(1, "") + _field(2, opset))
    if opset_twice:
        model += _field(8, _field(1, "ai.onnx") + _field(2, opset + 4))
    return model


# --- .pt2 archives: tests/data/pt2/q8a8w_per_channel.pt2 with one entry changed.
PT2_BASE = os.path.join(HERE, "..", "data", "pt2", "q8a8w_per_channel.pt2")
PT2_ROOT = "q8a8w_per_channel/"


def pt2_with(path, replace):
    """Copies the base archive to `path`, entries named in `replace` (relative to the root)
    given new content: bytes, a function of the old bytes, or an iterable of byte chunks
    (written deflated, for zip bombs)."""
    import zipfile
    with zipfile.ZipFile(PT2_BASE) as src, zipfile.ZipFile(path, "w") as dst:
        for info in src.infolist():
            rel = info.filename[len(PT2_ROOT):]
            if rel not in replace:
                dst.writestr(info, src.read(info))
                continue
            new = replace[rel]
            if callable(new):
                new = new(src.read(info))
            if isinstance(new, bytes):
                dst.writestr(info.filename, new)
            else:
                entry = zipfile.ZipInfo(info.filename)
                entry.compress_type = zipfile.ZIP_DEFLATED
                with dst.open(entry, "w", force_zip64=True) as f:
                    for chunk in new:
                        f.write(chunk)


def pt2_scale_meta(**meta):
    """The weights config with _scale_0's tensor_meta fields changed (sizes/strides as ints)."""
    def edit(old):
        cfg = json.loads(old)
        tm = cfg["config"]["_scale_0"]["tensor_meta"]
        for k, v in meta.items():
            tm[k] = [{"as_int": x} for x in v] if isinstance(v, list) else {"as_int": v}
        return json.dumps(cfg).encode()
    return {"data/weights/model_weights_config.json": edit}


def pt2_negative_size(old):
    program = json.loads(old)
    values = program["graph_module"]["graph"]["tensor_values"]
    values[sorted(values)[0]]["sizes"][0] = {"as_int": -5}
    return json.dumps(program).encode()


def pt2_schema_version(major):
    def edit(old):
        program = json.loads(old)
        program["schema_version"]["major"] = major
        return json.dumps(program).encode()
    return edit


def inflating(total, piece, head=b"", tail=b""):
    """`total` bytes of JSON text made of `piece` repeated, in 1 MiB chunks."""
    yield head
    chunk = piece * ((1 << 20) // len(piece))
    left = total - len(head) - len(tail)
    while left > 0:
        yield chunk[:left]
        left -= len(chunk)
    yield tail


def json_documents(text):
    """The JSON documents written one after another (a JSON report, then a graph)."""
    decoder = json.JSONDecoder()
    docs, at = [], 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return docs
        doc, at = decoder.raw_decode(text, at)
        docs.append(doc)


GENERATED_CACHE = {}  # name -> a file made once per run (the zip bombs take seconds to deflate)


def generated_binary(name, path):
    """Binary inputs (ONNX models, .pt2 archives) written to `path`."""
    if name in GENERATED_CACHE:
        shutil.copyfile(GENERATED_CACHE[name], path)
        return
    if "bomb" in name:
        cached = os.path.join(CACHE_DIR.name, os.path.basename(path))
        _generate_binary(name, cached)
        GENERATED_CACHE[name] = cached
        shutil.copyfile(cached, path)
        return
    _generate_binary(name, path)


def _generate_binary(name, path):
    gib = 1 << 30
    if name.startswith("onnx_"):
        models = {
            "onnx_scale_dims_2_62": lambda: onnx_dequantize([1 << 62]),
            "onnx_scale_dims_2_61_double": lambda: onnx_dequantize([1 << 61], scale_type=11),
            "onnx_scale_dims_overflow": lambda: onnx_dequantize([1 << 40, 1 << 40]),
            "onnx_negative_input_dim": lambda: onnx_dequantize([1], scale_raw=b"\0\0\x80\x3f", input_dims=(1, -4)),
            "onnx_no_opset": lambda: onnx_dequantize([1], scale_raw=b"\0\0\x80\x3f", with_opset=False),
            "onnx_huge_opset": lambda: onnx_dequantize([1], scale_raw=b"\0\0\x80\x3f", opset=1 << 62),
            "onnx_repeated_axis": lambda: onnx_dequantize([1], scale_raw=b"\0\0\x80\x3f", axis_attributes=(1, 0)),
            "onnx_opset_twice": lambda: onnx_dequantize([1], scale_raw=b"\0\0\x80\x3f", opset_twice=True),
        }
        with open(path, "wb") as f:
            f.write(models[name]())
        return
    archives = {
        "pt2_offset_2_62": lambda: pt2_scale_meta(storage_offset=(1 << 62) - 1),
        "pt2_offset_int64_max": lambda: pt2_scale_meta(storage_offset=(1 << 63) - 1),
        "pt2_stride_int64_max": lambda: pt2_scale_meta(strides=[(1 << 63) - 1]),
        "pt2_stride0_67m": lambda: pt2_scale_meta(sizes=[1 << 26], strides=[0]),
        "pt2_stride0_16m": lambda: pt2_scale_meta(sizes=[1 << 24], strides=[0]),
        "pt2_negative_size": lambda: {"models/model.json": pt2_negative_size},
        "pt2_schema_version_huge": lambda: {"models/model.json": pt2_schema_version((1 << 64) - 1)},
        "pt2_schema_version_negative": lambda: {"models/model.json": pt2_schema_version(-1)},
        "pt2_big_endian": lambda: {"byteorder": b"big"},
        "pt2_number_1e400": lambda: {"models/model.json": lambda old: old.replace(b"0.02746514417231083", b"1e400", 1)},
        # Zip bombs: program JSON inflating to 1 GiB (refused before inflating), and to 60 MB,
        # under the inflate limit, where the JSON value limit refuses it before any DOM.
        "pt2_bomb_zeros_1g": lambda: {"models/model.json": inflating(gib, b"0,", b"[", b"0]")},
        "pt2_bomb_spaces_1g": lambda: {"models/model.json": inflating(gib, b" ", b"{", b"}")},
        "pt2_bomb_zeros_60m": lambda: {"models/model.json": inflating(60 << 20, b"0,", b"[", b"0]")},
    }
    pt2_with(path, archives[name]())


def generated(name):
    """Inputs too large (or too regular) to commit."""
    if name == "deep_nesting":
        return '{"format": "qnnrules-graph", "version": 1, "meta": ' + "[" * 100000 + "]" * 100000 + ', "nodes": []}'
    if name == "million_arguments":
        args = ",".join(['{"ref": "x"}'] * 1_000_000)
        return ('{"format": "qnnrules-graph", "version": 1, "nodes": [{"name": "x", "kind": "input", "outputs": '
                '[{"dtype": "float32", "shape": [1]}]}, {"name": "c", "kind": "call", "target": "aten.cat.default", '
                '"args": [[' + args + ']], "outputs": [{"dtype": "float32", "shape": [1000000]}]}]}')
    if name == "many_duplicate_keys":
        keys = ",".join(f'"k{i}": {i}' for i in range(100_000))
        return ('{"format": "qnnrules-graph", "version": 1, "nodes": [{"name": "x", "kind": "input", "outputs": '
                '[{"dtype": "float32", "shape": [1]}]}, {"name": "c", "kind": "call", "target": "aten.relu.default", '
                '"args": [{"ref": "x"}], "kwargs": {' + keys + ', "k0": 0}}]}')
    if name == "weight_axis_100k_keys":
        # quant_configs.yaml of a rules overlay whose free-keyed weight_axis mapping has 100k
        # targets and then the first one again: the duplicate check was a list scan per key.
        with open(os.path.join(HERE, "..", "..", "rules", "quant_configs.yaml"), encoding="utf-8") as f:
            base = f.read()
        axes = "".join(f"  aten.op{i}.default: 0\n" for i in range(100_000)) + "  aten.op0.default: 1\n"
        return base.replace("weight_axis:\n", "weight_axis:\n" + axes, 1)
    if name == "rule_file_100k_keys":
        # A rule file of an overlay whose top level has 100k keys besides version and rules.
        return "version: 1\nrules: []\n" + "".join(f"k{i}: {i}\n" for i in range(100_000))
    if name == "escape_in_node_name":
        # A node whose name clears the screen and retitles the terminal; its op has no rule.
        return graph([{"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1]}]},
                      {"name": "\x1b[2J\x1b]0;pwned\x07evil", "kind": "call", "target": "aten.\x1b[31mmy_op.default",
                       "args": [{"ref": "x"}], "outputs": [{"dtype": "float32", "shape": [1]}]}])
    if name == "alias_laughs_overlay":
        # Nine levels of ten aliases: a billion nodes from 500 bytes (issue 36: a valid 258 KB
        # overlay of aliased lists took 64 s).
        text = "version: 1\nx0: &a0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
        for i in range(1, 10):
            text += f"x{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n"
        return text + "rules: []\n"
    if name == "encodings_chain":
        return relu_chain(80_000, stats=True)  # issue 24: 37 s before encodings were streamed
    if name == "large_graph":
        return relu_chain(60_000, stats=False)
    raise SystemExit(f"unknown generated input {name}")


# Sanitizer builds (QNNRULES_HOSTILE_SANITIZED=1, tests/CMakeLists.txt): AddressSanitizer's
# shadow memory and quarantine take about three times the memory of the program itself, so the
# memory bound is checked with that factor there, and rows that cap the address space are skipped.
SANITIZED = os.environ.get("QNNRULES_HOSTILE_SANITIZED") == "1"
SANITIZER_MEMORY_FACTOR = 3


MEASURE_PEAK = os.path.join(HERE, "measure_peak.py")


def start_measured(cmd, memory_limit_mb=None, **popen_args):
    """Starts `cmd` under measure_peak.py, in a process group of its own (signal_later signals
    the group), with the address space capped at `memory_limit_mb` when given."""
    fd, peak_file = tempfile.mkstemp(prefix="hostile-peak-")
    os.close(fd)
    p = subprocess.Popen([sys.executable, MEASURE_PEAK, peak_file, str(memory_limit_mb or 0), "--"] + cmd,
                         start_new_session=True, **popen_args)
    p.peak_file = peak_file
    return p


def signal_later(p, delay, sig=signal.SIGKILL):
    """A started timer sending `sig` to the process group of `p` (started by start_measured)
    after `delay` s. os.killpg, not Popen.send_signal: that polls, and a poll from the timer's
    thread could reap the child before wait_measured's wait4. The child is reaped only by wait4,
    after which the timer is cancelled."""
    def send():
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass
    timer = threading.Timer(delay, send)
    timer.start()
    return timer


def wait_measured(p):
    """Waits for `p` (started by start_measured); its exit code and the tool's own peak RSS in
    bytes (0 when it was killed before measure_peak.py could say)."""
    _, status, _ = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    with open(p.peak_file, encoding="utf-8") as f:
        text = f.read()
    os.unlink(p.peak_file)
    return p.returncode, int(text) if text else 0


def allowed_memory(inp):
    """Issue 24's bound: 64 x the input's size + 200 MB (an input that is no file counts 0)."""
    size = os.path.getsize(inp) if inp and os.path.isfile(inp) else 0
    return size, 64 * size + (200 << 20)


def run_measured(cmd, env, memory_limit_mb=None):
    """Runs `cmd`; (exit code or None on timeout, stdout + stderr, the tool's peak RSS in bytes)."""
    with tempfile.TemporaryFile() as out:
        p = start_measured(cmd, memory_limit_mb, env=env, stdout=out, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL)
        timer = signal_later(p, TIMEOUT)
        _, peak = wait_measured(p)
        timed_out = not timer.is_alive()
        timer.cancel()
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    return (None if timed_out else p.returncode), text, peak


class Case:
    def __init__(self, row, tools, work):
        self.row = row
        self.tools = tools
        self.work = work
        self.name = row["name"]
        self.peak = None
        self.input = None

    def materialize_input(self):
        spec = self.row.get("input", {})
        if "file" in spec:
            return os.path.join(INPUTS, spec["file"])
        if "text" in spec:
            path = os.path.join(self.work, "input" + spec.get("suffix", ".json"))
            with open(path, "w", encoding="utf-8") as f:
                f.write(spec["text"])
            return path
        if "generate" in spec:
            path = os.path.join(self.work, spec.get("path", spec["generate"] + spec.get("suffix", ".json")))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if spec.get("suffix") in (".onnx", ".pt2"):
                generated_binary(spec["generate"], path)
                return path
            with open(path, "w", encoding="utf-8") as f:
                f.write(generated(spec["generate"]))
            return path
        special = spec.get("special")
        if special == "fifo":
            # `path`: where under {work} (a FIFO among an overlay's rule files).
            path = os.path.join(self.work, spec.get("path", "fifo.json"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            os.mkfifo(path)
            return path
        if special == "sparse_1g":
            # 1 GiB (or `size` bytes) of holes, nothing on disk (issue 36: a baseline read whole
            # took 2.1 GB; a thousand 16 MB sparse rule files, a minute a run).
            path = os.path.join(self.work, spec.get("path", "sparse.json"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.truncate(spec.get("size", 1 << 30))
            return path
        if special == "directory":
            return self.work
        if special == "unreadable":
            path = os.path.join(self.work, "unreadable.json")
            with open(path, "w", encoding="utf-8") as f:
                f.write(graph([]))
            os.chmod(path, 0)
            return path
        if special:
            return special  # a device path such as /dev/zero
        return os.path.join(INPUTS, "getitem_no_outputs.json")

    def materialize_output(self):
        kind = self.row.get("output")
        out = os.path.join(self.work, "out.json")
        if kind is None or kind == "new":
            return out
        if kind == "symlink":
            target = os.path.join(self.work, "target.json")
            with open(target, "w", encoding="utf-8") as f:
                f.write("old\n")
            os.chmod(target, 0o640)
            os.symlink("target.json", out)
            return out
        if kind == "existing_0600":
            with open(out, "w", encoding="utf-8") as f:
                f.write("old\n")
            os.chmod(out, 0o600)
            return out
        if kind == "fifo":
            os.mkfifo(out)
            return out
        if kind == "dangling_symlink":
            os.symlink("nowhere/made.json", out)
            return out
        if kind == "sticky_foreign_link":
            # /tmp's situation: a sticky world-writable directory, and in it a link planted by
            # another user (uid 65534) to a 0600 file of ours. The kernel would follow it unless
            # fs.protected_symlinks is on; the tool must refuse it either way.
            sticky = os.path.join(self.work, "sticky")
            os.mkdir(sticky)
            os.chmod(sticky, 0o1777)
            secret = os.path.join(self.work, "secret.json")
            with open(secret, "w", encoding="utf-8") as f:
                f.write("secret\n")
            os.chmod(secret, 0o600)
            link = os.path.join(sticky, "out.json")
            os.symlink(secret, link)
            os.lchown(link, 65534, 65534)
            return link
        if kind == "stdout":
            return "/dev/stdout"
        if kind == "directory":
            os.mkdir(out)
            return out
        return kind  # a device path such as /dev/full or /dev/null

    def as_unprivileged(self, cmd):
        """The command without root's power over file permissions, when we are root."""
        if not self.row.get("unprivileged") or os.geteuid() != 0:
            return cmd
        return WITHOUT_FILE_CAPS + cmd

    def run(self):
        inp = self.materialize_input()
        out = self.materialize_output()
        args = [a.format(input=inp, out=out, inputs=INPUTS, work=self.work) for a in self.row.get("args", ["{input}"])]
        exe = self.tools[self.row.get("tool", "validate")]
        env = dict(os.environ, QNNRULES_PATH="")
        for k, v in self.row.get("env", {}).items():
            env[k] = v.format(input=inp, inputs=INPUTS, work=self.work)
        self.input = inp
        if "signal" in self.row:
            return self.run_interrupted([exe] + args, env)
        if self.row.get("output") == "sticky_foreign_link" and os.geteuid() != 0:
            return "pass", "skipped: planting another user's link needs root"
        if "stdout" in self.row:
            return self.run_stdout([exe] + args, env)
        if self.row.get("prepare"):
            if verdict := self.prepare([exe] + args, env):
                return verdict
        limit = self.row.get("memory_limit_mb")
        if limit and SANITIZED:
            return "pass", "skipped: a sanitizer's shadow memory does not fit an address-space limit"
        returncode, text, peak = run_measured(self.as_unprivileged([exe] + args), env, limit)
        if returncode is None:
            return "fail", f"no answer within {TIMEOUT} s"
        want = self.row["exit"]
        if returncode != want:
            return "fail", f"exit {returncode}, expected {want}\n{text[-2000:]}"
        if verdict := self.check_memory(peak):
            return verdict
        if "internal error" in text:
            return "fail", f"internal error\n{text[-2000:]}"
        fragment = self.row.get("message")
        if fragment and fragment not in text:
            return "fail", f"message lacks {fragment!r}\n{text[-2000:]}"
        if "message_count" in self.row and text.count(fragment) != self.row["message_count"]:
            return "fail", f"{fragment!r} said {text.count(fragment)} times, expected {self.row['message_count']}\n{text[-2000:]}"
        if self.row.get("plain_text"):
            raw = sorted({f"{ord(c):#04x}" for c in text if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F})
            if raw:
                return "fail", f"control characters from the input reached the output raw: {raw}\n{text[-2000:]}"
        return self.check(out)

    def check_memory(self, peak):
        """Memory bounded by the input (issue 24): peak RSS <= 64 x the input's size + 200 MB,
        measured on every row that runs the tool (the largest peak when it runs several times)."""
        self.peak = max(self.peak or 0, peak)
        size, allowed = allowed_memory(self.input)
        if self.peak > allowed * (SANITIZER_MEMORY_FACTOR if SANITIZED else 1):
            return "fail", f"peak memory {self.peak >> 20} MB, above 64 x {size} bytes + 200 MB = {allowed >> 20} MB"
        return None

    def prepare(self, cmd, env):
        """`cache_fifo` / `cache_huge`: one run fills the rule cache ({work}/cache), then every
        cache file is replaced by a FIFO (which must not hang the next run) or by a sparse
        2 GiB file (which must not be read whole)."""
        p = subprocess.run(cmd, env=env, capture_output=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
        cache = os.path.join(self.work, "cache")
        files = [os.path.join(cache, f) for f in os.listdir(cache)] if os.path.isdir(cache) else []
        if p.returncode != 0 or not files:
            return "fail", f"the first run (exit {p.returncode}) left no cache files in {cache}"
        for f in files:
            os.unlink(f)
            if self.row["prepare"] == "cache_fifo":
                os.mkfifo(f)
            else:
                with open(f, "wb") as h:
                    h.truncate(2 << 30)
        return None

    def run_stdout(self, cmd, env):
        """`stdout: append`: stdout is run.log opened for appending (`>> run.log`), which must
        keep its old lines and gain the report and the graph. `stdout: pipe`: stdout is a pipe
        into jq (or, without jq, Python's JSON decoder), which must read every document."""
        mode = self.row["stdout"]
        if mode == "append":
            log = os.path.join(self.work, "run.log")
            with open(log, "w", encoding="utf-8") as f:
                f.write("previous run\n")
            with open(log, "ab") as f, tempfile.TemporaryFile() as err:
                p = start_measured(cmd, env=env, stdout=f, stderr=err)
                timer = signal_later(p, TIMEOUT)
                returncode, peak = wait_measured(p)
                timer.cancel()
                err.seek(0)
                errors = err.read().decode("utf-8", "replace")
            with open(log, encoding="utf-8") as f:
                text = f.read()
            if returncode != self.row["exit"]:
                return "fail", f"exit {returncode}\n{errors[-2000:]}"
            if verdict := self.check_memory(peak):
                return verdict
            if not text.startswith("previous run\n"):
                return "fail", f"run.log lost its old content: {text[:200]!r}"
            docs = json_documents(text[len("previous run\n"):])
        elif mode == "pipe":
            jq = shutil.which("jq")
            reader = [jq, "-c", "{format: .format, tool: .tool}"] if jq else [
                sys.executable, "-c", "import sys, json; print(len(sys.stdin.read()))"]
            with tempfile.TemporaryFile() as errf:
                tool = start_measured(cmd, env=env, stdout=subprocess.PIPE, stderr=errf)
                timer = signal_later(tool, TIMEOUT)
                p = subprocess.run(reader, stdin=tool.stdout, capture_output=True, timeout=TIMEOUT)
                tool.stdout.close()
                _, peak = wait_measured(tool)
                timer.cancel()
                errf.seek(0)
                err = errf.read().decode("utf-8", "replace")
            if tool.returncode != self.row["exit"] or p.returncode != 0:
                return "fail", f"exit {tool.returncode}, reader exit {p.returncode}\n{err[-2000:]}{p.stderr.decode()[-500:]}"
            if verdict := self.check_memory(peak):
                return verdict
            if not jq:
                return "pass", "jq is not installed: the pipe was read by Python"
            docs = [json.loads(line) for line in p.stdout.decode().splitlines()]
        else:
            return "fail", f"unknown stdout mode {mode}"
        formats = [d.get("format") for d in docs if isinstance(d, dict)]
        if "qnnrules-graph" not in formats:
            return "fail", f"no graph among the {len(docs)} JSON document(s) written: {formats}"
        return "pass", ""

    def run_interrupted(self, cmd, env):
        """Interrupts the run at several points; whenever it stops, no temporary file is left and
        the output is either absent or complete."""
        sig = getattr(signal, "SIG" + self.row["signal"])
        out = cmd[cmd.index("--output") + 1]
        for delay in (0.05, 0.2, 0.5, 1.0, 2.0):
            if os.path.exists(out):
                os.unlink(out)
            p = start_measured(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            timer = signal_later(p, delay, sig)
            guard = signal_later(p, TIMEOUT)
            _, peak = wait_measured(p)
            timer.cancel()
            guard.cancel()
            if verdict := self.check_memory(peak):
                return verdict
            left = [f for f in os.listdir(self.work) if ".tmp-" in f]
            if left:
                return "fail", f"temporary files left after SIG{self.row['signal']} at {delay} s: {left}"
            if os.path.exists(out):
                with open(out, encoding="utf-8") as f:
                    try:
                        json.load(f)
                    except ValueError:
                        return "fail", f"half-written output after SIG{self.row['signal']} at {delay} s"
        return self.check(out)

    def check(self, out):
        for check in self.row.get("check", []):
            if check == "no_temp_files":
                left = [f for f in os.listdir(self.work) if ".tmp-" in f]
                if left:
                    return "fail", f"temporary files left: {left}"
            elif check == "symlink_written_through":
                if not os.path.islink(out):
                    return "fail", "the symlink was replaced"
                target = os.path.join(self.work, "target.json")
                with open(target, encoding="utf-8") as f:
                    json.load(f)
                if stat.S_IMODE(os.stat(target).st_mode) != 0o640:
                    return "fail", "the symlink target lost its mode"
            elif check == "mode_kept":
                if stat.S_IMODE(os.stat(out).st_mode) != 0o600:
                    return "fail", f"mode {oct(stat.S_IMODE(os.stat(out).st_mode))}, expected 0o600"
            elif check == "still_device":
                if not stat.S_ISCHR(os.stat(out).st_mode):
                    return "fail", f"{out} is no longer a character device"
            elif check == "still_fifo":
                if not stat.S_ISFIFO(os.lstat(out).st_mode):
                    return "fail", "the FIFO was replaced"
            elif check == "still_directory":
                if not os.path.isdir(out):
                    return "fail", "the directory was replaced"
            elif check == "target_untouched":
                secret = os.path.join(self.work, "secret.json")
                with open(secret, encoding="utf-8") as f:
                    if f.read() != "secret\n":
                        return "fail", "the link's target was written"
            elif check == "nothing_created":
                if os.path.exists(os.path.join(self.work, "nowhere")):
                    return "fail", "the dangling link's target directory was created"
                if not os.path.islink(out):
                    return "fail", "the link was replaced"
            elif check == "reads_back":
                p = subprocess.run([self.tools["validate"], "--warn", out], capture_output=True, timeout=TIMEOUT)
                if p.returncode != 0:
                    return "fail", "the written graph does not read back:\n" + (p.stdout + p.stderr).decode()[-2000:]
            else:
                return "fail", f"unknown check {check}"
        return "pass", ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--validate", required=True)
    ap.add_argument("--rules-tool", required=True)
    ap.add_argument("--only", action="append", default=[])
    a = ap.parse_args()
    with open(os.path.join(HERE, "cases.yaml"), encoding="utf-8") as f:
        rows = yaml.safe_load(f)["cases"]
    tools = {"validate": a.validate, "rules": a.rules_tool}
    failed = 0
    for row in rows:
        if a.only and row["name"] not in a.only:
            continue
        with tempfile.TemporaryDirectory(prefix="hostile-") as work:
            start = time.monotonic()
            case = Case(row, tools, work)
            verdict, detail = case.run()
            os.system(f"chmod -R u+rwx {work} 2>/dev/null")
        failed += verdict == "fail"
        peak = f", {case.peak >> 20} MB" if case.peak else ""
        print(f"{verdict:5} {row['name']} ({time.monotonic() - start:.1f} s{peak}){': ' + detail if detail else ''}")
    print(f"{failed} of {len(rows)} hostile-input case(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
