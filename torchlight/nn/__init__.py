"""`torchlight.nn`: Modules, Parameters and layers for building networks.

Example:
    >>> import torchlight as tl
    >>> from torchlight import nn
    >>> tl.manual_seed(0)
    >>> model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
    >>> loss = model(tl.ones(4, 2)).mse_loss(tl.zeros(4, 1))
    >>> loss.backward()
    >>> all(p.grad is not None for p in model.parameters())
    True
"""

from torchlight.nn import functional, init, modules, utils
from torchlight.nn.activation import (
    ELU,
    GELU,
    Hardtanh,
    LeakyReLU,
    LogSoftmax,
    Mish,
    ReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)
from torchlight.nn.attention import MultiheadAttention, TransformerEncoder, TransformerEncoderLayer
from torchlight.nn.container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from torchlight.nn.conv import Conv1d, Conv2d, ConvTranspose2d
from torchlight.nn.dropout import Dropout
from torchlight.nn.embedding import Embedding
from torchlight.nn.linear import Flatten, Identity, Linear
from torchlight.nn.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from torchlight.nn.module import Module
from torchlight.nn.normalization import BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm
from torchlight.nn.parameter import Parameter
from torchlight.nn.pooling import AvgPool2d, MaxPool2d
from torchlight.nn.recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase

__all__ = [
    "AvgPool2d",
    "Conv2d",
    "CrossEntropyLoss",
    "Dropout",
    "Embedding",
    "Flatten",
    "GELU",
    "Identity",
    "LayerNorm",
    "Linear",
    "LogSoftmax",
    "MaxPool2d",
    "Module",
    "NLLLoss",
    "Parameter",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Softmax",
    "Tanh",
    "functional",
    "init",
    "modules",
    "Conv1d",
    "ConvTranspose2d",
    "GRU",
    "GRUCell",
    "LSTM",
    "LSTMCell",
    "MultiheadAttention",
    "RNN",
    "RNNBase",
    "RNNCell",
    "RNNCellBase",
    "TransformerEncoder",
    "TransformerEncoderLayer",
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "ELU",
    "GroupNorm",
    "Hardtanh",
    "HuberLoss",
    "KLDivLoss",
    "L1Loss",
    "LeakyReLU",
    "MSELoss",
    "Mish",
    "ModuleDict",
    "ModuleList",
    "ParameterDict",
    "ParameterList",
    "SiLU",
    "SmoothL1Loss",
    "Softplus",
    "utils",
]
