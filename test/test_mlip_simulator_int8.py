"""The reference simulator's int8 arithmetic (`precision="int8"`, what `-quantize=int8`
computes by our model of the chip) against integer arithmetic written out here."""

import numpy as np
import pytest

from mrvl.backend.mlip_simulator import _decode, simulate
from mrvl_dialect.errors import CompileError
from test_mlip_simulator import base_doc, conv_ref


def record(scale, zero_point=0, dtype="int8") -> dict:
    scales = list(np.atleast_1d(np.float32(scale)).astype(float))
    return {"dtype": dtype, "axis": 0, "scale": scales, "zero_point": [zero_point] * len(scales)}


CONV_WEIGHT = [0.02, 0.03, 0.015]
QUANT = {"format": "mrvl-quant/1", "symbol": "sg", "layers": [
    {"id": 1, "name": "layout", "tensors": {}},
    {"id": 2, "name": "conv", "tensors": {"input": record(0.05), "weight": record(CONV_WEIGHT),
                                          "output": record(0.1)}},
    {"id": 3, "name": "pool", "tensors": {}},
    {"id": 4, "name": "fc", "tensors": {"input": record(0.1), "weight": record(0.01), "output": record(0.25)}},
]}


def quantize(x: np.ndarray, scale: float) -> np.ndarray:
    return np.clip(np.rint(x.astype(np.float32) / np.float32(scale)), -128, 127).astype(np.int64)


def requantize(sums: np.ndarray, multiplier: np.ndarray, relu: bool) -> np.ndarray:
    q = np.rint(sums * multiplier.astype(np.float32).astype(np.float64))
    return np.clip(np.maximum(q, 0) if relu else q, -128, 127).astype(np.int64)


def test_conv_and_fc_compute_in_integers():
    doc, x = base_doc()
    nodes, consts = doc.document(None), doc.consts
    (got,) = simulate(nodes, consts, [x], "int8", QUANT)

    constants = {array.shape: array for array in (_decode(name, entry) for name, entry in consts.items())}
    w_conv, w_fc, b_fc = constants[(3, 3, 3, 2)], constants[(5, 12)], constants[(1, 5)]
    w_scale = np.float32(CONV_WEIGHT)
    x_int = quantize(x.transpose(0, 2, 3, 1), 0.05)
    w_int = np.rint(w_conv / w_scale[:, None, None, None]).astype(np.int64)
    sums = conv_ref(x_int.astype(np.float64), w_int.astype(np.float64), pads=(1, 1, 1, 1))
    assert np.array_equal(sums, np.rint(sums))  # exact integers
    conv = requantize(sums, np.float32(0.05) * w_scale / np.float32(0.1), relu=True)
    pooled = conv.reshape(1, 2, 2, 2, 2, 3).max(axis=(2, 4))  # on the int8 values: max commutes
    flat = pooled.transpose(0, 3, 1, 2).reshape(1, 12)  # weights_need_transform: NCHW order
    fc_sums = flat @ np.rint(w_fc / np.float32(0.01)).astype(np.int64).T
    fc_sums = fc_sums + np.rint(b_fc / (np.float32(0.1) * np.float32(0.01)))
    want = requantize(fc_sums, np.float32(0.1) * np.float32(0.01) / np.float32(0.25), relu=False)
    assert np.array_equal(got, (want * np.float32(0.25)).astype(np.float32))
    (fp32,) = simulate(nodes, consts, [x], "fp32")
    assert not np.array_equal(got, fp32)


def test_int8_needs_the_quant_document():
    doc, x = base_doc()
    with pytest.raises(CompileError, match="int8 needs the subgraph's -quant.json"):
        simulate(doc.document(None), doc.consts, [x], "int8", None)


def test_asymmetric_int8_weights_are_refused():
    doc, x = base_doc()
    quant = {"layers": [dict(entry) for entry in QUANT["layers"]]}
    quant["layers"][1] = {"id": 2, "tensors": {**QUANT["layers"][1]["tensors"], "weight": record(0.02, zero_point=3)}}
    with pytest.raises(CompileError, match="int8 weights must be symmetric"):
        simulate(doc.document(None), doc.consts, [x], "int8", quant)
