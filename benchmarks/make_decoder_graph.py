#!/usr/bin/env python3
"""Writes a decoder-shaped graph (graph format v1) at the ATen level of a make_fx export.

Each layer is what a Qwen3-style decoder layer decomposes into: RMSNorm as pow/mean/add/rsqrt/
mul, q/k/v/o projections, per-head q/k norms, rotary embedding (slice/neg/cat), attention as
matmul/mul/add/_softmax/matmul, and a gated MLP (silu * up, down). About 100 nodes per layer.

    benchmarks/make_decoder_graph.py --layers 28 --quant per-channel -o build/bench/decoder.json

--quant: float (no annotation), annotated (8a8w specs, no scales), per-tensor, per-channel or
block-wise (calibrated: scales and zero points written), or 16a16w (16-bit activations and
weights: every matmul is gated on HTP V69, e.g. --soc SM8450).
"""
import argparse
import json

HIDDEN, HEADS, KV_HEADS, HEAD_DIM, FFN, SEQ = 2048, 16, 8, 128, 6144, 1


class Quant:
    """The annotation of activation and weight ports for one --quant mode."""

    def __init__(self, mode):
        self.mode = mode
        self.calibrated = mode in ("per-tensor", "per-channel", "block-wise", "16a16w")

    def act(self, scale=0.0123):
        if self.mode == "float":
            return None
        if self.mode in ("16a16w", "block-wise"):
            # LPBQ weights go with 16-bit activations.
            q = {"dtype": "int32", "quant_min": 0, "quant_max": 65535, "qscheme": "per_tensor_affine"}
            zp = 32768
        else:
            q = {"dtype": "uint8", "quant_min": 0, "quant_max": 255, "qscheme": "per_tensor_affine"}
            zp = 128
        if self.calibrated:
            q.update(scale=scale, zero_point=zp)
        return q

    def weight(self, out_ch):
        if self.mode == "float":
            return None
        if self.mode == "16a16w":
            q = {"dtype": "int16", "quant_min": -32767, "quant_max": 32767, "qscheme": "per_tensor_symmetric"}
            if self.calibrated:
                q.update(scale=0.0003, zero_point=0)
            return q
        if self.mode in ("annotated", "per-tensor"):
            q = {"dtype": "int8", "quant_min": -127, "quant_max": 127, "qscheme": "per_tensor_symmetric"}
            if self.calibrated:
                q.update(scale=0.002, zero_point=0)
            return q
        q = {"dtype": "int8", "quant_min": -127, "quant_max": 127, "qscheme": "per_channel_symmetric", "ch_axis": 0}
        if self.mode == "block-wise":
            q.update(quant_min=-7, quant_max=7, block_size=[1, 64])
        q.update(scale=[0.001 * (1 + i % 7) for i in range(out_ch)], zero_point=[0] * out_ch)
        return q


