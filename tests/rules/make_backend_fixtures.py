#!/usr/bin/env python3
"""Writes the LPAI and GPU rule fixtures of tests/rules/lpai/ and tests/rules/gpu/ (same format
and checker as make_fixtures.py's HTP fixtures: tests/unit/RuleFixtureTest.cpp).

Each case is backed by ExecuTorch's own per-backend op tests, as shipped in executorch 1.5.1
(backends/qualcomm/tests/rework/{lpai/op/v6,gpu/op}/test.py; [ET-LPAI-TESTS] in
rules/lpai/backend.yaml, [ET-GPU] in rules/gpu/ops/executorch_tested.yaml): a case that test
file expects to run must pass, one it expects not to be delegated must fail.

Run: python3 tests/rules/make_backend_fixtures.py. The JSON files are committed; edit here.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from make_fixtures import E, Fixture, T, bias32, u8, w8_pc  # noqa: E402

LPAI_SOC = "SM8850"  # LPAI V6, the SoC ExecuTorch's LPAI tests compile for
GPU_SOC = "SM8650"   # GPU is not modelled per SoC; any known SoC


def lpai():
    fx = Fixture("executorch", "LPAI cases from ExecuTorch's LPAI op tests (rules/lpai/).", socs=(LPAI_SOC,))
    # make_quantizer's default 8a8w: asymmetric uint8 activations (zero point not 128).
    a = u8(0.02, 3)
    fx.input("x", T, a)
    fx.input("y", T, u8(0.03, 250))
    fx.param("w", [8, 8, 3, 3], w8_pc(8))
    fx.param("b", [8], bias32())
    fx.param("w_asym", [8, 8, 3, 3], {"dtype": "int8", "quant_min": -127, "quant_max": 127,
                                      "qscheme": "per_tensor_affine", "scale": 0.01, "zero_point": 5})
    S = [1, 16, 64]
    fx.input("t", S, u8(0.03, 7))
    fx.param("ln_w", [64], u8(0.004, 0))
    fx.param("ln_b", [64], bias32())
    fx.case("add_asym", "aten.add.Tensor", [fx.ref("x"), fx.ref("y")], [("float32", T, u8(0.05, 9))],
            note="test_add (8a, Tolerance): asymmetric 8-bit activations run on LPAI.")
    fx.case("conv_asym_act", "aten.conv2d.default", [fx.ref("x"), fx.ref("w"), fx.ref("b"), [1, 1], [1, 1]],
            [("float32", T, u8(0.04, 17))], note="test_conv2d 8a8w_pcq: asymmetric activations, symmetric weights.")
    fx.case("conv_asym_weight", "aten.conv2d.default", [fx.ref("x"), fx.ref("w_asym"), fx.ref("b"), [1, 1], [1, 1]],
            [("float32", T, u8(0.04, 17))],
            note="Asymmetric 8-bit weights are inherited from HTP, where the conformance oracle accepts them "
                 "(docs/conformance.md); ExecuTorch's LPAI tests use symmetric weights only, so on LPAI this is "
                 "unmeasured.")
    fx.case("hardsigmoid", "aten.hardsigmoid.default", [fx.ref("x")], [("float32", T, u8(0.004, 0))],
            note="test_hardsigmoid (Tolerance): decomposed before annotation, no fixed output encoding.")
    fx.case("hardsigmoid_inplace", "aten.hardsigmoid_.default", [fx.ref("x")], [("float32", T, u8(0.004, 0))],
            expect=[E("unsupported-op", "lpai.hardsigmoid.excluded",
                      "not supported by QNN LPAI: the LPAI annotation pipeline "
                      "decomposes only aten.hardsigmoid.default (DecomposeHardsigmoid), and lpai_rules.py has no "
                      "HardSigmoid rule, so the in-place form stays float [ET].")])
    fx.case("native_layer_norm", "aten.native_layer_norm.default",
            [fx.ref("t"), [64], fx.ref("ln_w"), fx.ref("ln_b"), 1e-5],
            [("float32", S, u8(0.03, 11)), ("float32", [1, 16, 1], None), ("float32", [1, 16, 1], None)],
            note="test_layer_norm (Tolerance): layer_norm is lowered as native_layer_norm to QNN LayerNorm.")
    fx.case("eq_scalar", "aten.eq.Scalar", [fx.ref("x"), 2.0], [("bool", T, None)],
            expect=[E("unsupported-op", "lpai.eq",
                      "not supported by QNN LPAI: LPAI has no comparison or select kernels; "
                      "lpai_rules.py registers no Equal/Greater/Less/Where [ET], and ExecuTorch's LPAI op tests "
                      "expect test_equal, test_not_equal, test_greater, test_less_than, ... not to be fully "
                      "delegated [ET-LPAI-TESTS]. The Scalar forms are lifted to the Tensor forms before "
                      "annotation (LiftConstantScalarOperands), so they go with them.")],
            note="test_equal expects EXPECT_NOT_FULLY_DELEGATED.")
    return fx


def gpu():
    fx = Fixture("executorch", "GPU cases from ExecuTorch's GPU op tests (rules/gpu/).", socs=(GPU_SOC,))
    fx.input("x", T)
    fx.input("y", T)
    fx.input("c", T, dtype="bool")
    fx.input("q", T, u8(0.02, 3))
    fx.input("v", [1, 8, 4, 16, 16])
    fx.param("w3", [8, 8, 3, 3, 3])
    fx.case("add_constant_first", "aten.add.Tensor", [2, fx.ref("x")], [("float32", T, None)],
            note="test_add subtest (constant, tensor): torch.export writes add.Tensor(2, x).")
    fx.case("mul_scalar", "aten.mul.Tensor", [fx.ref("x"), 3.0], [("float32", T, None)])
    fx.case("div_scalar", "aten.div.Scalar", [fx.ref("x"), 4.0], [("float32", T, None)])
    fx.case("pow_tensor_scalar", "aten.pow.Tensor_Scalar", [fx.ref("x"), 2], [("float32", T, None)],
            note="test_pow_tensor_scalar (Tolerance).")
    fx.case("eq_scalar", "aten.eq.Scalar", [fx.ref("x"), 2.0], [("bool", T, None)], note="test_equal.")
    fx.case("lt", "aten.lt.Tensor", [fx.ref("x"), fx.ref("y")], [("bool", T, None)], note="test_less_than.")
    fx.case("where", "aten.where.self", [fx.ref("c"), fx.ref("x"), fx.ref("y")], [("float32", T, None)])
    fx.case("hardsigmoid", "aten.hardsigmoid.default", [fx.ref("x")], [("float32", T, None)])
    fx.case("leaky_relu", "aten.leaky_relu.default", [fx.ref("x"), 0.1], [("float32", T, None)])
    fx.case("repeat", "aten.repeat.default", [fx.ref("x"), [1, 2, 1, 1]], [("float32", [1, 16, 16, 16], None)])
    fx.case("cumsum", "aten.cumsum.default", [fx.ref("x"), 1], [("float32", T, None)])
    fx.input("q4", [1, 4, 16, 8])
    fx.input("k4", [1, 4, 16, 8])
    fx.input("v4", [1, 4, 16, 8])
    fx.case("sdpa", "aten.scaled_dot_product_attention.default", [fx.ref("q4"), fx.ref("k4"), fx.ref("v4")],
            [("float32", [1, 4, 16, 8], None)], note="test_sdpa (Tolerance).")
    fx.case("masked_fill_scalar", "aten.masked_fill.Scalar", [fx.ref("x"), fx.ref("c"), -100.0],
            [("float32", T, None)], note="test_masked_fill (Tolerance).")
    fx.case("full", "aten.full.default", [[1, 8], 0.5], [("float32", [1, 8], None)], note="test_full (Tolerance).")
    fx.case("lt_quantized", "aten.lt.Tensor", [fx.ref("q"), fx.ref("q")], [("bool", T, None)],
            expect=[E("no-matching-variant", "gpu.less", port="in[0] input",
                      message="GPU takes no quantized types: QNN GPU runs float32 and float16 ops only, so this "
                              "port must stay unannotated (float)."),
                    E("no-matching-variant", "gpu.less", port="in[1] other",
                      message="GPU takes no quantized types: QNN GPU runs float32 and float16 ops only, so this "
                              "port must stay unannotated (float).")])
    fx.case("conv3d", "aten.conv3d.default", [fx.ref("v"), fx.ref("w3")], [("float32", [1, 8, 2, 14, 14], None)],
            expect=[E("no-rule", "", "no rule covers aten.conv3d.default, so the node would fall back to CPU.")],
            note="test_conv3d expects EXPECT_NOT_FULLY_DELEGATED: 3-D convolution is not supported on GPU.")
    return fx


def gpu_crosscheck():
    """GPU cases from the cross-check against ONNX Runtime's QNN EP GPU checks and ExecuTorch's GPU
    op tests (docs/conformance-gpu.md; each rule cites its source)."""
    fx = Fixture("crosscheck", "GPU cases from the cross-check of rules/gpu/ against ONNX Runtime's QNN EP "
                 "GPU checks and ExecuTorch's GPU op tests (docs/conformance-gpu.md).", socs=(GPU_SOC,))
    fx.input("a", [2, 8, 16])
    fx.input("b", [2, 16, 4])
    fx.input("a16", [2, 8, 16], dtype="float16")
    fx.input("b16", [2, 16, 4], dtype="float16")
    fx.input("aq", [2, 8, 16], u8(0.02, 3))
    fx.input("boxes", [32, 4])
    fx.input("scores", [32])
    fx.case("einsum_bmm", "aten.einsum.default", ["bij,bjk->bik", [fx.ref("a"), fx.ref("b")]],
            [("float32", [2, 8, 4], None)],
            note="test_einsum (Tolerance): decomposed into permutes, views and a bmm before lowering.")
    fx.case("einsum_fp16", "aten.einsum.default", ["bij,bjk->bik", [fx.ref("a16"), fx.ref("b16")]],
            [("float16", [2, 8, 4], None)], note="test_einsum runs every float dtype (enumerate_fp_dtype).")
    fx.case("einsum_mixed", "aten.einsum.default", ["bij,bjk->bik", [fx.ref("a"), fx.ref("b16")]],
            [("float32", [2, 8, 4], None)],
            expect=[E("no-matching-variant", "gpu.einsum",
                      "no variant of gpu.einsum (MatMul) accepts these port datatypes.")],
            note="One operand float32, the other float16: no variant mixes them.")
    fx.case("einsum_quantized", "aten.einsum.default", ["bij,bjk->bik", [fx.ref("aq"), fx.ref("b")]],
            [("float32", [2, 8, 4], None)],
            expect=[E("no-matching-variant", "gpu.einsum", port="in[1][0] operands",
                      message="GPU takes no quantized types: QNN GPU runs float32 and float16 ops only, so this "
                              "port must stay unannotated (float).")])
    fx.case("nms", "torchvision.nms.default", [fx.ref("boxes"), fx.ref("scores"), 0.5], [("int64", [32], None)],
            expect=[E("unsupported-op", "gpu.nms",
                      "not supported by QNN GPU: ONNX Runtime's QNN EP refuses NonMaxSuppression on the GPU backend "
                      "(non_max_suppression_op_builder.cc), and ExecuTorch has no QNN builder for it")],
            note="ONNX Runtime's QNN EP: \"NonMaxSuppression is not supported on QNN GPU backend.\"")
    return fx


def write(fx, backend):
    out_dir = os.path.join(HERE, backend)
    os.makedirs(out_dir, exist_ok=True)
    for path in fx.write(out_dir):
        with open(path) as f:
            doc = json.load(f)
        doc["meta"]["backend"] = backend
        doc["meta"]["generator"] = "tests/rules/make_backend_fixtures.py"
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        print("wrote", os.path.relpath(path))


if __name__ == "__main__":
    write(lpai(), "lpai")
    write(gpu(), "gpu")
    write(gpu_crosscheck(), "gpu")
