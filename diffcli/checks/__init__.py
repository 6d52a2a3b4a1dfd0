"""Derivative checks that explain their verdict (`diffcli check`), and pinned gradients
(`grad --expect`). compare: the core on arrays; scripts: on a script; kinks: which ops are
not differentiable everywhere; golden: the drift between two grad documents."""
