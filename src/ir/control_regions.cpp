// Control flow's nodes (while, case, scan and their results): their regions checked against
// their operands.
#include "ir/builder.h"
#include "ir/complex_forms.h" // finish

#include <memory>

namespace jx::ir {

namespace {
// A region's params typed as `inputs`, in order.
void check_params(const Region &r, const std::vector<NodePtr> &inputs, size_t first, Op op) {
  check_node(r.params.size() == inputs.size() - first, op, "region parameter count");
  for (size_t i = 0; i < r.params.size(); ++i)
    check_node(same_type(*r.params[i], *inputs[first + i]), op, "region parameter type");
}
} // namespace

NodePtr while_loop(std::vector<NodePtr> inputs, int64_t carries, Region cond, Region body) {
  check_node(carries >= 1 && carries <= int64_t(inputs.size()), Op::While, "carry count");
  check_params(cond, inputs, 0, Op::While);
  check_params(body, inputs, 0, Op::While);
  check_node(cond.outputs.size() == 1 && cond.outputs[0]->dtype == DType::bool_ &&
                 cond.outputs[0]->shape.empty(),
             Op::While, "cond must give a bool scalar");
  check_node(int64_t(body.outputs.size()) == carries, Op::While, "body must give the carries");
  for (int64_t i = 0; i < carries; ++i)
    check_node(same_type(*body.outputs[i], *inputs[i]), Op::While, "body changes a carry's type");
  auto regions = std::make_shared<const Regions>(Regions{std::move(cond), std::move(body)});
  return finish({.op = Op::While,
                 .dtype = DType::bool_,
                 .inputs = std::move(inputs),
                 .attrs = {carries},
                 .regions = std::move(regions)});
}

NodePtr case_(NodePtr index, std::vector<NodePtr> operands, Regions branches) {
  check_node(index->dtype == DType::int32 && index->shape.empty(), Op::Case,
             "index must be int32[]");
  check_node(!branches.empty(), Op::Case, "no branches");
  operands.insert(operands.begin(), std::move(index));
  for (const Region &b : branches) {
    check_params(b, operands, 1, Op::Case);
    check_node(b.outputs.size() == branches[0].outputs.size(), Op::Case, "branch result counts");
    for (size_t i = 0; i < b.outputs.size(); ++i)
      check_node(same_type(*b.outputs[i], *branches[0].outputs[i]), Op::Case,
                 "branch result types");
  }
  auto regions = std::make_shared<const Regions>(std::move(branches));
  return finish({.op = Op::Case,
                 .dtype = DType::bool_,
                 .inputs = std::move(operands),
                 .regions = std::move(regions)});
}

NodePtr scan(std::vector<NodePtr> inputs, int64_t carries, int64_t xs, int64_t length, bool reverse,
             Region body) {
  check_node(carries >= 0 && xs >= 0 && carries + xs <= int64_t(inputs.size()) && length >= 0,
             Op::Scan, "operand counts");
  check_node(body.params.size() == inputs.size(), Op::Scan, "region parameter count");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Node &in = *inputs[i], &p = *body.params[i];
    const bool row = int64_t(i) >= carries && int64_t(i) < carries + xs;
    check_node(!row || (!in.shape.empty() && in.shape[0] == length), Op::Scan, "xs length");
    const Shape expected = row ? Shape(in.shape.begin() + 1, in.shape.end()) : in.shape;
    check_node(p.dtype == in.dtype && p.shape == expected && p.weak == in.weak, Op::Scan,
               "region parameter type");
  }
  check_node(int64_t(body.outputs.size()) >= carries, Op::Scan, "body must give the carries");
  for (int64_t i = 0; i < carries; ++i)
    check_node(same_type(*body.outputs[i], *inputs[i]), Op::Scan, "body changes a carry's type");
  auto regions = std::make_shared<const Regions>(Regions{std::move(body)});
  return finish({.op = Op::Scan,
                 .dtype = DType::bool_,
                 .inputs = std::move(inputs),
                 .attrs = {carries, xs, length, reverse ? 1 : 0},
                 .regions = std::move(regions)});
}

int64_t result_count(const Node &control) {
  if (control.op == Op::While) return control.attrs[0];
  if (control.op == Op::Scan) return int64_t((*control.regions)[0].outputs.size());
  check_node(control.op == Op::Case, control.op, "not a control op with results");
  return int64_t((*control.regions)[0].outputs.size());
}

NodePtr result(const NodePtr &control, int64_t i) {
  check_node(i >= 0 && i < result_count(*control), Op::Result, "result index");
  const Node &type = control->op == Op::While ? *control->inputs[size_t(i)]
                                              : *(*control->regions)[0].outputs[size_t(i)];
  Shape shape = type.shape;
  if (control->op == Op::Scan && i >= control->attrs[0]) // a stacked output
    shape.insert(shape.begin(), control->attrs[2]);
  return finish({.op = Op::Result,
                 .dtype = type.dtype,
                 .weak = type.weak,
                 .shape = std::move(shape),
                 .inputs = {control},
                 .attrs = {i}});
}

} // namespace jx::ir
