"""Policy-value nets at play time: ONNX files read with onnxruntime (never torch).

`planes` builds the input planes (the one definition the trainer uses too), `session` opens a
file with onnxruntime, `metadata` reads and checks what a file claims to be, `evaluator` runs
batches. The file contract is docs/net-format.md.
"""
