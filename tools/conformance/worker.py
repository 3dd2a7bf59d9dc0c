"""One oracle session: python -m conformance.worker MODEL.onnx SOC_MODEL [default].

Creates an ONNX Runtime session with the QNN EP on the wheel's HTP backend for the given QNN
soc_model, with EP-context generation on (so the backend finalizes the graph) and verbose logs on
stderr, where the parent reads each node's validation verdict. Prints one JSON line on stdout:
{"error": <session creation error or null>, "assigned": {<node name>: <EP name>}}.
ORT's graph optimizations are off (the unit cases are single nodes), unless the third argument is
`default`: then the session keeps ORT's default optimization level, as users run it (the
model-level suite, tools/conformance/models/).
"""
import json
import os
import sys
import tempfile


def main():
    model, soc = sys.argv[1], sys.argv[2]
    default_optimizations = len(sys.argv) > 3 and sys.argv[3] == "default"
    import onnxruntime as ort
    import onnxruntime_qnn as oq

    ort.set_default_logger_severity(0)  # QNN's own log goes through ORT's default logger
    ort.register_execution_provider_library("QNN", oq.get_library_path())
    so = ort.SessionOptions()
    so.log_severity_level = 0
    if not default_optimizations:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.add_session_config_entry("session.record_ep_graph_assignment_info", "1")
    so.add_session_config_entry("ep.context_enable", "1")
    with tempfile.TemporaryDirectory() as tmp:
        so.add_session_config_entry("ep.context_file_path", os.path.join(tmp, "ctx.onnx"))
        devices = [d for d in ort.get_ep_devices() if d.ep_name == "QNN"]
        so.add_provider_for_devices(devices, {"backend_path": oq.get_qnn_htp_path(), "soc_model": soc})
        result = {"error": None, "assigned": {}}
        try:
            session = ort.InferenceSession(model, so)
            for sub in session.get_provider_graph_assignment_info():
                for n in sub.get_nodes():
                    result["assigned"][n.name] = sub.ep_name
        except Exception as e:  # the session's error is data here: the parent classifies it
            result["error"] = str(e)
    sys.stderr.flush()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
