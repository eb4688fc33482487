// The limits for the kernels group's time-stepped stencils: jacobi_2d, heat_3d and fdtd_2d as
// kernels.py and kernels_bench write them (the same sizes, inputs and order of additions),
// hand-written with OpenMP: jacobi_2d's and heat_3d's two arrays taking turns in place (each step
// writes one's interior from the other's neighbours), fdtd_2d's three fields each updated in
// place, one parallel loop per statement. Prints each kernel's median ms per call over --rounds
// runs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fmt/core.h>
#include <functional>
#include <omp.h>
#include <string>
#include <vector>

#include "huge_pages.h"

namespace {

using limits::allocate;

// out's interior = 0.2 * (x + west + east + south + north), jacobi_2d's order.
void jacobi_half_step(const double *x, double *out, int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 1; i < n - 1; ++i) {
    const double *row = x + i * n, *up = row - n, *down = row + n;
    double *o = out + i * n;
#pragma omp simd
    for (int64_t j = 1; j < n - 1; ++j)
      o[j] = 0.2 * ((((row[j] + row[j - 1]) + row[j + 1]) + down[j]) + up[j]);
  }
}

// heat_3d's update of out's interior from x, in kernels.py's order.
void heat_half_step(const double *x, double *out, int64_t n) {
  const int64_t plane = n * n;
#pragma omp parallel for schedule(static) collapse(2)
  for (int64_t i = 1; i < n - 1; ++i)
    for (int64_t j = 1; j < n - 1; ++j) {
      const double *c = x + i * plane + j * n;
      double *o = out + i * plane + j * n;
#pragma omp simd
      for (int64_t k = 1; k < n - 1; ++k)
        o[k] = ((0.125 * ((c[k + plane] - 2.0 * c[k]) + c[k - plane]) +
                 0.125 * ((c[k + n] - 2.0 * c[k]) + c[k - n])) +
                0.125 * ((c[k + 1] - 2.0 * c[k]) + c[k - 1])) +
               c[k];
    }
}

// One step of fdtd_2d, each field updated in place in kernels.py's order, one parallel region
// with a loop per statement.
void fdtd_step(double *ex, double *ey, double *hz, double fict, int64_t nx, int64_t ny) {
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int64_t j = 0; j < ny; ++j)
      ey[j] = fict;
#pragma omp for schedule(static)
    for (int64_t i = 1; i < nx; ++i)
#pragma omp simd
      for (int64_t j = 0; j < ny; ++j)
        ey[i * ny + j] -= 0.5 * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
#pragma omp for schedule(static)
    for (int64_t i = 0; i < nx; ++i)
#pragma omp simd
      for (int64_t j = 1; j < ny; ++j)
        ex[i * ny + j] -= 0.5 * (hz[i * ny + j] - hz[i * ny + j - 1]);
#pragma omp for schedule(static)
    for (int64_t i = 0; i < nx - 1; ++i)
#pragma omp simd
      for (int64_t j = 0; j < ny - 1; ++j)
        hz[i * ny + j] -=
            0.7 * (((ex[i * ny + j + 1] - ex[i * ny + j]) + ey[(i + 1) * ny + j]) - ey[i * ny + j]);
  }
}

struct Case {
  std::string name, size;
  int64_t elements;
  std::function<void(double *, double *)> init;
  std::function<void(double *, double *)> run;
};

} // namespace

int main(int argc, char **argv) {
  int rounds = 5;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--rounds" && i + 1 < argc)
      rounds = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--json")
      json = true;
    else {
      std::fprintf(stderr, "usage: %s [--rounds 5] [--json]\n", argv[0]);
      return 2;
    }
  }
  const int64_t n2 = 600, t2 = 100, n3 = 60, t3 = 100;
  const std::vector<Case> cases = {
      {"jacobi_2d", fmt::format("N={} TSTEPS={}", n2, t2), n2 * n2,
       [=](double *a, double *b) {
         for (int64_t i = 0; i < n2; ++i)
           for (int64_t j = 0; j < n2; ++j) {
             a[i * n2 + j] = (double(i) * (double(j) + 2.0) + 2.0) / double(n2);
             b[i * n2 + j] = (double(i) * (double(j) + 3.0) + 3.0) / double(n2);
           }
       },
       [=](double *a, double *b) {
         for (int64_t t = 1; t < t2; ++t) {
           jacobi_half_step(a, b, n2);
           jacobi_half_step(b, a, n2);
         }
       }},
      {"heat_3d", fmt::format("N={} TSTEPS={}", n3, t3), n3 * n3 * n3,
       [=](double *a, double *b) {
         for (int64_t i = 0; i < n3; ++i)
           for (int64_t j = 0; j < n3; ++j)
             for (int64_t k = 0; k < n3; ++k)
               a[(i * n3 + j) * n3 + k] = b[(i * n3 + j) * n3 + k] =
                   (double(i) + double(j) + (double(n3) - double(k))) * 10.0 / double(n3);
       },
       [=](double *a, double *b) {
         for (int64_t t = 1; t < t3; ++t) {
           heat_half_step(a, b, n3);
           heat_half_step(b, a, n3);
         }
       }}};
  {
    // fdtd_2d: three fields, each updated in place (its reads are of the others).
    const int64_t nx = 500, ny = 600, tmax = 100;
    double *ex = allocate(size_t(nx * ny)), *ey = allocate(size_t(nx * ny)),
           *hz = allocate(size_t(nx * ny));
    std::vector<double> ms;
    for (int r = 0; r < rounds; ++r) {
      for (int64_t i = 0; i < nx; ++i)
        for (int64_t j = 0; j < ny; ++j) {
          ex[i * ny + j] = double(i) * (double(j) + 1.0) / double(nx);
          ey[i * ny + j] = double(i) * (double(j) + 2.0) / double(ny);
          hz[i * ny + j] = double(i) * (double(j) + 3.0) / double(nx);
        }
      const auto t0 = std::chrono::steady_clock::now();
      for (int64_t t = 0; t < tmax; ++t)
        fdtd_step(ex, ey, hz, double(t), nx, ny);
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    const std::string size = fmt::format("NX={} NY={} TMAX={}", nx, ny, tmax);
    if (json)
      fmt::print(
          "{{\"name\": \"fdtd_2d\", \"size\": \"{}\", \"limit_ms\": {:.6g}, \"threads\": {}}}\n",
          size, ms[ms.size() / 2], omp_get_max_threads());
    else
      fmt::print("{:<10} {:<20} {:.3f} ms (median of {}, {} threads)\n", "fdtd_2d", size,
                 ms[ms.size() / 2], rounds, omp_get_max_threads());
  }
  for (const Case &c : cases) {
    double *a = allocate(size_t(c.elements)), *b = allocate(size_t(c.elements));
    std::vector<double> ms;
    for (int r = 0; r < rounds; ++r) {
      c.init(a, b);
      const auto t0 = std::chrono::steady_clock::now();
      c.run(a, b);
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    if (json)
      fmt::print("{{\"name\": \"{}\", \"size\": \"{}\", \"limit_ms\": {:.6g}, \"threads\": {}}}\n",
                 c.name, c.size, ms[ms.size() / 2], omp_get_max_threads());
    else
      fmt::print("{:<10} {:<20} {:.3f} ms (median of {}, {} threads)\n", c.name, c.size,
                 ms[ms.size() / 2], rounds, omp_get_max_threads());
  }
  return 0;
}
