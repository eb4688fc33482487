// Who holds what across processes, and the messages between them (processes.h).
#include "sharding/processes.h"

#include <algorithm>

namespace jx::sharding {

Region whole(const Shape &shape) { return {std::vector<int64_t>(shape.size(), 0), shape}; }

bool contains(const Region &outer, const Region &inner) {
  for (size_t a = 0; a < outer.lo.size(); ++a)
    if (inner.lo[a] < outer.lo[a] || inner.hi[a] > outer.hi[a]) return false;
  return true;
}

std::vector<Piece> ProcessSchedule::pieces(const Placement &boxes) const {
  std::vector<Piece> out;
  for (const DeviceBox &b : boxes)
    out.push_back({{b.lo, b.hi}, process_of(b.device)});
  return out;
}

void ProcessSchedule::need(int to, int slot, const Region &need, const Holding &held,
                           std::vector<ProcessMessage> &out) const {
  if (!held || need.empty()) return;
  for (const Piece &p : *held) {
    if (p.process == to) continue;
    const Region part = intersect(need, p.region);
    if (part.empty()) continue;
    // Held here as a replica, or sent already by an earlier replica of the same piece.
    const bool local = std::any_of(held->begin(), held->end(), [&](const Piece &q) {
      return q.process == to && contains(q.region, part);
    });
    const bool carried = std::any_of(out.begin(), out.end(), [&](const ProcessMessage &m) {
      return m.to == to && m.slot == slot && contains(m.region, part);
    });
    if (!local && !carried) out.push_back({p.process, to, slot, part});
  }
}

void ProcessSchedule::need_everywhere(int slot, const Region &need, const Holding &held,
                                      std::vector<ProcessMessage> &out) const {
  for (int p = 0; p < processes_; ++p)
    this->need(p, slot, need, held, out);
}

} // namespace jx::sharding
