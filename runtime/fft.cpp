// The self-sorting mixed-radix transform: after the passes over radices p_1 .. p_t (before = their
// product L), value j + L k of the working array is entry j of the length-L transform of the
// subsequence x[k], x[k + n/L], x[k + 2n/L], ...; a pass of radix p combines p such subsequences
// (k, k + r', ..., r' = n / (L p)) into one of length L p with twiddles w_{Lp}^{qj}, so the last
// pass leaves the transform in natural order without a digit reversal (Stockham's ordering).
#include "runtime/fft.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <mutex>
#include <numbers>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "runtime/program.h"
#include "runtime/thread_pool.h"

namespace jx::runtime {

namespace {

template <class Real> using C = std::complex<Real>;

// Products without std::complex's C99 Annex G checks (a call per product in g++).
template <class Real> inline C<Real> mul(C<Real> a, C<Real> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}
template <class Real> inline C<Real> conj_if(C<Real> a, bool conjugate) {
  return conjugate ? C<Real>(a.real(), -a.imag()) : a;
}
// -i a (forward) or i a (inverse).
template <class Real> inline C<Real> rotate(C<Real> a, bool inverse) {
  return inverse ? C<Real>(-a.imag(), a.real()) : C<Real>(a.imag(), -a.real());
}

// exp(-2 pi i t / n) for t < n, in long double and rounded once.
template <class Real> std::vector<C<Real>> roots_of_unity(int64_t n) {
  std::vector<C<Real>> roots(static_cast<size_t>(n));
  const long double step = 2.0L * std::numbers::pi_v<long double> / (long double)n;
  for (int64_t t = 0; t < n; ++t) {
    const long double angle = step * (long double)t;
    roots[size_t(t)] = {Real(std::cos(angle)), Real(-std::sin(angle))};
  }
  return roots;
}

// The radices of n: 4s first, then 2, 3, 5 and the other primes in increasing order.
std::vector<int64_t> radices_of(int64_t n) {
  std::vector<int64_t> radices;
  while (n % 4 == 0) {
    radices.push_back(4);
    n /= 4;
  }
  for (int64_t p = 2; p * p <= n; ++p)
    while (n % p == 0) {
      radices.push_back(p);
      n /= p;
    }
  if (n > 1) radices.push_back(n);
  std::stable_sort(radices.begin(), radices.end(),
                   [](int64_t a, int64_t b) { return (a == 4 ? 0 : a) < (b == 4 ? 0 : b); });
  return radices;
}

// Operations per element of the passes (a radix-p pass of a prime p > 5 is p^2 per p values).
double passes_cost(const std::vector<int64_t> &radices) {
  double cost = 0;
  for (int64_t p : radices)
    cost += double(p <= 5 ? 5 : p);
  return cost;
}

// The smallest 2^a 3^b 5^c >= n.
int64_t smooth_length_at_least(int64_t n) {
  int64_t best = std::numeric_limits<int64_t>::max();
  for (int64_t f5 = 1; f5 < best; f5 *= 5)
    for (int64_t f35 = f5; f35 < best; f35 *= 3) {
      int64_t m = f35;
      while (m < n)
        m *= 2;
      best = std::min(best, m);
    }
  return best;
}

// A radix-P butterfly on a[0..P): the length-P transform in place (P = 2, 3, 4, 5).
template <int P, bool Inverse, class Real> inline void butterfly(C<Real> *a) {
  if constexpr (P == 2) {
    const C<Real> t = a[1];
    a[1] = a[0] - t;
    a[0] += t;
  } else if constexpr (P == 3) {
    const Real half = Real(0.5), sin60 = Real(0.86602540378443864676372317075294L);
    const C<Real> t1 = a[1] + a[2], m = a[0] - t1 * half;
    const C<Real> t2 = rotate(C<Real>(a[1] - a[2]) * sin60, Inverse);
    a[0] += t1;
    a[1] = m + t2;
    a[2] = m - t2;
  } else if constexpr (P == 4) {
    const C<Real> t0 = a[0] + a[2], t1 = a[0] - a[2], t2 = a[1] + a[3];
    const C<Real> t3 = rotate(C<Real>(a[1] - a[3]), Inverse);
    a[0] = t0 + t2;
    a[1] = t1 + t3;
    a[2] = t0 - t2;
    a[3] = t1 - t3;
  } else {
    static_assert(P == 5);
    const Real c1 = Real(0.30901699437494742410229341718281906L), // cos(2 pi / 5)
        c2 = Real(-0.80901699437494742410229341718281906L),       // cos(4 pi / 5)
        s1 = Real(0.95105651629515357211643933337938214L),        // sin(2 pi / 5)
        s2 = Real(0.58778525229247312916870595463907277L);        // sin(4 pi / 5)
    const C<Real> t1 = a[1] + a[4], t2 = a[2] + a[3], t3 = a[1] - a[4], t4 = a[2] - a[3];
    const C<Real> m1 = a[0] + t1 * c1 + t2 * c2, m2 = a[0] + t1 * c2 + t2 * c1;
    const C<Real> n1 = rotate(C<Real>(t3 * s1 + t4 * s2), Inverse);
    const C<Real> n2 = rotate(C<Real>(t3 * s2 - t4 * s1), Inverse);
    a[0] += t1 + t2;
    a[1] = m1 + n1;
    a[2] = m2 + n2;
    a[3] = m2 - n2;
    a[4] = m1 - n1;
  }
}

// One pass of a radix P of 2, 3, 4 or 5 (L: the product of the earlier radices, r = n / (L P))
// over butterflies [f0, f1) of the r L, butterfly k L + j: for subsequence k and entry j, P inputs
// n / P apart, twiddled by tw[(q - 1) L + j] = w_{LP}^{qj}, transformed and written L apart. The
// loop over j is innermost: inputs, outputs and twiddles are contiguous in it.
template <int P, bool Inverse, class Real>
void fixed_pass(const C<Real> *in, C<Real> *out, int64_t L, int64_t r, const C<Real> *tw,
                int64_t f0, int64_t f1) {
  const int64_t stride = L * r;
  C<Real> a[P];
  if (L == 1) { // no twiddles; the subsequences are the contiguous axis
    for (int64_t k = f0; k < f1; ++k) {
      for (int q = 0; q < P; ++q)
        a[q] = in[k + q * stride];
      butterfly<P, Inverse>(a);
      for (int s = 0; s < P; ++s)
        out[P * k + s] = a[s];
    }
    return;
  }
  for (int64_t f = f0; f < f1;) {
    const int64_t k = f / L, j0 = f % L, j1 = std::min(L, j0 + (f1 - f));
    const C<Real> *src = in + L * k;
    C<Real> *dst = out + L * P * k;
    for (int64_t j = j0; j < j1; ++j) {
      a[0] = src[j];
      for (int q = 1; q < P; ++q)
        a[q] = mul(src[j + q * stride], conj_if(tw[(q - 1) * L + j], Inverse));
      butterfly<P, Inverse>(a);
      for (int s = 0; s < P; ++s)
        dst[j + s * L] = a[s];
    }
    f += j1 - j0;
  }
}

// A pass of any other prime p over butterflies [f0, f1): the definition,
// w_p^{qs} = w_n^{(qs mod p) n / p}.
template <class Real>
void prime_pass(const C<Real> *in, C<Real> *out, int64_t n, int64_t p, int64_t L,
                const std::vector<C<Real>> &roots, const C<Real> *tw, bool inverse, int64_t f0,
                int64_t f1) {
  const int64_t r = n / (L * p), stride = L * r;
  const size_t radix = static_cast<size_t>(p);
  std::vector<C<Real>> a(radix);
  for (int64_t f = f0; f < f1; ++f) {
    const int64_t k = f / L, j = f % L;
    const C<Real> *src = in + j + L * k;
    C<Real> *dst = out + j + L * p * k;
    a[0] = src[0];
    for (int64_t q = 1; q < p; ++q)
      a[size_t(q)] = mul(src[q * stride], conj_if(tw[(q - 1) * L + j], inverse));
    for (int64_t s = 0; s < p; ++s) {
      C<Real> sum = a[0];
      for (int64_t q = 1; q < p; ++q)
        sum += mul(a[size_t(q)], conj_if(roots[size_t((q * s % p) * (n / p))], inverse));
      dst[s * L] = sum;
    }
  }
}

// From this length a pass's butterflies are split over the pool (each computed alone, so the
// values do not depend on the split); inside a pool task (fft_lines' lines) the call runs inline.
constexpr int64_t kParallelLength = int64_t(1) << 15;

template <bool Inverse, class Real>
void radix_pass(const C<Real> *in, C<Real> *out, int64_t n, int64_t p, int64_t L,
                const std::vector<C<Real>> &roots, const C<Real> *tw) {
  const int64_t r = n / (L * p);
  auto run = [&](int64_t f0, int64_t f1) {
    switch (p) {
    case 2: return fixed_pass<2, Inverse>(in, out, L, r, tw, f0, f1);
    case 3: return fixed_pass<3, Inverse>(in, out, L, r, tw, f0, f1);
    case 4: return fixed_pass<4, Inverse>(in, out, L, r, tw, f0, f1);
    case 5: return fixed_pass<5, Inverse>(in, out, L, r, tw, f0, f1);
    default: return prime_pass(in, out, n, p, L, roots, tw, Inverse, f0, f1);
    }
  };
  if (n < kParallelLength) return run(0, r * L);
  default_pool().parallel_for(0, r * L, int64_t(1) << 12, run);
}

} // namespace

template <class Real> FftPlan<Real>::FftPlan(int64_t n) : n_(n) {
  if (n < 1) throw std::invalid_argument("an FFT plan needs a positive length");
  const std::vector<int64_t> radices = radices_of(n);
  const int64_t m = smooth_length_at_least(2 * n - 1);
  // Bluestein costs three transforms of length m and three products per value; pocketfft weighs
  // it 1.5x for its worse rounding.
  const double direct = double(n) * passes_cost(radices),
               bluestein = 1.5 * double(m) * (2 * passes_cost(radices_of(m)) + 3);
  if (n > 5 && bluestein < direct) {
    smooth_ = std::make_unique<FftPlan>(m);
    chirp_.resize(size_t(n));
    const unsigned __int128 twice_n = 2 * (unsigned __int128)n;
    for (int64_t j = 0; j < n; ++j) { // exp(-pi i j^2 / n), j^2 reduced mod 2n exactly
      const auto t = (int64_t)((unsigned __int128)j * (unsigned __int128)j % twice_n);
      const long double angle = std::numbers::pi_v<long double> * (long double)t / (long double)n;
      chirp_[size_t(j)] = {Real(std::cos(angle)), Real(-std::sin(angle))};
    }
    kernel_.assign(size_t(m), C<Real>(0));
    const Real scale = Real(1) / Real(m);
    for (int64_t t = 0; t < n; ++t) {
      const C<Real> v = std::conj(chirp_[size_t(t)]) * scale;
      kernel_[size_t(t)] = v;
      if (t > 0) kernel_[size_t(m - t)] = v;
    }
    std::vector<C<Real>> scratch(size_t(smooth_->scratch_size()));
    smooth_->run(kernel_.data(), false, scratch.data());
    return;
  }
  roots_ = roots_of_unity<Real>(n);
  int64_t before = 1;
  for (int64_t p : radices) {
    // The pass's twiddles w_{Lp}^{qj} = w_n^{q j r}, q in [1, p), j in [0, L), in the order read.
    const int64_t r = n / (before * p);
    passes_.push_back({p, before, int64_t(twiddles_.size())});
    for (int64_t q = 1; q < p; ++q)
      for (int64_t j = 0; j < before; ++j)
        twiddles_.push_back(roots_[size_t(q * j * r)]);
    before *= p;
  }
}

template <class Real> FftPlan<Real>::~FftPlan() = default;

template <class Real> int64_t FftPlan<Real>::scratch_size() const {
  return smooth_ ? smooth_->size() + smooth_->scratch_size() : n_;
}

template <class Real> void FftPlan<Real>::run(C<Real> *data, bool inverse, C<Real> *scratch) const {
  if (smooth_)
    run_bluestein(data, inverse, scratch);
  else
    run_passes(data, inverse, scratch);
}

template <class Real>
void FftPlan<Real>::run_passes(C<Real> *data, bool inverse, C<Real> *scratch) const {
  C<Real> *in = data, *out = scratch;
  for (const Pass &pass : passes_) {
    const C<Real> *tw = twiddles_.data() + pass.twiddles;
    if (inverse)
      radix_pass<true>(in, out, n_, pass.radix, pass.before, roots_, tw);
    else
      radix_pass<false>(in, out, n_, pass.radix, pass.before, roots_, tw);
    std::swap(in, out);
  }
  if (in != data) std::copy(in, in + n_, data);
}

// X_k = c_k sum_j (x_j c_j) conj(c_{k-j}), c_j = exp(-pi i j^2 / n) (jk = (j^2 + k^2 - (k-j)^2)
// / 2): a cyclic convolution of length m >= 2n - 1 through the smooth plan. The inverse is the
// conjugate of the forward transform of the conjugate.
template <class Real>
void FftPlan<Real>::run_bluestein(C<Real> *data, bool inverse, C<Real> *scratch) const {
  const int64_t m = smooth_->size();
  C<Real> *a = scratch, *rest = scratch + m;
  for (int64_t j = 0; j < n_; ++j)
    a[j] = mul(conj_if(data[j], inverse), chirp_[size_t(j)]);
  std::fill(a + n_, a + m, C<Real>(0));
  smooth_->run(a, false, rest);
  for (int64_t t = 0; t < m; ++t)
    a[t] = mul(a[t], kernel_[size_t(t)]);
  smooth_->run(a, true, rest);
  for (int64_t k = 0; k < n_; ++k)
    data[k] = conj_if(mul(a[k], chirp_[size_t(k)]), inverse);
}

template <class Real> const FftPlan<Real> &fft_plan(int64_t n) {
  // Kept for the process's life: a plan holds O(n) twiddles, and programs use few lengths.
  static std::mutex mutex;
  static std::unordered_map<int64_t, std::unique_ptr<FftPlan<Real>>> plans;
  std::lock_guard lock(mutex);
  std::unique_ptr<FftPlan<Real>> &plan = plans[n];
  if (!plan) plan = std::make_unique<FftPlan<Real>>(n);
  return *plan;
}

template <class Real>
void fft_lines(const Real *re, const Real *im, C<Real> *out, int64_t outer, int64_t n,
               int64_t inner, bool inverse) {
  if (outer * n * inner == 0) return;
  const FftPlan<Real> &plan = fft_plan<Real>(n);
  // A line costs about n log2(n); chunks of lines of at least min_chunk_elements of that work.
  const int64_t work = n * std::max<int64_t>(1, std::bit_width(uint64_t(n))),
                grain = std::max<int64_t>(1, min_chunk_elements / work);
  default_pool().parallel_for(0, outer * inner, grain, [&](int64_t begin, int64_t end) {
    std::vector<C<Real>> line(static_cast<size_t>(n)),
        scratch(static_cast<size_t>(plan.scratch_size()));
    for (int64_t t = begin; t < end; ++t) {
      const int64_t o = t / inner, i = t % inner, base = o * n * inner + i;
      for (int64_t k = 0; k < n; ++k)
        line[size_t(k)] = {re[base + k * inner], im[base + k * inner]};
      plan.run(line.data(), inverse, scratch.data());
      for (int64_t k = 0; k < n; ++k)
        out[base + k * inner] = line[size_t(k)];
    }
  });
}

template class FftPlan<float>;
template class FftPlan<double>;
template const FftPlan<float> &fft_plan<float>(int64_t);
template const FftPlan<double> &fft_plan<double>(int64_t);
template void fft_lines<float>(const float *, const float *, C<float> *, int64_t, int64_t, int64_t,
                               bool);
template void fft_lines<double>(const double *, const double *, C<double> *, int64_t, int64_t,
                                int64_t, bool);

} // namespace jx::runtime
