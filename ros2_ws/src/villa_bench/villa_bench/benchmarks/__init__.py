"""The benchmarks, one module each (villa_bench: the contract)."""
