# ruff: noqa: E501  (texts of the syntax, kept as one would write them)
"""Texts in ONNX's textual syntax that use every part of it: the seeds of the
differential tests (each parsed by onnx and by onnxdata, then mutated)."""

from __future__ import annotations

MODEL = """
<
  ir_version: 10,
  opset_import: [ "" : 18, "custom.domain" : 1, "local" : 1],
  producer_name: "p\\"q",
  producer_version: "1.0",
  domain: "ai.example",
  model_version: 7,
  doc_string: "A model # not a comment",
  metadata_props: [ "k1" : "v1", "k2": "" ]
>
"main graph" (float[N, 3] X, float[3] W = {1.5, -2, 3e-2}, int64[] shape,
              seq(float[?]) s, map(string, optional(int8)) m, sparse_tensor(float[2,2]) sp,
              float["batch size", 4, M] q, optional(seq(map(int64, float))) o, opaque() op,
              opaque(ai.onnx.ml, Thing) op2, bfloat16 scalar)
   => (float[N] Y, float "quoted out", bool flag)
   <float[2] hidden, int32[3] init = {1, -2, 2147483647}, double[2] d = {1e300, -inf},
    uint64[2] u = {18446744073709551615, -1}, string[2] strs = {"a", "b\\\\c"},
    float[2] ext = ["location": "w.bin", "offset": "0", "length": "8"],
    float16[2] h = {15360, 0}, uint4[3] nib = {1, 2, 15}, complex64[2] c = {1, 2},
    int64[0] empty = {}, float6e2m3[2] f6 = {1, 2}, float6e3m2[1] f7 = {-3}, int2[1] i2 = {1},
    float8e8m0[1] e8 = {127}, float4e2m1[1] f4 = {1}>
{
   # a comment line
   [first] T = MatMul(X, W)
   U, , V = custom.domain.Split <axis = 0, split: ints = [1, 2], names = ["a", "b"]> (T, "")
   Y = local.F:over <alpha = 0.5, beta: float = 2, mode = "edge", t = float[2] {1, 2},
                     tp = seq(float[3]), g = body () => (float[1] r) { r = Constant <value_float = -0.0> () },
                     e: floats = [], gs: graphs = [], nums = [1, 2, 3], fl = [1.5, 2, nan, -Infinity],
                     big = 9223372036854775807, neg = -9223372036854775808> (U, V)
   "quoted out" = Identity (Y) <perm = [1, 0]>
   flag = If (c) <then_branch = then (  ) => (bool o) { o = Constant <value = bool {1}> () },
                  else_branch = else_g () => (bool o) { o = Constant <value: tensor = bool t1 {0}> () }>
   w = Foo <named = float[2] name = {1, 2}, ty: type_proto = int8, ty2: type_protos = [int8, float]> ()
}
<domain: "local", opset_import: ["" : 18], doc_string: "F", overload: "over">
F <alpha: float = 1.0, beta, mode: string = "x", t: tensor = float[1] {5}, n: int = 3, bad: ints = [1,>
  (float[N] a, b) => (c, float d)
  <float[N] tmp>
{
   tmp = Mul <alpha = @alpha, ref = @"beta"> (a, b)
   c = Add (tmp, a)
   d = Identity (c)
}
<domain: "local">
"G 2" (x) => (y) { y = Identity(x) }
"""

GRAPH = """g (float[N] x, float[1] w = {2}) => (float[N] y) <float[N] t> {
  t = Mul(x, w)
  y = Relu(t)
}"""

FUNCTION = """<domain: "d", opset_import: ["": 18, "d": 1], overload: "o">
f <a, b: int = 1, c: floats = [1., 2.]> (x, float[N] y) => (z) { z = Add <k = @b> (x, y) }"""

NODE = """[n1] y1, "y 2" = com.example.Op:ov <i = 1, f = 1.5, s = "s", t = int64[2] {1, 2},
g = sub (float x) => (float y) { y = Neg(x) }, ints = [1, -1], fs = [1e3, 2.5e-3]> (a, , "c")"""

TEXTS = {"model": [MODEL], "graph": [GRAPH], "function": [FUNCTION], "node": [NODE]}
