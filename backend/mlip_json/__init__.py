"""Helpers of `backend/json_emitter.py`: the per-layer records of TVM's mrvl codegen and
the key order its C++ side produced."""
