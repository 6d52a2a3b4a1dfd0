"""`torch.Generator`: a random generator of its own (the engine's at::CPUGeneratorImpl), for
the `generator=` argument of torch.rand/randn/randint/randperm and of torch.utils.data."""

from __future__ import annotations

from ..engine.ops.random import Generator
from .values import CPU, device

_NO_CUDA = (
    "Cannot get CUDA generator without ATen_cuda library. PyTorch splits its backend into two shared "
    "libraries: a CPU library and a CUDA library; this error has occurred because you are trying to use "
    "some CUDA functionality, but the CUDA library has not been loaded by the dynamic linker for some "
    "reason.  The CUDA library MUST be loaded, EVEN IF you don't directly use any symbols from the CUDA "
    "library! One common culprit is a lack of -Wl,--no-as-needed in your link arguments; many dynamic "
    "linkers will delete dynamic library dependencies if you don't depend on any of their symbols.  You "
    "can check if this has occurred by using ldd on your binary to see if there is a dependency on "
    "*_cuda.so library."
)
METHODS = ("manual_seed", "initial_seed")


def new_generator(interp, args, kwargs, node) -> Generator:
    """torch.Generator(device='cpu')."""
    if len(args) > 1 or set(kwargs) - {"device"} or (args and kwargs):
        raise TypeError("Generator() takes at most 1 argument (device)")
    where = args[0] if args else kwargs.get("device", "cpu")
    kind = device(where).type
    if kind == "cuda":
        raise RuntimeError(_NO_CUDA)
    if kind != "cpu":
        raise RuntimeError(f"diffcli runs on the CPU only: device '{kind}' is not available")
    return Generator()


def attribute(gen: Generator, name: str):
    """`g.manual_seed(s)` (returns g), `g.initial_seed()`, `g.device`; MISSING otherwise."""
    if name == "device":
        return CPU
    if name in METHODS:
        return getattr(gen, name)
    return None
