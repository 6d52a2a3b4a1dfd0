"""Side-by-side benchmarks: diffcli's engine vs PyTorch vs hand-written numpy."""
