// Activation functions by their Hugging Face names (ACT2FN in transformers/activations.py).
// x, y, dy, dx one dtype: F32, or on CUDA BF16 or F16.
#pragma once

#include <string>

#include "precis/core/tensor.h"

namespace precis {

enum class Activation { GeluExact, GeluTanh, GeluFast, QuickGelu, Relu, Silu, Tanh, Linear };

// "gelu" -> GeluExact, "gelu_new"/"gelu_pytorch_tanh" -> GeluTanh, ...; throws on unknown names.
Activation activation_from_name(const std::string& name);
std::string activation_name(Activation a);

// y = act(x), elementwise; x and y may be the same tensor.
void activation_forward(Activation kind, const Tensor& x, const Tensor& y);

// dx = dy * act'(x), with x the activation's input. dx may alias dy (not x unless dy is x).
// relu'(0) = 0 as in torch.
void activation_backward(Activation kind, const Tensor& x, const Tensor& dy, const Tensor& dx);

}  // namespace precis
