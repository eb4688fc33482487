// The derivative rules of the linear algebra ops (ops.def's cholesky, solve, determinant, eigh),
// as JAX writes them: each tangent is linear in the inputs' tangents through ops that transpose
// (solve in its b, products with primal matrices), so reverse mode transposes it.
#pragma once

#include <vector>

#include "ir/node.h"

namespace jx::transforms {

// x = a^-1 b: x' = a^-1 (b' - a' x).
ir::NodePtr solve_jvp(const ir::NodePtr &ans, const std::vector<ir::NodePtr> &ts);
// b's cotangent a^-T ct (x = a^-1 b is linear in b alone).
ir::NodePtr solve_transpose(const ir::Node &ans, const ir::NodePtr &ct, size_t i);
// det' = det tr(a^-1 a'); log|det|' = tr(a^-1 a'), the sign's 0.
ir::NodePtr determinant_jvp(const ir::NodePtr &ans, const std::vector<ir::NodePtr> &ts);
// L' = L phi(L^-1 a' L^-T), phi the lower triangle with its diagonal halved.
ir::NodePtr cholesky_jvp(const ir::NodePtr &ans, const std::vector<ir::NodePtr> &ts);
// w' = diag(V^T a' V), V' = V (F o V^T a' V), F_ij = 1 / (w_j - w_i) off the diagonal.
ir::NodePtr eigh_jvp(const ir::NodePtr &ans, const std::vector<ir::NodePtr> &ts);
// The singular values' and the reduced U's and V^T's (JAX's rule; none for full matrices).
ir::NodePtr svd_jvp(const ir::NodePtr &ans, const std::vector<ir::NodePtr> &ts);
// Reduced Q and R of a matrix with m >= n (complete: square ones), as JAX's rule.
ir::NodePtr qr_jvp(const ir::NodePtr &ans, const std::vector<ir::NodePtr> &ts);

} // namespace jx::transforms
