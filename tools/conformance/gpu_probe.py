"""Probes the QNN GPU backend the onnxruntime-qnn wheel ships (x86 libQnnGpu.so): how far does it get?

    .venv/bin/python tools/conformance/gpu_probe.py [--step NAME]

Runs each step in its own process (the backend keeps process-wide state, and a step may crash),
prints one JSON document on stdout and exits 0 whatever the backend said; the outcome is the data.
Steps (docs/conformance-gpu.md explains each):

  versions          the wheel's versions and the backend's interface (QnnInterface_getProviders).
  ort               an ONNX Runtime session with the QNN EP on libQnnGpu.so (one float Add), and
                    whether the EP library has any GPU tuning option to pass.
  capi_default      QnnBackend_create through QNN's C API with no backend config (what ORT does).
  capi_tuning       the same with the GPU backend config "enable tuning mode", no TargetServer
                    listening at the address the backend dials (TARGET_SERVER_SOCKET).
  capi_tuning_peer  the same with a loopback peer that accepts the connection, reads the request
                    and closes without answering (shows the backend needs a live TargetServer).
  capi_validate     QnnBackend_validateOpConfig for one float32 ElementWiseAdd, without a
                    backend handle (none can be created).

The ctypes declarations below are written from the public layout of the QNN C API (QnnInterface.h,
QnnBackend.h, QnnTypes.h, GPU/QnnGpuBackend.h of the QNN SDK, as vendored by public projects);
only the fields this probe touches are named, the rest are opaque.
"""
import argparse
import ctypes as C
import json
import os
import socket
import subprocess
import sys
import threading

STEPS = ["versions", "ort", "capi_default", "capi_tuning", "capi_tuning_peer", "capi_validate"]
TIMEOUT_S = 60

# --- QNN C API, the parts used here ------------------------------------------------------------
# Function table of QnnInterface_t after backendId, providerName and apiVersion, in header order.
_TABLE = ("propertyHasCapability backendCreate backendSetConfig backendGetApiVersion backendGetBuildId "
          "backendRegisterOpPackage backendGetSupportedOperations backendValidateOpConfig backendFree "
          "contextCreate contextSetConfig contextGetBinarySize contextGetBinary contextCreateFromBinary "
          "contextFree graphCreate graphCreateSubgraph graphSetConfig graphAddNode graphFinalize "
          "graphRetrieve graphExecute graphExecuteAsync tensorCreateContextTensor tensorCreateGraphTensor "
          "logCreate logSetLogLevel logFree profileCreate profileSetConfig profileGetEvents "
          "profileGetSubEvents profileGetEventData profileGetExtendedEventData profileFree memRegister "
          "memDeRegister deviceGetPlatformInfo deviceFreePlatformInfo deviceGetInfrastructure deviceCreate "
          "deviceSetConfig deviceGetInfo deviceFree signalCreate signalSetConfig signalTrigger signalFree "
          "errorGetMessage").split()

BACKEND_CONFIG_OPTION_CUSTOM = 0
GPU_CONFIG_ENABLE_TUNING_MODE = 0
LOG_LEVEL_DEBUG = 5
DATATYPE_FLOAT_32 = 0x0232
TENSOR_TYPE_APP_WRITE, TENSOR_TYPE_APP_READ = 0, 1
TENSOR_VERSION_2 = 2
OPCONFIG_VERSION_1 = 1
UNDEFINED = 0x7FFFFFFF
DEFAULT_TARGET_SERVER = "127.0.0.1:22598"  # the address libQnnGpu.so dials unless TARGET_SERVER_SOCKET is set


class Version(C.Structure):
    _fields_ = [("major", C.c_uint32), ("minor", C.c_uint32), ("patch", C.c_uint32)]


class ApiVersion(C.Structure):
    _fields_ = [("core", Version), ("backend", Version)]


class FunctionTable(C.Structure):
    _fields_ = [(name, C.c_void_p) for name in _TABLE]


class Interface(C.Structure):
    _fields_ = [("backendId", C.c_uint32), ("providerName", C.c_char_p), ("apiVersion", ApiVersion),
                ("fn", FunctionTable)]