class Builder:
    def __init__(self, quant, small):
        self.q = quant
        self.nodes = []
        self.small = small  # per-channel lists of `small` entries instead of the real width

    def _port(self, dtype, shape, qspec):
        p = {"dtype": dtype, "shape": shape}
        if qspec is not None:
            p["qspec"] = qspec
        return p

    def add(self, name, kind, shape, target=None, args=(), qspec="act", module=None, dtype="float32"):
        n = {"name": name, "kind": kind}
        if target:
            n["target"] = target
        if args:
            n["args"] = list(args)
        if module:
            n["module"] = module
        if kind != "output":
            spec = self.q.act() if qspec == "act" else qspec
            n["outputs"] = [self._port(dtype, shape, spec)]
        self.nodes.append(n)
        return name

    def sym16(self):
        """The second input of a 16-bit matmul, which must be symmetric."""
        q = self.q.act()
        if q is None or q["quant_max"] != 65535:
            return q
        return {"dtype": "int16", "quant_min": -32767, "quant_max": 32767, "qscheme": "per_tensor_symmetric",
                "scale": 0.0003, "zero_point": 0}

    def matmul(self, name, shape, a, b, module):
        other = {"ref": b}
        if self.sym16() is not None:
            other["qspec"] = self.sym16()
        return self.add(name, "call", shape, "aten.matmul.default", [self.ref(a), other], module=module)

    def ref(self, name):
        r = {"ref": name}
        a = self.q.act()
        if a is not None:
            r["qspec"] = a
        return r

    def param(self, name, shape):
        return self.add(name, "parameter", shape, qspec=self.q.weight(min(shape[0], self.small)))

    def call(self, name, target, shape, *args, module=None):
        return self.add(name, "call", shape, target, [self.ref(a) if isinstance(a, str) else a for a in args],
                        module=module)

    def reshape(self, name, target, shape, x, *rest, module=None):
        """A data-movement op: its output shares the encoding of its input, as exporters write it."""
        spec = None if self.q.act() is None else {"shared_with": {"edge": [x, name]}}
        args = [self.ref(x)] + list(rest)
        return self.add(name, "call", shape, target, args, qspec=spec, module=module)

    def linear(self, p, x, out, inp, module):
        w = self.param(f"{p}_weight", [out, inp])
        wref = {"ref": w}
        if self.q.weight(1) is not None:
            wref["qspec"] = self.q.weight(min(out, self.small))
        return self.add(p, "call", [1, SEQ, out], "aten.linear.default", [self.ref(x), wref], module=module)

    def rms_norm(self, p, x, width, module):
        w = self.param(f"{p}_weight", [width])
        sq = self.call(f"{p}_pow", "aten.pow.Tensor_Scalar", [1, SEQ, width], x, 2, module=module)
        mean = self.call(f"{p}_mean", "aten.mean.dim", [1, SEQ, 1], sq, [-1], True, module=module)
        eps = self.call(f"{p}_eps", "aten.add.Scalar", [1, SEQ, 1], mean, 1e-6, module=module)
        inv = self.call(f"{p}_rsqrt", "aten.rsqrt.default", [1, SEQ, 1], eps, module=module)
        xn = self.call(f"{p}_scale", "aten.mul.Tensor", [1, SEQ, width], x, inv, module=module)
        return self.call(p, "aten.mul.Tensor", [1, SEQ, width], w, xn, module=module)

    def rope(self, p, x, heads, cos, sin, module):
        shape = [1, heads, SEQ, HEAD_DIM]
        half = [1, heads, SEQ, HEAD_DIM // 2]
        xc = self.call(f"{p}_cos", "aten.mul.Tensor", shape, x, cos, module=module)
        x1 = self.reshape(f"{p}_x1", "aten.slice.Tensor", half, x, 3, 0, HEAD_DIM // 2, module=module)
        x2 = self.reshape(f"{p}_x2", "aten.slice.Tensor", half, x, 3, HEAD_DIM // 2, HEAD_DIM, module=module)
        nx2 = self.call(f"{p}_neg", "aten.neg.default", half, x2, module=module)
        rot = self.call(f"{p}_rot", "aten.cat.default", shape, [self.ref(nx2), self.ref(x1)], -1, module=module)
        xs = self.call(f"{p}_sin", "aten.mul.Tensor", shape, rot, sin, module=module)
        return self.call(p, "aten.add.Tensor", shape, xc, xs, module=module)

    def heads(self, p, x, heads, module):
        v = self.reshape(f"{p}_view", "aten.view.default", [1, SEQ, heads, HEAD_DIM], x, [1, SEQ, heads, HEAD_DIM],
                      module=module)
        return self.reshape(f"{p}_t", "aten.transpose.int", [1, heads, SEQ, HEAD_DIM], v, 1, 2, module=module)

    def layer(self, i, x, cos, sin, mask):
        m = f"model.layers.{i}"
        p = f"l{i}"
        h = self.rms_norm(f"{p}_in_norm", x, HIDDEN, f"{m}.input_layernorm")
        q = self.linear(f"{p}_q_proj", h, HEADS * HEAD_DIM, HIDDEN, f"{m}.self_attn.q_proj")
        k = self.linear(f"{p}_k_proj", h, KV_HEADS * HEAD_DIM, HIDDEN, f"{m}.self_attn.k_proj")
        v = self.linear(f"{p}_v_proj", h, KV_HEADS * HEAD_DIM, HIDDEN, f"{m}.self_attn.v_proj")
        q = self.heads(f"{p}_q", q, HEADS, f"{m}.self_attn")
        k = self.heads(f"{p}_k", k, KV_HEADS, f"{m}.self_attn")
        v = self.heads(f"{p}_v", v, KV_HEADS, f"{m}.self_attn")
        q = self.rms_norm(f"{p}_q_norm", q, HEAD_DIM, f"{m}.self_attn.q_norm")
        k = self.rms_norm(f"{p}_k_norm", k, HEAD_DIM, f"{m}.self_attn.k_norm")
        q = self.rope(f"{p}_q_rope", q, HEADS, cos, sin, f"{m}.self_attn")
        k = self.rope(f"{p}_k_rope", k, KV_HEADS, cos, sin, f"{m}.self_attn")
        rep = HEADS // KV_HEADS
        k = self.reshape(f"{p}_k_rep", "aten.repeat_interleave.self_int", [1, HEADS, SEQ, HEAD_DIM], k, rep, 1,
                      module=f"{m}.self_attn")
        v = self.reshape(f"{p}_v_rep", "aten.repeat_interleave.self_int", [1, HEADS, SEQ, HEAD_DIM], v, rep, 1,
                      module=f"{m}.self_attn")
        kt = self.reshape(f"{p}_kt", "aten.transpose.int", [1, HEADS, HEAD_DIM, SEQ], k, 2, 3, module=f"{m}.self_attn")
        s = self.matmul(f"{p}_scores", [1, HEADS, SEQ, SEQ], q, kt, f"{m}.self_attn")
        s = self.call(f"{p}_scaled", "aten.mul.Scalar", [1, HEADS, SEQ, SEQ], s, HEAD_DIM ** -0.5,
                      module=f"{m}.self_attn")
        s = self.call(f"{p}_masked", "aten.add.Tensor", [1, HEADS, SEQ, SEQ], s, mask, module=f"{m}.self_attn")
        a = self.call(f"{p}_probs", "aten._softmax.default", [1, HEADS, SEQ, SEQ], s, -1, False,
                      module=f"{m}.self_attn")
        o = self.matmul(f"{p}_ctx", [1, HEADS, SEQ, HEAD_DIM], a, v, f"{m}.self_attn")
        o = self.reshape(f"{p}_ctx_t", "aten.transpose.int", [1, SEQ, HEADS, HEAD_DIM], o, 1, 2,
                      module=f"{m}.self_attn")
        o = self.reshape(f"{p}_ctx_flat", "aten.reshape.default", [1, SEQ, HEADS * HEAD_DIM], o,
                      [1, SEQ, HEADS * HEAD_DIM], module=f"{m}.self_attn")
        o = self.linear(f"{p}_o_proj", o, HIDDEN, HEADS * HEAD_DIM, f"{m}.self_attn.o_proj")
        x = self.call(f"{p}_attn_res", "aten.add.Tensor", [1, SEQ, HIDDEN], x, o, module=m)
        h = self.rms_norm(f"{p}_post_norm", x, HIDDEN, f"{m}.post_attention_layernorm")
        g = self.linear(f"{p}_gate_proj", h, FFN, HIDDEN, f"{m}.mlp.gate_proj")
        u = self.linear(f"{p}_up_proj", h, FFN, HIDDEN, f"{m}.mlp.up_proj")
        g = self.call(f"{p}_silu", "aten.silu.default", [1, SEQ, FFN], g, module=f"{m}.mlp")
        g = self.call(f"{p}_gated", "aten.mul.Tensor", [1, SEQ, FFN], g, u, module=f"{m}.mlp")
        d = self.linear(f"{p}_down_proj", g, HIDDEN, FFN, f"{m}.mlp.down_proj")
        return self.call(f"{p}_mlp_res", "aten.add.Tensor", [1, SEQ, HIDDEN], x, d, module=m)


def build(layers, quant, small=16):
    b = Builder(Quant(quant), small)
    ids = b.add("input_ids", "input", [1, SEQ], dtype="int64", qspec=None)
    emb_w = b.add("embed_weight", "parameter", [151936, HIDDEN])
    x = b.add("embed", "call", [1, SEQ, HIDDEN], "aten.embedding.default", [b.ref(emb_w), {"ref": ids}],
              qspec={"shared_with": {"node": emb_w}} if b.q.act() else None, module="model.embed_tokens")
    cos = b.add("rope_cos", "input", [1, 1, SEQ, HEAD_DIM])
    sin = b.add("rope_sin", "input", [1, 1, SEQ, HEAD_DIM])
    mask = b.add("attn_mask", "input", [1, 1, SEQ, SEQ])
    for i in range(layers):
        x = b.layer(i, x, cos, sin, mask)
    x = b.rms_norm("final_norm", x, HIDDEN, "model.norm")
    logits = b.linear("lm_head", x, 151936, HIDDEN, "lm_head")
    b.add("output", "output", None, args=[[{"ref": logits}]])
    return {"format": "qnnrules-graph", "version": 1, "name": f"decoder_{layers}_{quant}", "nodes": b.nodes}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, default=28)
    ap.add_argument("--quant", default="per-tensor",
                    choices=["float", "annotated", "per-tensor", "per-channel", "block-wise", "16a16w"])
    ap.add_argument("--channels", type=int, default=16,
                    help="entries in per-channel scale lists (the real width makes files huge)")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    with open(a.output, "w") as f:
        json.dump(build(a.layers, a.quant, a.channels), f, separators=(",", ":"))


if __name__ == "__main__":
    main()
