"""The op table, split by family. Each op keeps its forward, grad_fn name, saved tensors
and backward formula together; `table.py` maps script names onto them."""