class BackendConfig(C.Structure):  # option, then a union whose pointer member is the custom config
    _fields_ = [("option", C.c_uint32), ("customConfig", C.c_void_p)]


class GpuBackendCustomConfig(C.Structure):  # option, then a union of a byte flag or a string
    _fields_ = [("option", C.c_uint32), ("value", C.c_void_p)]


class QuantizeParams(C.Structure):  # definition, encoding, then a 32-byte union of encodings
    _fields_ = [("encodingDefinition", C.c_uint32), ("quantizationEncoding", C.c_uint32),
                ("encoding", C.c_uint64 * 4)]


class TensorV2(C.Structure):
    _fields_ = [("id", C.c_uint32), ("name", C.c_char_p), ("type", C.c_uint32), ("dataFormat", C.c_uint32),
                ("dataType", C.c_uint32), ("quantizeParams", QuantizeParams), ("rank", C.c_uint32),
                ("dimensions", C.POINTER(C.c_uint32)), ("memType", C.c_uint32),
                ("data", C.c_void_p), ("dataSize", C.c_uint32),
                ("isDynamicDimensions", C.c_void_p), ("sparseLayout", C.c_uint32),
                ("sparseCoo", C.c_uint32 * 2), ("isProduced", C.c_uint8)]


class Tensor(C.Structure):
    _fields_ = [("version", C.c_uint32), ("v2", TensorV2)]


class OpConfigV1(C.Structure):
    _fields_ = [("name", C.c_char_p), ("packageName", C.c_char_p), ("typeName", C.c_char_p),
                ("numOfParams", C.c_uint32), ("params", C.c_void_p),
                ("numOfInputs", C.c_uint32), ("inputTensors", C.POINTER(Tensor)),
                ("numOfOutputs", C.c_uint32), ("outputTensors", C.POINTER(Tensor))]


class OpConfig(C.Structure):
    _fields_ = [("version", C.c_uint32), ("v1", OpConfigV1)]


LogCallback = C.CFUNCTYPE(None, C.c_char_p, C.c_int, C.c_uint64, C.c_void_p)  # fmt, level, time, va_list


def _paths():
    import onnxruntime_qnn as oq
    return oq


class Backend:
    """The GPU library's interface, with the backend's log collected as (level, message)."""

    def __init__(self):
        self.lib = C.CDLL(_paths().get_qnn_gpu_path())
        providers, count = C.POINTER(C.POINTER(Interface))(), C.c_uint32()
        rc = self.lib.QnnInterface_getProviders(C.byref(providers), C.byref(count))
        if rc != 0 or count.value < 1:
            raise RuntimeError(f"QnnInterface_getProviders returned {rc}, {count.value} providers")
        self.iface = providers[0].contents
        self.log = []
        libc = C.CDLL(None)
        libc.vsnprintf.argtypes = [C.c_char_p, C.c_size_t, C.c_char_p, C.c_void_p]

        def on_log(fmt, level, _timestamp, args):
            buf = C.create_string_buffer(4096)
            libc.vsnprintf(buf, len(buf), fmt, args)
            self.log.append({"level": level, "message": buf.value.decode(errors="replace").strip()})

        self._callback = LogCallback(on_log)  # kept alive as long as the backend may call it
        log_create = C.CFUNCTYPE(C.c_uint64, LogCallback, C.c_int, C.POINTER(C.c_void_p))(self.iface.fn.logCreate)
        self.log_handle = C.c_void_p()
        rc = log_create(self._callback, LOG_LEVEL_DEBUG, C.byref(self.log_handle))
        if rc != 0:
            raise RuntimeError(f"QnnLog_create returned {rc:#x}")

    def error_message(self, code):
        fn = C.CFUNCTYPE(C.c_uint64, C.c_uint64, C.POINTER(C.c_char_p))(self.iface.fn.errorGetMessage)
        text = C.c_char_p()
        return text.value.decode() if fn(code, C.byref(text)) == 0 and text.value else None

    def status(self, code):
        return {"code": f"{code:#x}", "message": self.error_message(code) if code else "QNN_SUCCESS"}

    def create(self, tuning):
        custom = [GpuBackendCustomConfig(GPU_CONFIG_ENABLE_TUNING_MODE, 1)] if tuning else []
        configs = [BackendConfig(BACKEND_CONFIG_OPTION_CUSTOM, C.addressof(c)) for c in custom]
        array = (C.POINTER(BackendConfig) * (len(configs) + 1))(*[C.pointer(c) for c in configs], None)
        fn = C.CFUNCTYPE(C.c_uint64, C.c_void_p, C.c_void_p, C.POINTER(C.c_void_p))(self.iface.fn.backendCreate)
        handle = C.c_void_p()
        code = fn(self.log_handle, C.cast(array, C.c_void_p), C.byref(handle))
        return code, handle

    def validate(self, handle, op):
        fn = C.CFUNCTYPE(C.c_uint64, C.c_void_p, OpConfig)(self.iface.fn.backendValidateOpConfig)
        return fn(handle, op)


