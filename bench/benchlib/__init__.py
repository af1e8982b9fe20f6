"""Shared pieces of the benchmark: shapes, the results file, building and calling generated kernels.

shapes and records need only the standard library (the report generator and the tests use them
without torch); checks and creditlib's launchers need torch on the GPU machine.
"""
