// Text form of a graph: one line per node in topological order, e.g.
//   %4 = mul(%2, %3) : f64[513,100]
#pragma once

#include <string>
#include <vector>

#include "ir/node.h"

namespace jx::ir {

// Nodes reachable from roots, inputs before users, each once.
std::vector<const Node *> topological_order(const std::vector<NodePtr> &roots);

std::string print_graph(const std::vector<NodePtr> &roots);
inline std::string print_graph(const NodePtr &root) { return print_graph(std::vector{root}); }
// The graph in Graphviz's language: a node per op (its name and type), edges from inputs with
// their types; the roots drawn bold.
std::string graph_dot(const std::vector<NodePtr> &roots, const std::string &title);
// `text` as a DOT string literal.
std::string dot_quoted(const std::string &text);

// "f64[513,100]", "bool[]"; a trailing "~" marks a weak type.
std::string type_str(const Node &node);
// A node's attributes as the printer shows them: "axis=0", "perm=[1,0]"; empty for none.
std::string attr_str(const Node &n);

} // namespace jx::ir
