"""The environment ExecuTorch's Qualcomm AOT lowering needs on x86, made from the project's venv.

ExecuTorch (the executorch wheel) loads the QNN HTP backend from $QNN_SDK_ROOT/lib/x86_64-linux-clang
and by name through LD_LIBRARY_PATH. The libraries are the x86 ones the onnxruntime-qnn wheel ships
(QAIRT 2.51); a QNN SDK is not needed. Between ExecuTorch and the real libQnnHtp.so sits the
interposer of shim/ (qnn_htp_shim.c explains why: ExecuTorch's wheel was built against older QNN
headers and lays the HTP device custom config out differently), built here with CMake on first use.

    env = lower_env.prepare(build_dir)   # os.environ + QNN_SDK_ROOT, LD_LIBRARY_PATH, QNNRULES_QNN_HTP_REAL
"""

import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
SHIM_SRC = os.path.join(HERE, "shim")
DEFAULT_BUILD = os.path.join(ROOT, "build-et-lowering")


def _cmake():
    return "/usr/bin/cmake" if os.path.exists("/usr/bin/cmake") else "cmake"


def ort_qnn_dirs():
    """(onnxruntime_qnn package dir, its .libs dir) of the running interpreter's site-packages."""
    import importlib.util
    spec = importlib.util.find_spec("onnxruntime_qnn")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("onnxruntime-qnn is not installed in this interpreter (scripts/setup.sh installs it)")
    pkg = list(spec.submodule_search_locations)[0]
    return pkg, pkg + ".libs"


def build_shim(build_dir):
    """Builds shim/ into BUILD/shim (once; CMake rebuilds when the source changed) -> libQnnHtp.so path."""
    out = os.path.join(build_dir, "shim")
    lib = os.path.join(out, "libQnnHtp.so")
    if not os.path.exists(os.path.join(out, "CMakeCache.txt")):
        subprocess.run([_cmake(), "-S", SHIM_SRC, "-B", out, "-DCMAKE_BUILD_TYPE=Release"], check=True,
                       stdout=subprocess.DEVNULL)
    subprocess.run([_cmake(), "--build", out], check=True, stdout=subprocess.DEVNULL)
    return lib


def prepare(build_dir=DEFAULT_BUILD):
    """The environment for a lowering process: a QNN "SDK" folder whose lib/x86_64-linux-clang holds
    the shim as libQnnHtp.so and links to the wheel's other QNN libraries."""
    pkg, libs = ort_qnn_dirs()
    build_dir = os.path.abspath(build_dir)  # the links must not be relative to where they sit
    shim = build_shim(build_dir)
    sdk_lib = os.path.join(build_dir, "qnn-sdk", "lib", "x86_64-linux-clang")
    os.makedirs(sdk_lib, exist_ok=True)
    for real in glob.glob(os.path.join(pkg, "lib*.so")):
        name = os.path.basename(real)
        target = shim if name == "libQnnHtp.so" else real
        link = os.path.join(sdk_lib, name)
        if os.path.islink(link) and os.readlink(link) == target:
            continue
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(target, link)
    env = dict(os.environ)
    env["QNN_SDK_ROOT"] = os.path.dirname(os.path.dirname(sdk_lib))
    env["LD_LIBRARY_PATH"] = os.pathsep.join([sdk_lib, pkg, libs] + [p for p in [env.get("LD_LIBRARY_PATH")] if p])
    env["QNNRULES_QNN_HTP_REAL"] = os.path.join(pkg, "libQnnHtp.so")
    env.pop("EXECUTORCH_BUILDING_WHEEL", None)  # QNN_SDK_ROOT set: ExecuTorch downloads nothing
    return env


if __name__ == "__main__":
    e = prepare(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_BUILD)
    for k in ("QNN_SDK_ROOT", "LD_LIBRARY_PATH", "QNNRULES_QNN_HTP_REAL"):
        print(f"export {k}={e[k]}")