# --- steps ----------------------------------------------------------------------------------
def step_versions():
    import onnxruntime
    oq = _paths()
    from onnxruntime_qnn import build_and_package_info as info
    be = Backend()
    a = be.iface.apiVersion
    build_id = C.c_char_p()
    C.CFUNCTYPE(C.c_uint64, C.POINTER(C.c_char_p))(be.iface.fn.backendGetBuildId)(C.byref(build_id))
    return {"onnxruntime": onnxruntime.__version__, "onnxruntime_qnn": oq.__version__,
            "qnn_sdk": getattr(info, "qnn_version", None),
            "library": os.path.basename(oq.get_qnn_gpu_path()),
            "provider": be.iface.providerName.decode(), "backend_id": be.iface.backendId,
            "core_api": f"{a.core.major}.{a.core.minor}.{a.core.patch}",
            "gpu_api": f"{a.backend.major}.{a.backend.minor}.{a.backend.patch}",
            "build_id": build_id.value.decode() if build_id.value else None}


def _add_model(path):
    import onnx
    from onnx import TensorProto, helper
    io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 4]) for n in ("a", "b", "c")]
    graph = helper.make_graph([helper.make_node("Add", ["a", "b"], ["c"], name="add0")], "g", io[:2], io[2:])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)


def _ort_session():
    """Child process: the session's error on stdout (JSON); ORT's log, QNN's included, on stderr."""
    import tempfile
    import onnxruntime as ort
    oq = _paths()
    ort.set_default_logger_severity(0)
    ort.register_execution_provider_library("QNN", oq.get_library_path())
    so = ort.SessionOptions()
    so.log_severity_level = 0
    so.add_session_config_entry("session.record_ep_graph_assignment_info", "1")
    devices = [d for d in ort.get_ep_devices() if d.ep_name == "QNN"]
    so.add_provider_for_devices(devices, {"backend_path": oq.get_qnn_gpu_path()})
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "add.onnx")
        _add_model(path)
        try:
            session = ort.InferenceSession(path, so)
            placement = {n.name: sub.ep_name for sub in session.get_provider_graph_assignment_info()
                         for n in sub.get_nodes()}
            print(json.dumps({"session_error": None, "providers": session.get_providers(), "placement": placement}))
        except Exception as e:  # the error is the data
            print(json.dumps({"session_error": str(e)}))


def _tuning_strings():
    """Option names in the EP library that could carry a GPU tuning setting (none expected)."""
    with open(_paths().get_library_path(), "rb") as f:
        blob = f.read().lower()
    return sorted({w for w in (b"tuning", b"performance_cache", b"perf_cache", b"backend_config")
                   if w in blob})


def step_ort():
    env = dict(os.environ)
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", "ort_session"],
                       capture_output=True, text=True, env=env, timeout=TIMEOUT_S)
    out = p.stdout.strip().splitlines()
    result = json.loads(out[-1]) if out else {"session_error": f"child exited {p.returncode}"}
    keys = ("GPU ERROR", "SetupBackend failed", "createBackend done", "QNN GPU API Version", "GetCapability() for QNN")
    qnn_log = []
    for line in p.stderr.splitlines():
        for k in keys:
            if k in line:
                qnn_log.append(line.split("] ", 1)[-1].replace("\x1b[m", "").strip())
                break
    result["qnn_log"] = qnn_log
    result["ep_library_tuning_options"] = _tuning_strings()
    return result


