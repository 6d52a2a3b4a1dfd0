"""PyTorch 2.13's Python signatures of the op-table functions, as its argument parser
prints them; recorded by tests/goldens/record_signatures.py (generated, not edited
by hand). A one-overload function lists its positional parameters only."""

SIGNATURES = {
    'abs': [
        '(Tensor input)',
    ],
    'absolute': [
        '(Tensor input)',
    ],
    'acos': [
        '(Tensor input)',
    ],
    'acosh': [
        '(Tensor input)',
    ],
    'add': [
        '(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)',
    ],
    'all': [
        '(Tensor input, *, Tensor out = None)',
        '(Tensor input, tuple of ints dim = None, bool keepdim = False, *, Tensor out = None)',
        '(Tensor input, int dim, bool keepdim = False, *, Tensor out = None)',
    ],
    'allclose': [
        '(Tensor input, Tensor other, float rtol, float atol, bool equal_nan)',
    ],
    'amax': [
        '(Tensor input, tuple of ints dim, bool keepdim)',
    ],
    'any': [
        '(Tensor input, *, Tensor out = None)',
        '(Tensor input, tuple of ints dim = None, bool keepdim = False, *, Tensor out = None)',
        '(Tensor input, int dim, bool keepdim = False, *, Tensor out = None)',
    ],
    'arange': [
        '(Number end, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)',
        '(Number start, Number end, *, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)',
        '(Number start, Number end, Number step = 1, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)',
    ],
    'arccos': [
        '(Tensor input)',
    ],
    'arcsin': [
        '(Tensor input)',
    ],
    'arctan': [
        '(Tensor input)',
    ],
    'arctan2': [
        '(Tensor input, Tensor other)',
    ],
    'argmax': [
        '(Tensor input, int dim, bool keepdim)',
    ],
    'argmin': [
        '(Tensor input, int dim, bool keepdim)',
    ],
    'asin': [
        '(Tensor input)',
    ],
    'asinh': [
        '(Tensor input)',
    ],
    'atan': [
        '(Tensor input)',
    ],
    'atan2': [
        '(Tensor input, Tensor other)',
    ],
    'atanh': [
        '(Tensor input)',
    ],
    'binary_cross_entropy': [
        '(Tensor input, Tensor target, Tensor weight, int reduction)',
    ],
    'binary_cross_entropy_with_logits': [
        '(Tensor input, Tensor target, Tensor weight, Tensor pos_weight, int reduction)',
    ],
    'bmm': [
        '(Tensor input, Tensor mat2, *, Tensor out = None)',
        '(Tensor input, Tensor mat2, torch.dtype out_dtype, *, Tensor out = None)',
    ],
    'cat': [
        '(tuple of Tensors tensors, int dim)',
    ],
    'ceil': [
        '(Tensor input)',
    ],
    'clamp': [
        '(Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)',
        '(Tensor input, Number min = None, Number max = None, *, Tensor out = None)',
    ],
    'clamp_max': [
        '(Tensor input, Tensor max, *, Tensor out = None)',
        '(Tensor input, Number max, *, Tensor out = None)',
    ],
    'clamp_min': [
        '(Tensor input, Tensor min, *, Tensor out = None)',
        '(Tensor input, Number min, *, Tensor out = None)',
    ],
    'clip': [
        '(Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)',
        '(Tensor input, Number min = None, Number max = None, *, Tensor out = None)',
    ],
    'clone': [
        '(Tensor input)',
    ],
    'concat': [
        '(tuple of Tensors tensors, int dim)',
    ],
    'concatenate': [
        '(tuple of Tensors tensors, int dim)',
    ],
    'cos': [
        '(Tensor input)',
    ],
    'cosh': [
        '(Tensor input)',
    ],
    'cumsum': [
        '(Tensor input, int dim)',
    ],
    'detach': [
        '(Tensor input)',
    ],
    'div': [
        '(Tensor input, Tensor other, *, Tensor out = None)',
        '(Tensor input, Tensor other, *, str rounding_mode, Tensor out = None)',
        '(Tensor input, Number other, *, str rounding_mode)',
    ],
    'divide': [
        '(Tensor input, Tensor other, *, Tensor out = None)',
        '(Tensor input, Tensor other, *, str rounding_mode, Tensor out = None)',
        '(Tensor input, Number other)',
        '(Tensor input, Number other, *, str rounding_mode)',
    ],
    'dot': [
        '(Tensor input, Tensor tensor)',
    ],
    'elu': [
        '(Tensor input, Number alpha, Number scale, Number input_scale)',
    ],
    'eq': [
        '(Tensor input, Tensor other, *, Tensor out = None)',
        '(Tensor input, Number other, *, Tensor out = None)',
    ],
    'equal': [
        '(Tensor input, Tensor other)',
    ],
    'exp': [
        '(Tensor input)',
    ],
    'expm1': [
        '(Tensor input)',
    ],
    'eye': [
        '(int n, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)',
        '(int n, int m, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)',
    ],
    'flatten': [
        '(Tensor input, int start_dim, int end_dim)',
    ],
    'flip': [
        '(Tensor input, tuple of ints dims)',
    ],
    'floor': [
        '(Tensor input)',
    ],
    'floor_divide': [
        '(Tensor input, Tensor other, *, Tensor out = None)',
        '(Tensor input, Number other)',
    ],
    'full': [
        '(tuple of ints size, Number fill_value)',
    ],
    'full_like': [
        '(Tensor input, Number fill_value)',
    ],
    'ge': [
        '(Tensor input, Tensor other, *, Tensor out = None)',
        '(Tensor input, Number other, *, Tensor out = None)',
    ],
    'gelu': [
        '(Tensor input)',
    ],
    'gt': [
        '(Tensor input, Tensor other, *, Tensor out = None)',
        '(Tensor input, Number other, *, Tensor out = None)',
    ],
    'le': [
        '(Tensor input, Tensor other, *, Tensor out = None)',
        '(Tensor input, Number other, *, Tensor out = None)',
    ],
    'leaky_relu': [
        '(Tensor input, Number negative_slope)',
    ],
    'linspace': [
        '(Tensor start, Tensor end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)',
        '(Number start, Tensor end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)',
        '(Tensor start, Number end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)',
        '(Number start, Number end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)',
    ],
    'log': [
        '(Tensor input)',
    ],
    'log10': [
        '(Tensor input)',
    ],
    'log1p': [
        '(Tensor input)',
    ],
    'log2': [
        '(Tensor input)',
    ],
    'log_softmax': [
        '(Tensor input, int dim, torch.dtype dtype)',
    ],
    'logical_and': [
        '(Tensor input, Tensor other)',
    ],
    'logical_not': [
        '(Tensor input)',
    ],
    'logical_or': [
        '(Tensor input, Tensor other)',
    ],
    'logsumexp': [
        '(Tensor input, tuple of ints dim, bool keepdim)',
    ],
    'lt': [
        '(Tensor input, Tensor other, *, Tensor out = None)',
        '(Tensor input, Number other, *, Tensor out = None)',
    ],
    'matmul': [
        '(Tensor input, Tensor other)',
    ],
    'max': [
        '(Tensor input, *, Tensor out = None)',
        '(Tensor input, Tensor other, *, Tensor out = None)',
        '(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)',
    ],
    'maximum': [
        '(Tensor input, Tensor other)',
    ],
    'mean': [
        '(Tensor input, *, torch.dtype dtype = None, Tensor out = None)',
        '(Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)',
    ],
    'min': [
        '(Tensor input, *, Tensor out = None)',
        '(Tensor input, Tensor other, *, Tensor out = None)',
        '(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)',
    ],
    'minimum': [
        '(Tensor input, Tensor other)',
    ],
    'mm': [
        '(Tensor input, Tensor mat2, *, Tensor out = None)',
        '(Tensor input, Tensor mat2, torch.dtype out_dtype, *, Tensor out = None)',
    ],
    'mse_loss': [
        '(Tensor input, Tensor target, int reduction)',
    ],
    'mul': [
        '(Tensor input, Tensor other)',
    ],
    'multiply': [
        '(Tensor input, Tensor other, *, Tensor out = None)',
        '(Tensor input, Number other)',
    ],
    'mv': [
        '(Tensor input, Tensor vec)',
    ],
    'ne': [
        '(Tensor input, Tensor other, *, Tensor out = None)',
        '(Tensor input, Number other, *, Tensor out = None)',
    ],
    'neg': [
        '(Tensor input)',
    ],
    'negative': [
        '(Tensor input)',
    ],
    'nll_loss': [
        '(Tensor input, Tensor target, Tensor weight, int reduction, int ignore_index)',
    ],
    'norm': [
        '(Tensor input, Number p = 2)',
        '(Tensor input, Number p, *, torch.dtype dtype)',
        '(Tensor input, Number p, tuple of ints dim, bool keepdim, *, torch.dtype dtype, Tensor out = None)',
        '(Tensor input, Number p, tuple of ints dim, bool keepdim = False, *, Tensor out = None)',
    ],
    'ones': [
        '(tuple of ints size)',
    ],
    'ones_like': [
        '(Tensor input)',
    ],
    'outer': [
        '(Tensor input, Tensor vec2)',
    ],
    'permute': [
        '(Tensor input, tuple of ints dims)',
    ],
    'pow': [
        '(Tensor input, Tensor exponent, *, Tensor out = None)',
        '(Number self, Tensor exponent, *, Tensor out = None)',
        '(Tensor input, Number exponent, *, Tensor out = None)',
    ],
    'prod': [
        '(Tensor input, *, torch.dtype dtype = None)',
        '(Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)',
    ],
    'rand': [
        '(tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)',
        '(tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)',
    ],
    'rand_like': [
        '(Tensor input, *, torch.Generator generator, torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)',
        '(Tensor input, *, torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)',
    ],
    'randn': [
        '(tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)',
        '(tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)',
    ],
    'randn_like': [
        '(Tensor input, *, torch.Generator generator, torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)',
        '(Tensor input, *, torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)',
    ],
    'reciprocal': [
        '(Tensor input)',
    ],
    'relu': [
        '(Tensor input)',
    ],
    'remainder': [
        '(Tensor input, Tensor other, *, Tensor out = None)',
        '(Number self, Tensor other)',
        '(Tensor input, Number other, *, Tensor out = None)',
    ],
    'reshape': [
        '(Tensor input, tuple of ints shape)',
    ],
    'round': [
        '(Tensor input, *, Tensor out = None)',
        '(Tensor input, *, int decimals, Tensor out = None)',
    ],
    'rsqrt': [
        '(Tensor input)',
    ],
    'rsub': [
        '(Tensor input, Tensor other, *, Number alpha = 1)',
        '(Tensor input, Number other, Number alpha = 1)',
    ],
    'select': [
        '(Tensor input, int dim, int index)',
    ],
    'sigmoid': [
        '(Tensor input)',
    ],
    'sign': [
        '(Tensor input)',
    ],
    'silu': [
        '(Tensor input)',
    ],
    'sin': [
        '(Tensor input)',
    ],
    'sinh': [
        '(Tensor input)',
    ],
    'softmax': [
        '(Tensor input, int dim, torch.dtype dtype)',
    ],
    'softplus': [
        '(Tensor input, Number beta, Number threshold)',
    ],
    'sqrt': [
        '(Tensor input)',
    ],
    'square': [
        '(Tensor input)',
    ],
    'squeeze': [
        '(Tensor input)',
        '(Tensor input, int dim)',
        '(Tensor input, tuple of ints dim)',
    ],
    'stack': [
        '(tuple of Tensors tensors, int dim)',
    ],
    'std': [
        '(Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, Tensor out = None)',
        '(Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False, Tensor out = None)',
        '(Tensor input, bool unbiased = True)',
    ],
    'sub': [
        '(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)',
    ],
    'subtract': [
        '(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)',
        '(Tensor input, Number other, Number alpha = 1)',
    ],
    'sum': [
        '(Tensor input, *, torch.dtype dtype = None)',
        '(Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)',
    ],
    't': [
        '(Tensor input)',
    ],
    'tan': [
        '(Tensor input)',
    ],
    'tanh': [
        '(Tensor input)',
    ],
    'transpose': [
        '(Tensor input, int dim0, int dim1)',
    ],
    'true_divide': [
        '(Tensor input, Tensor other, *, Tensor out = None)',
        '(Tensor input, Number other)',
    ],
    'trunc': [
        '(Tensor input)',
    ],
    'unsqueeze': [
        '(Tensor input, int dim)',
    ],
    'var': [
        '(Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, Tensor out = None)',
        '(Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False, Tensor out = None)',
        '(Tensor input, bool unbiased = True)',
    ],
    'where': [
        '(Tensor condition)',
        '(Tensor condition, Tensor input, Tensor other, *, Tensor out = None)',
        '(Tensor condition, Number self, Tensor other)',
        '(Tensor condition, Tensor input, Number other)',
        '(Tensor condition, Number self, Number other)',
    ],
    'zeros': [
        '(tuple of ints size)',
    ],
    'zeros_like': [
        '(Tensor input)',
    ],
}
