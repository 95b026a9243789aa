"""scaled_dot_product_attention, MultiheadAttention and the Transformer encoder, as PyTorch's.

Against PyTorch float64 where it is installed (state dicts loaded, the
forward, the attention weights and the gradients of the inputs, of float
masks and of every parameter); without it, against a NumPy softmax(q k^T) v
and by central differences (gradcheck) on every backend of the fixture.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import nn
from torchlight.autograd import gradcheck, gradgradcheck
from torchlight.func import functional_call
from torchlight.nn import functional as F


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch", reason="the reference values come from PyTorch (not installed)")


def flat(out):
    if isinstance(out, (tuple, list)):
        return [t for part in out if part is not None for t in flat(part)]
    return [out]


def as_tensors(lib, arrays, grads):
    make = tl.tensor if lib == "tl" else lib.tensor
    return [make(a, requires_grad=g) for a, g in zip(arrays, grads)]


def against_torch(torch, arrays, grads, call_ours, call_theirs, ours=None, theirs=None, rng=None):
    """Compare the outputs of both calls, then the gradients of a random weighting of them (inputs that
    require grad, and every parameter of the modules when given)."""
    rng = rng or np.random.default_rng(0)
    if ours is not None:
        ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    mine, refs = as_tensors("tl", arrays, grads), as_tensors(torch, arrays, grads)
    out_mine, out_refs = flat(call_ours(*mine)), flat(call_theirs(*refs))
    weights = [rng.standard_normal(o.shape) for o in out_mine]
    for o, r in zip(out_mine, out_refs):
        np.testing.assert_allclose(o.numpy(), r.detach().numpy(), atol=1e-12, rtol=1e-10)
    sum(((o * tl.tensor(w)).sum() for o, w in zip(out_mine, weights))).backward()
    sum(((o * torch.tensor(w)).sum() for o, w in zip(out_refs, weights))).backward()
    for k, (m, r) in enumerate(zip(mine, refs)):
        if grads[k]:
            np.testing.assert_allclose(m.grad.numpy(), r.grad.numpy(), atol=1e-12, rtol=1e-10, err_msg=f"input {k}")
    if ours is not None:
        theirs_params = dict(theirs.named_parameters())
        assert [n for n, _ in ours.named_parameters()] == list(theirs_params)
        for name, p in ours.named_parameters():
            np.testing.assert_allclose(p.grad.numpy(), theirs_params[name].grad.numpy(), atol=1e-12, rtol=1e-10,
                                       err_msg=name)
    return out_mine


# ------------------------------------------------------ scaled_dot_product_attention
def test_sdpa_masks_causal_and_scale_against_torch(torch):
    rng = np.random.default_rng(1)
    q, k, v = rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((2, 3, 6, 5)), rng.standard_normal((2, 3, 6, 2))
    keep = rng.random((4, 6)) < 0.7
    keep[:, 0] = True
    bias = rng.standard_normal((2, 1, 4, 6))
    sdpa = torch.nn.functional.scaled_dot_product_attention
    cases = [dict(), dict(is_causal=True), dict(scale=0.3)]
    for options in cases:
        against_torch(torch, [q, k, v], [True] * 3,
                      lambda a, b, c, o=options: F.scaled_dot_product_attention(a, b, c, **o),
                      lambda a, b, c, o=options: sdpa(a, b, c, **o))
    against_torch(torch, [q, k, v, keep], [True, True, True, False],
                  F.scaled_dot_product_attention, lambda a, b, c, m: sdpa(a, b, c, attn_mask=m))
    against_torch(torch, [q, k, v, bias], [True] * 4,  # a float mask gets its gradient too
                  F.scaled_dot_product_attention, lambda a, b, c, m: sdpa(a, b, c, attn_mask=m))
    keep[1] = False  # a query that sees no key: zero output and gradients, as PyTorch's
    out = against_torch(torch, [q, k, v, keep], [True, True, True, False],
                        F.scaled_dot_product_attention, lambda a, b, c, m: sdpa(a, b, c, attn_mask=m))
    assert not out[0].numpy()[:, :, 1].any()


def numpy_attention(q, k, v, keep, scale):
    scores = np.where(keep, q @ np.swapaxes(k, -1, -2) * scale, -np.inf)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True) @ v


def test_sdpa_against_numpy_and_by_central_differences(backend):
    rng = np.random.default_rng(2)
    q, k, v = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4)), rng.standard_normal((2, 5, 3))
    causal = np.tril(np.ones((3, 5), bool))
    qt, kt, vt = (tl.tensor(a, backend=backend, requires_grad=True) for a in (q, k, v))
    out = F.scaled_dot_product_attention(qt, kt, vt, is_causal=True)
    np.testing.assert_allclose(out.numpy(), numpy_attention(q, k, v, causal, 0.5), atol=1e-12)
    keep = tl.tensor(rng.random((3, 5)) < 0.6, backend=backend) | tl.tensor(causal, backend=backend)
    masked = F.scaled_dot_product_attention(qt, kt, vt, attn_mask=keep, scale=0.7)
    np.testing.assert_allclose(masked.numpy(), numpy_attention(q, k, v, keep.numpy(), 0.7), atol=1e-12)
    assert gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=keep), qt, kt, vt)
    assert gradgradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True), qt, kt, vt)


def test_sdpa_dropout_is_seeded_and_scales_kept_weights():
    q = k = v = tl.randn(2, 8, 4)
    plain = F.scaled_dot_product_attention(q, k, v)
    tl.manual_seed(5)
    first = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    tl.manual_seed(5)
    again = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    np.testing.assert_array_equal(first.numpy(), again.numpy())
    assert not np.allclose(first.numpy(), plain.numpy())
    np.testing.assert_array_equal(F.scaled_dot_product_attention(q, k, v, dropout_p=1.0).numpy(), 0.0)


# ---------------------------------------------------------------- MultiheadAttention
MHA_CASES = [
    (dict(batch_first=True), "self", True),
    (dict(kdim=3, vdim=2), "cross", True),
    (dict(bias=False), "unbatched", False),
]


@pytest.mark.parametrize("options, inputs, average", MHA_CASES)
def test_multihead_attention_against_torch(torch, options, inputs, average):
    rng = np.random.default_rng(3)
    e, heads, n, length, source = 8, 2, 3, 4, 5
    theirs = torch.nn.MultiheadAttention(e, heads, dtype=torch.float64, **options)
    ours = nn.MultiheadAttention(e, heads, **options)
    if inputs == "self":
        x = rng.standard_normal((n, length, e))
        arrays, grads = [x, x.copy(), x.copy()], [True, True, True]
        blocked = rng.random((length, length)) < 0.3  # (True: left out, in MultiheadAttention's masks)
        np.fill_diagonal(blocked, False)
        padding = np.zeros((n, length), bool)
        padding[0, -1] = True
        masks = dict(attn_mask=blocked, key_padding_mask=padding)
    elif inputs == "cross":
        arrays = [rng.standard_normal((length, n, e)), rng.standard_normal((source, n, 3)),
                  rng.standard_normal((source, n, 2))]
        grads = [True, True, True]
        masks = dict(attn_mask=rng.standard_normal((n * heads, length, source)),
                     key_padding_mask=rng.standard_normal((n, source)))
    else:
        arrays = [rng.standard_normal((length, e)), rng.standard_normal((source, e)),
                  rng.standard_normal((source, e))]
        grads = [True, True, True]
        masks = dict(attn_mask=rng.standard_normal((length, source)) > 1.0)
    names = list(masks)
    arrays += [masks[k] for k in names]
    grads += [False] * len(names)

    def call(module, lib):
        def run(q, k, v, *ms):
            return module(q, k, v, **dict(zip(names, ms)), average_attn_weights=average)
        return run

    out = against_torch(torch, arrays, grads, call(ours, tl), call(theirs, torch), ours, theirs, rng)
    assert out[1].ndim == (3 if average else 4) - (inputs == "unbatched")
    ours.eval()  # no dropout: the same function
    with tl.no_grad():
        evaluated, _ = ours(*(tl.tensor(a) for a in arrays[:3]), **{k: tl.tensor(masks[k]) for k in names})
    np.testing.assert_array_equal(evaluated.numpy(), out[0].numpy())


def test_multihead_attention_without_weights_and_in_eval_with_dropout_against_torch(torch):
    rng = np.random.default_rng(4)
    theirs = torch.nn.MultiheadAttention(4, 2, dropout=0.5, batch_first=True, dtype=torch.float64).eval()
    ours = nn.MultiheadAttention(4, 2, dropout=0.5, batch_first=True).eval()
    x = rng.standard_normal((2, 3, 4))
    padding = np.zeros((2, 3), bool)
    padding[0] = True  # every key of sample 0 left out: PyTorch's zero weights (need_weights=False)
    against_torch(torch, [x, padding], [True, False],
                  lambda a, m: ours(a, a, a, key_padding_mask=m, need_weights=False),
                  lambda a, m: theirs(a, a, a, key_padding_mask=m, need_weights=False), ours, theirs, rng)


def test_multihead_attention_gradients_by_central_differences(backend):
    tl.manual_seed(0)
    mha = nn.MultiheadAttention(4, 2, kdim=3, batch_first=True, backend=backend)
    names = [name for name, _ in mha.named_parameters()]
    params = [p.detach().requires_grad_() for _, p in mha.named_parameters()]
    q = tl.randn(2, 2, 4, backend=backend, requires_grad=True)
    k = tl.randn(2, 3, 3, backend=backend, requires_grad=True)
    v = tl.randn(2, 3, 4, backend=backend, requires_grad=True)
    padding = tl.tensor([[False, False, True], [False, False, False]], backend=backend)

    def fn(q, k, v, *ps):
        return functional_call(mha, dict(zip(names, ps)), (q, k, v), {"key_padding_mask": padding})

    assert gradcheck(fn, q, k, v, *params, full_jacobian_max=12)


# ------------------------------------------------------------------ the encoder
@pytest.mark.parametrize("options", [dict(), dict(activation="gelu", norm_first=True, batch_first=True)])
def test_transformer_encoder_layer_against_torch(torch, options):
    rng = np.random.default_rng(5)
    theirs = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, dtype=torch.float64, **options)
    ours = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **options)
    x = rng.standard_normal((3, 4, 8))
    causal = np.triu(np.ones((4, 4), bool), 1) if options else None
    padding = np.zeros((3, 4), bool)
    padding[1, -1] = True
    if not options:  # (S, N, E): 3 steps of a batch of 4
        padding = np.zeros((4, 3), bool)
        padding[1, -1] = True
    arrays = [x, padding] + ([causal] if causal is not None else [])

    def call(module):
        return lambda a, p, *m: module(a, src_mask=m[0] if m else None, src_key_padding_mask=p)

    out = against_torch(torch, arrays, [True, False, False], call(ours), call(theirs), ours, theirs, rng)
    ours.eval()
    with tl.no_grad():
        evaluated = call(ours)(*(tl.tensor(a) for a in arrays))
    np.testing.assert_allclose(evaluated.numpy(), out[0].numpy(), atol=1e-14)


def test_transformer_encoder_loads_torch_state_dict(torch):
    rng = np.random.default_rng(6)
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, dtype=torch.float64)
    theirs = torch.nn.TransformerEncoder(layer, 2, norm=torch.nn.LayerNorm(8, dtype=torch.float64),
                                         enable_nested_tensor=False)
    ours = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 2,
                                 norm=nn.LayerNorm(8))
    assert ours.layers[0].linear1.weight is not ours.layers[1].linear1.weight
    against_torch(torch, [rng.standard_normal((2, 5, 8))], [True], ours, theirs, ours, theirs, rng)


def test_transformer_encoder_layer_gradients_by_central_differences(backend):
    tl.manual_seed(0)
    layer = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, activation="gelu", backend=backend)
    x = tl.randn(3, 2, 4, backend=backend, requires_grad=True)
    causal = tl.tensor(np.triu(np.ones((3, 3), bool), 1), backend=backend)
    assert gradcheck(lambda a: layer(a, src_mask=causal), x)


def test_module_names_and_init_as_pytorch():
    mha = nn.MultiheadAttention(8, 2)
    assert [n for n, _ in mha.named_parameters()] == ["in_proj_weight", "in_proj_bias", "out_proj.weight",
                                                      "out_proj.bias"]
    assert [n for n, _ in nn.MultiheadAttention(8, 2, kdim=3, vdim=5).named_parameters()] == [
        "q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
    bound = (6 / (8 + 24)) ** 0.5  # xavier_uniform_ over (24, 8)
    w = mha.in_proj_weight.numpy()
    assert np.abs(w).max() <= bound and w.std() > bound / 3
    assert not mha.in_proj_bias.numpy().any() and not mha.out_proj.bias.numpy().any()
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    assert {n.split(".")[0] for n, _ in layer.named_parameters()} == {"self_attn", "linear1", "linear2", "norm1",
                                                                     "norm2"}
    assert [n for n, _ in nn.TransformerEncoderLayer(8, 2, 16, bias=False).named_parameters()] == [
        "self_attn.in_proj_weight", "self_attn.out_proj.weight", "linear1.weight", "linear2.weight",
        "norm1.weight", "norm2.weight"]


def test_bad_input_names_expected_and_got():
    with pytest.raises(ValueError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(6, 4)
    mha = nn.MultiheadAttention(8, 2)
    x = tl.zeros(4, 2, 8)
    with pytest.raises(ValueError, match="expecting query embedding dimension of 8, but got 6"):
        mha(tl.zeros(4, 2, 6), x, x)
    with pytest.raises(ValueError, match=r"The shape of the 2D attn_mask is \(4, 3\), but should be \(4, 4\)"):
        mha(x, x, x, attn_mask=tl.zeros(4, 3))
    with pytest.raises(ValueError, match=r"The shape of the 3D attn_mask is \(2, 4, 4\), but should be \(4, 4, 4\)"):
        mha(x, x, x, attn_mask=tl.zeros(2, 4, 4))
    with pytest.raises(ValueError, match=r"expecting key_padding_mask shape of \(2, 4\), but got \(4, 2\)"):
        mha(x, x, x, key_padding_mask=tl.zeros(4, 2))
    with pytest.raises(ValueError, match="Need attn_mask if specifying the is_causal hint"):
        mha(x, x, x, is_causal=True)
    with pytest.raises(ValueError, match="key shape .* does not match value shape"):
        mha(x, x, tl.zeros(3, 2, 8))
    with pytest.raises(TypeError, match="dtype float32"):
        mha(x.astype("float32"), x, x)
    with pytest.raises(ValueError, match="activation should be relu/gelu"):
        nn.TransformerEncoderLayer(8, 2, activation="swish")
    q = tl.zeros(2, 3, 4)
    with pytest.raises(ValueError, match="either attn_mask or is_causal"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=tl.ones(3, 3), is_causal=True)
    with pytest.raises(ValueError, match="the same last dimension"):
        F.scaled_dot_product_attention(q, tl.zeros(2, 3, 5), q)
    with pytest.raises(ValueError, match=r"mask of shape \(2, 3\) does not broadcast"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=tl.ones(2, 3))


def test_compiled_attention_takes_new_masks():
    tl.manual_seed(0)
    mha = nn.MultiheadAttention(4, 2, batch_first=True)
    x = tl.randn(2, 3, 4)
    run = tl.compile(lambda x, m: mha(x, x, x, key_padding_mask=m)[0].sum())
    for blocked in ([[False, False, True], [False, True, False]], [[True, False, False], [False, False, False]]):
        mask = tl.tensor(blocked)
        assert run(x, mask).item() == pytest.approx(mha(x, x, x, key_padding_mask=mask)[0].sum().item(), rel=1e-14)
    causal = tl.compile(lambda q: F.scaled_dot_product_attention(q, q, q, is_causal=True).sum())
    assert causal(x).item() == pytest.approx(F.scaled_dot_product_attention(x, x, x, is_causal=True).sum().item())
