// The CUDA backend's table (kernels_cuda.h) and who fills it: each launcher file
// (cuda/<op>_cuda.cu) adds its op's twins, through by_dtype where the activations may be of
// any dtype. The same launchers are built by nvcc for the GPU and as host C++ for the kernel
// emulator of the tests.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "precis/core/dtype.h"
#include "precis/core/error.h"
#include "precis/kernels/cuda/element.cuh"
#include "precis/kernels/cuda/kernels_cuda.h"

namespace precis::cuda {

namespace by_dtype_detail {

template <class F>
struct Signature;
template <class R, class... A>
struct Signature<R (*)(A...)> {
  using Result = R;
  using Args = std::tuple<A...>;
};
template <auto form>
using Args = typename Signature<decltype(form)>::Args;
template <auto form, size_t i>
using Arg = std::tuple_element_t<i, Args<form>>;

// An argument of one type in the three forms keeps it; one whose type differs is an element
// pointer (T*, const T*), which the table takes untyped.
template <class A32, class ABf16, class AF16>
using Untyped = std::conditional_t<
    std::is_same_v<A32, ABf16> && std::is_same_v<A32, AF16>, A32,
    std::conditional_t<std::is_const_v<std::remove_pointer_t<A32>>, const void*, void*>>;

template <class A32, class A16>
constexpr bool may_differ = std::is_same_v<A32, A16> || std::is_pointer_v<A32>;

template <auto fp32_form, auto bf16_form, auto f16_form,
          class = std::make_index_sequence<std::tuple_size_v<Args<fp32_form>>>>
struct ByDType;

template <auto fp32_form, auto bf16_form, auto f16_form, size_t... i>
struct ByDType<fp32_form, bf16_form, f16_form, std::index_sequence<i...>> {
  using Result = typename Signature<decltype(fp32_form)>::Result;
  static_assert(std::tuple_size_v<Args<bf16_form>> == sizeof...(i) &&
                    std::tuple_size_v<Args<f16_form>> == sizeof...(i),
                "the three forms take the same arguments");
  static_assert((may_differ<Arg<fp32_form, i>, Arg<bf16_form, i>> && ...),
                "the forms may differ only in their element pointers");

  static Result entry(DType dtype,
                      Untyped<Arg<fp32_form, i>, Arg<bf16_form, i>, Arg<f16_form, i>>... args) {
    if (dtype == DType::F32) return fp32_form(static_cast<Arg<fp32_form, i>>(args)...);
    if (dtype == DType::BF16) return bf16_form(static_cast<Arg<bf16_form, i>>(args)...);
    if (dtype == DType::F16) return f16_form(static_cast<Arg<f16_form, i>>(args)...);
    throw Error("a CUDA kernel was given " + dtype_name(dtype) + " (expected F32, BF16 or F16)");
  }
};

}  // namespace by_dtype_detail

// The table entry of a launcher for activations of any dtype, from its fp32, bf16 and fp16
// forms (element.cuh's element types): it takes the activations' dtype first, then the
// launcher's arguments with the element pointers untyped, and runs the form of that dtype. The
// one place where a tensor's dtype becomes a kernel's element type, so an op has one entry.
template <auto fp32_form, auto bf16_form, auto f16_form>
constexpr auto by_dtype = &by_dtype_detail::ByDType<fp32_form, bf16_form, f16_form>::entry;

// by_dtype of a launcher templated on its element type, named once so that the three forms
// cannot come from different launchers.
#define PRECIS_BY_DTYPE(launcher)                                           \
  ::precis::cuda::by_dtype<launcher<float>, launcher<::precis::cuda::bf16>, \
                           launcher<::precis::cuda::f16>>

// Every twin this build has, and device memory and copies (memory_cuda.cu).
const Kernels& twins();

// The real backend (runtime.cu, nvcc builds only): installs twins() when the CUDA runtime
// sees a GPU; returns how many it sees (0: nothing installed, with no error).
int install_if_gpu_present();

void add_memory_twins(Kernels& k);
void add_elementwise_twins(Kernels& k);
void add_linear_twins(Kernels& k);
void add_optimizer_twins(Kernels& k);
void add_grad_norm_twins(Kernels& k);
void add_attention_twins(Kernels& k);
void add_embedding_twins(Kernels& k);
void add_cross_entropy_twins(Kernels& k);
void add_token_ids_twins(Kernels& k);
void add_relative_position_twins(Kernels& k);
void add_layernorm_twins(Kernels& k);
void add_rms_norm_twins(Kernels& k);
void add_activation_twins(Kernels& k);
void add_dropout_twins(Kernels& k);
void add_convert_twins(Kernels& k);
void add_decoding_twins(Kernels& k);

}  // namespace precis::cuda
