// FunctionRef: a non-owning, non-allocating reference to a callable, for hot dispatch paths.
#pragma once

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace jx::runtime {

template <class Signature> class FunctionRef;

// Two pointers: the callable's address and a trampoline that knows its type. It does not own
// the callable, so the referenced object must outlive every call (typically: a lambda passed
// straight into a function that calls it before returning).
template <class R, class... Args> class FunctionRef<R(Args...)> {
public:
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> &&
           std::is_invocable_r_v<R, F &, Args...>) FunctionRef(F &&f)
  noexcept : call_(&trampoline<std::remove_reference_t<F>>) {
    using Fn = std::remove_reference_t<F>;
    // Plain functions are not objects; their address round-trips through void* on POSIX.
    if constexpr (std::is_function_v<Fn>)
      obj_ = reinterpret_cast<void *>(&f);
    else
      obj_ = const_cast<void *>(static_cast<const void *>(std::addressof(f)));
  }

  R operator()(Args... args) const { return call_(obj_, std::forward<Args>(args)...); }

private:
  template <class Fn> static R trampoline(void *obj, Args... args) {
    Fn *fn;
    if constexpr (std::is_function_v<Fn>)
      fn = reinterpret_cast<Fn *>(obj);
    else
      fn = static_cast<Fn *>(obj);
    if constexpr (std::is_void_v<R>)
      std::invoke(*fn, std::forward<Args>(args)...);
    else
      return std::invoke(*fn, std::forward<Args>(args)...);
  }

  void *obj_;
  R (*call_)(void *, Args...);
};

} // namespace jx::runtime
