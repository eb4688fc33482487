// Complex discrete Fourier transforms of any length, the engine under jnp::fft:
//   X[k] = sum_j x[j] exp(-2 pi i j k / n)   (forward; the inverse has +i and no 1/n).
// Lengths whose prime factors are small run as a self-sorting (Stockham) mixed-radix transform,
// radices 4, 2, 3, 5 and any other prime as a pass of its own; a length with a large prime factor
// (10007) runs as Bluestein's chirp convolution through a transform of a smooth length >= 2n - 1.
// Twiddle factors come from one table of the n-th roots of unity computed in long double.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace jx::runtime {

template <class Real> class FftPlan {
public:
  explicit FftPlan(int64_t n);
  ~FftPlan();
  FftPlan(const FftPlan &) = delete;
  FftPlan &operator=(const FftPlan &) = delete;

  int64_t size() const { return n_; }
  // Complex values of scratch run() needs beside its data.
  int64_t scratch_size() const;
  // Transforms data (n values) in place; scratch holds scratch_size() values.
  void run(std::complex<Real> *data, bool inverse, std::complex<Real> *scratch) const;

private:
  struct Pass {
    int64_t radix = 0, before = 1; // before: the product of the radices of the earlier passes
    int64_t twiddles = 0;          // where its twiddles start in twiddles_
  };
  void run_passes(std::complex<Real> *data, bool inverse, std::complex<Real> *scratch) const;
  void run_bluestein(std::complex<Real> *data, bool inverse, std::complex<Real> *scratch) const;

  int64_t n_;
  std::vector<Pass> passes_;
  std::vector<std::complex<Real>> roots_;    // exp(-2 pi i t / n), t < n
  std::vector<std::complex<Real>> twiddles_; // each pass's, contiguous in the order it reads them
  // Bluestein: the chirp exp(-pi i j^2 / n), j < n, the transform of the convolution's kernel
  // (scaled by 1 / m) and the plan of its smooth length m.
  std::vector<std::complex<Real>> chirp_, kernel_;
  std::unique_ptr<FftPlan> smooth_;
};

// The plan for n, built once per length and precision and kept (plans are immutable and shared
// between threads).
template <class Real> const FftPlan<Real> &fft_plan(int64_t n);

// Transforms every line along the middle axis of an (outer, n, inner) complex array given as its
// real and imaginary parts into out, lines in parallel on the default pool, each line gathered
// into a contiguous buffer, transformed by fft_plan(n) and scattered back, so a value does not
// depend on the pool.
template <class Real>
void fft_lines(const Real *re, const Real *im, std::complex<Real> *out, int64_t outer, int64_t n,
               int64_t inner, bool inverse);

extern template class FftPlan<float>;
extern template class FftPlan<double>;

} // namespace jx::runtime