def _create(tuning):
    be = Backend()
    code, handle = be.create(tuning)
    return {"backendCreate": be.status(code), "handle": bool(handle.value), "log": be.log}


def step_capi_default():
    return _create(tuning=False)


def step_capi_tuning():
    r = _create(tuning=True)
    r["target_server"] = os.environ.get("TARGET_SERVER_SOCKET", DEFAULT_TARGET_SERVER)
    return r


def step_capi_validate():
    be = Backend()
    dims = (C.c_uint32 * 2)(1, 4)

    def tensor(name, ttype):
        return Tensor(TENSOR_VERSION_2, TensorV2(
            id=0, name=name, type=ttype, dataFormat=0, dataType=DATATYPE_FLOAT_32,
            quantizeParams=QuantizeParams(UNDEFINED, UNDEFINED), rank=2, dimensions=dims,
            memType=0, sparseLayout=UNDEFINED))

    inputs = (Tensor * 2)(tensor(b"a", TENSOR_TYPE_APP_WRITE), tensor(b"b", TENSOR_TYPE_APP_WRITE))
    outputs = (Tensor * 1)(tensor(b"c", TENSOR_TYPE_APP_READ))
    op = OpConfig(OPCONFIG_VERSION_1, OpConfigV1(b"add0", b"qti.aisw", b"ElementWiseAdd", 0, None,
                                                 2, inputs, 1, outputs))
    code = be.validate(None, op)
    return {"op": "ElementWiseAdd float32 [1,4] + [1,4]", "backend_handle": None,
            "backendValidateOpConfig": be.status(code), "log": be.log}


def _run_child(step, env=None):
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--step", step], capture_output=True,
                           text=True, env=env, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {TIMEOUT_S} s"}
    out = p.stdout.strip().splitlines()
    if p.returncode != 0 or not out:
        return {"error": f"exited {p.returncode}", "stderr": p.stderr.strip().splitlines()[-5:]}
    return json.loads(out[-1])


def _free_loopback_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_tuning_with_peer():
    """capi_tuning against a loopback peer that reads the backend's first request and hangs up."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(TIMEOUT_S)
    port = server.getsockname()[1]
    seen = {}

    def serve():
        try:
            conn, _ = server.accept()
            with conn:
                conn.settimeout(5)
                seen["request_bytes"] = len(conn.recv(65536))
        except OSError as e:
            seen["peer_error"] = str(e)

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    env = dict(os.environ, TARGET_SERVER_SOCKET=f"127.0.0.1:{port}")
    r = _run_child("capi_tuning", env)
    t.join(timeout=10)
    server.close()
    r["peer"] = seen
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--step", choices=STEPS)
    ap.add_argument("--child", choices=["ort_session"], help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        _ort_session()
        return 0
    if a.step:
        print(json.dumps(globals()["step_" + a.step]() if a.step != "capi_tuning_peer" else run_tuning_with_peer()))
        return 0
    result = {}
    for step in STEPS:
        if step == "capi_tuning_peer":
            result[step] = run_tuning_with_peer()
        elif step == "capi_tuning":
            # The default address with nothing listening: a closed loopback port stands in for it
            # when something on this machine does listen on the default port.
            env = dict(os.environ)
            host, port = DEFAULT_TARGET_SERVER.split(":")
            with socket.socket() as s:
                s.settimeout(1)
                if s.connect_ex((host, int(port))) == 0:
                    env["TARGET_SERVER_SOCKET"] = f"127.0.0.1:{_free_loopback_port()}"
            result[step] = _run_child(step, env)
        else:
            result[step] = _run_child(step)
    tuning = result["capi_tuning"].get("log", [])
    result["outcome"] = {
        "ort_backend_setup": next((m for m in result["ort"].get("qnn_log", []) if "GPU ERROR" in m), None),
        "ort_placement": result["ort"].get("placement"),
        "tuning_mode_backend_setup": next((e["message"] for e in tuning if e["level"] == 1), None),
        "op_validation_reached": result["capi_validate"].get("backendValidateOpConfig", {}).get("code") == "0x0",
    }
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
