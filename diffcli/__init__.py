"""diffcli: a command-line expression differentiator with PyTorch's autograd semantics."""

__version__ = "0.1.0"
