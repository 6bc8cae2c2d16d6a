"""The target description: what the compile aims at and what it may assume of it.

Between the dialects and the passes: the options of a compile (`options`), the cost model
of MLIP and the host (`cost_model`), and the host kernels' ABI (`host_kernels`, with the C
header of their tile sizes).
"""
