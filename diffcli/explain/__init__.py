"""`diffcli explain`: the backward pass step by step, as plain data.

`steps.explain(run, ...)` runs the backward pass with an observer on the engine
(autograd.OBSERVE) and returns an `Explanation`: one `Step` per node the engine ran, in
the engine's order, with the gradient that arrived at the node's output and, per input,
the local derivative as its op row's text (diffcli/engine/ops/rows.py), that text with
the numbers put in, its value, and what flowed on. `notes.py` says why a named tensor's
.grad is None and which statement broke a saved tensor. Nothing here imports a CLI or a
rendering library: render/explain_text.py, render/html.py turn the data into text.
"""
