"""`reshaped_layout`: the layout a Reshape's result is held in when its input is held in
another, so that the Reshape moves no element; None when it would have to."""

import numpy as np
import pytest

from mrvl.passes.host_layout import reshaped_layout

NHWC = (0, 2, 3, 1)


@pytest.mark.parametrize(("source", "target", "held", "expected"), [
    ((1, 72, 40, 40), (1, 72, 1600), NHWC, (0, 2, 1)),  # H and W merged: anchors major
    ((1, 64, 2100), (1, 4, 16, 2100), (0, 2, 1), (0, 3, 1, 2)),  # channels split into bins
    ((2, 3, 1, 1), (2, 3), NHWC, (0, 1)),  # a global pool's flattening
    ((1, 4, 1, 8), (1, 4, 8), NHWC, (0, 2, 1)),  # a CRNN's Squeeze of H
    ((1, 4, 8), (1, 4, 1, 8), (0, 2, 1), NHWC),  # and back
    ((1, 8, 4, 4), (1, 2, 4, 16), NHWC, (0, 3, 1, 2)),  # both at once
    ((1, 8, 4, 4), (1, 32, 4), NHWC, None),  # channels merged with rows they do not neighbour
    ((1, 8, 4, 4), (1, 128), NHWC, None),  # NCHW's flattening: channels first
    ((1, 8, 4, 4), (1, 8, 16), (0, 1, 3, 2), None),  # W before H: merged in the other order
])
def test_reshaped_layout(source, target, held, expected) -> None:
    assert reshaped_layout(source, target, held) == expected


@pytest.mark.parametrize(("source", "target", "held"), [
    ((1, 72, 4, 5), (1, 72, 20), NHWC), ((1, 12, 7), (1, 3, 4, 7), (0, 2, 1)), ((2, 3, 1, 1), (2, 3), NHWC),
    ((1, 6, 1, 5), (1, 6, 5), (0, 3, 2, 1)), ((1, 8, 4, 4), (1, 2, 4, 16), NHWC),
])
def test_the_reshape_moves_no_element(source, target, held) -> None:
    """Held as `held`, the input's elements in memory order are the result's held as the
    layout returned: reshaping the held input gives the held result."""
    x = np.arange(np.prod(source)).reshape(source)
    result = reshaped_layout(source, target, held)
    assert result is not None
    held_input = np.transpose(x, held)
    held_result = np.transpose(x.reshape(target), result)
    assert np.array_equal(held_input.reshape(held_result.shape), held_result)
