// The runtime's program loop: slots, the arena, donations, and kernel launches on the pool.
#include "runtime/program.h"

#include <jx/shape.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>

#include "runtime/thread_pool.h"
#include "runtime/threefry.h"
#include "runtime/trace.h"

namespace jx::runtime {

const char *step_kind_name(Step::Kind kind) {
  static constexpr const char *names[] = {"value", "argument", "fill", "kernel", "contraction",
                                          "while", "case",     "scan", "library"};
  static_assert(std::size(names) == size_t(Step::Kind::Library) + 1);
  return names[size_t(kind)];
}

namespace {
// The rectangle boxes tile exactly (disjoint, their union a box), or nothing.
std::optional<std::vector<int64_t>> tiled_hull(const std::vector<int64_t> &boxes, size_t rank) {
  const size_t count = boxes.size() / (2 * rank);
  std::vector<int64_t> hull(boxes.begin(), boxes.begin() + std::ptrdiff_t(2 * rank));
  int64_t volume = 0;
  for (size_t b = 0; b < count; ++b) {
    const int64_t *box = boxes.data() + b * 2 * rank;
    int64_t size = 1;
    for (size_t a = 0; a < rank; ++a) {
      hull[2 * a] = std::min(hull[2 * a], box[2 * a]);
      hull[2 * a + 1] = std::max(hull[2 * a + 1], box[2 * a + 1]);
      size *= box[2 * a + 1] - box[2 * a];
    }
    volume += size;
    for (size_t c = 0; c < b; ++c) {
      const int64_t *other = boxes.data() + c * 2 * rank;
      bool overlap = true;
      for (size_t a = 0; a < rank && overlap; ++a)
        overlap = box[2 * a] < other[2 * a + 1] && other[2 * a] < box[2 * a + 1];
      if (overlap) return std::nullopt;
    }
  }
  int64_t hull_volume = 1;
  for (size_t a = 0; a < rank; ++a)
    hull_volume *= hull[2 * a + 1] - hull[2 * a];
  if (volume != hull_volume) return std::nullopt;
  return hull;
}
} // namespace

std::vector<int64_t> split_boxes(const std::vector<int64_t> &boxes, size_t rank,
                                 int64_t work_per_element, int64_t threads) {
  std::vector<int64_t> tasks;
  if (rank == 0) return tasks;
  const int64_t count = int64_t(boxes.size() / (2 * rank));
  if (count == 0) return tasks;
  // Boxes that tile a rectangle in this process's memory (which device a box is on changes
  // nothing its kernel computes) split as that rectangle, by whole rows: a sharding's column
  // strips, split strip by strip, would stream each row's segment of a page alone.
  if (count > 1)
    if (const std::optional<std::vector<int64_t>> hull = tiled_hull(boxes, rank))
      return split_boxes(*hull, rank, work_per_element, threads);
  const int64_t per_box = std::max<int64_t>(1, (4 * threads + count - 1) / count);
  for (int64_t b = 0; b < count; ++b) {
    const int64_t *box = boxes.data() + b * int64_t(2 * rank);
    int64_t row = work_per_element;
    for (size_t a = 1; a < rank; ++a)
      row *= box[2 * a + 1] - box[2 * a];
    const int64_t rows = box[1] - box[0];
    const int64_t min_rows = std::max<int64_t>(1, min_chunk_elements / std::max<int64_t>(1, row));
    const int64_t chunks = std::max<int64_t>(1, std::min(per_box, rows / min_rows));
    for (int64_t c = 0; c < chunks; ++c) {
      tasks.push_back(box[0] + rows * c / chunks);
      tasks.push_back(box[0] + rows * (c + 1) / chunks);
      tasks.insert(tasks.end(), box + 2, box + 2 * rank);
    }
  }
  return tasks;
}

bool serves(const Buffer &b, const Program::Layout &layout) {
  return b.holds(layout.shape).serves(layout.window);
}

BufferPtr make_buffer(const Program::Layout &layout) {
  BufferPtr b = make_buffer(size_t(layout.window.elements()) * layout.itemsize);
  if (layout.window != Window::whole(layout.shape)) b->set_window(layout.window, layout.itemsize);
  return b;
}

BufferPtr refit(const Buffer &b, const Program::Layout &layout) {
  BufferPtr to = make_buffer(layout);
  copy_window(b.as<char>(), b.holds(layout.shape), to->as<char>(), layout.window, layout.itemsize);
  if (b.partial()) to->mark_partial();
  return to;
}

bool widen(Buffer &b, const Program::Layout &layout) {
  const Window held = b.holds(layout.shape), wide = held.hull(layout.window);
  if (!wide.serves(layout.window)) return false;
  Buffer to(size_t(wide.elements()) * layout.itemsize);
  if (wide != Window::whole(layout.shape)) to.set_window(wide, layout.itemsize);
  copy_window(b.as<char>(), held, to.as<char>(), wide, layout.itemsize);
  b.swap_storage(to);
  return true;
}

namespace {

// A loop's carries from one iteration to the next. The body's carries are donated to it
// (compile_regions): from the second iteration on the loop alone holds them, so an update of a
// carry, or an elementwise kernel reading it, writes into its memory (the first iteration's are
// the caller's, never written). A carry that no donation writes (a stencil's) is computed into the
// buffer it held two iterations ago: two sets taking turns, no allocation once they exist.
class Carries {
public:
  Carries(const Program &body, size_t carries) : recycled_(carries), spare_(carries) {
    for (size_t i = 0; i < carries; ++i)
      for (const Step &s : body.steps)
        for (size_t r = 0; r < s.outs.size(); ++r)
          if (s.outs[r] == body.outputs[i])
            recycled_[i] = (s.kind == Step::Kind::Kernel || s.kind == Step::Kind::Library) &&
                           (s.donors.empty() || s.donors[r] < 0);
  }
  // Where the body writes each carry: its spare, or anywhere.
  void place(std::vector<BufferPtr> &results) const {
    std::copy(spare_.begin(), spare_.end(), results.begin());
  }
  // The body's results become the carries; what they replace is kept where nothing else holds it.
  void advance(std::vector<BufferPtr> &state, std::vector<BufferPtr> &next) {
    for (size_t i = 0; i < spare_.size(); ++i) {
      BufferPtr old = std::exchange(state[i], std::move(next[i]));
      const bool own = old && old.use_count() == 1 && old != state[i] && !old->deleted();
      spare_[i] = recycled_[i] && own ? std::move(old) : nullptr;
    }
  }

private:
  std::vector<bool> recycled_;
  std::vector<BufferPtr> spare_;
};

// The carries after the loop.
std::vector<BufferPtr> run_while(const Step &s, std::vector<BufferPtr> state) {
  const Program &cond = *s.regions[0], &body = *s.regions[1];
  const auto carries = size_t(s.carries);
  // The bodies' arena, one for every iteration (they run one after another).
  const BufferPtr arena = body.arena_bytes ? make_buffer(body.arena_bytes) : nullptr;
  Carries turns(body, carries);
  std::vector<BufferPtr> results(carries);
  while (*run(cond, state)[0]->as<bool>()) {
    turns.place(results);
    std::vector<BufferPtr> next = run(body, state, results, carries, arena.get());
    turns.advance(state, next);
  }
  state.resize(carries);
  return state;
}

// Row t of each xs is a view of it, and each output row a view of its stacked output, written
// in place by the body's kernels; the carries are donated to the body as in run_while.
std::vector<BufferPtr> run_scan(const Step &s, std::vector<BufferPtr> state) {
  const Program &body = *s.regions[0];
  const auto carries = size_t(s.carries), xs = size_t(s.xs);
  const int64_t length = s.length;
  const std::vector<BufferPtr> whole(state.begin() + std::ptrdiff_t(carries),
                                     state.begin() + std::ptrdiff_t(carries + xs));
  std::vector<BufferPtr> stacked;
  for (size_t k = carries; k < s.out_bytes.size(); ++k)
    stacked.push_back(make_buffer(s.out_bytes[k]));
  std::vector<BufferPtr> results(s.out_bytes.size());
  const BufferPtr arena = body.arena_bytes ? make_buffer(body.arena_bytes) : nullptr;
  Carries turns(body, carries);
  auto row = [&](const BufferPtr &b, size_t bytes, int64_t t) {
    return Buffer::borrow(b->as<char>() + size_t(t) * (bytes / size_t(length)),
                          bytes / size_t(length));
  };
  for (int64_t step = 0; step < length; ++step) {
    const int64_t t = s.reverse ? length - 1 - step : step;
    for (size_t k = 0; k < xs; ++k)
      state[carries + k] = row(whole[k], whole[k]->bytes(), t);
    for (size_t k = 0; k < stacked.size(); ++k)
      results[carries + k] = row(stacked[k], s.out_bytes[carries + k], t);
    turns.place(results);
    std::vector<BufferPtr> next = run(body, state, results, carries, arena.get());
    turns.advance(state, next);
  }
  state.resize(carries);
  state.insert(state.end(), stacked.begin(), stacked.end());
  return state;
}

std::vector<BufferPtr> run_case(const Step &s, const std::vector<BufferPtr> &in) {
  const int64_t last = int64_t(s.regions.size()) - 1;
  const int64_t index = std::clamp<int64_t>(*in[0]->as<int32_t>(), 0, last);
  return run(*s.regions[size_t(index)], {in.begin() + 1, in.end()});
}

} // namespace

namespace {

// n elements on the stack up to N (a loop body runs once per iteration, and most programs have few
// slots and kernels few buffers: the heap's malloc and free were a third of a small body's
// time), on the heap past that. Default-initialized (pointers left unset, each written before it
// is read): zeroing them with rep stos was a sixth of a small body's time.
template <class T, size_t N> class SmallArray {
public:
  explicit SmallArray(size_t n)
      : size_(n), data_(n > N ? new T[n] : reinterpret_cast<T *>(local_)) {
    if (n <= N) std::uninitialized_default_construct_n(data_, n);
  }
  SmallArray(const SmallArray &) = delete;
  SmallArray &operator=(const SmallArray &) = delete;
  ~SmallArray() {
    if (size_ > N)
      delete[] data_;
    else
      std::destroy_n(data_, size_);
  }
  T &operator[](size_t i) { return data_[i]; }
  T *data() { return data_; }

private:
  alignas(T) unsigned char local_[N * sizeof(T)];
  size_t size_;
  T *data_;
};

// The trace's view of a box: its bounds, and the device whose box holds it.
std::string box_args(const Step &s, const int64_t *box, size_t rank) {
  std::string text = "\"box\": [";
  for (size_t a = 0; a < 2 * rank; ++a)
    text += (a ? ", " : "") + std::to_string(box[a]);
  text += "]";
  for (size_t b = 0; b < s.box_devices.size(); ++b) {
    const int64_t *device_box = s.boxes.data() + b * 2 * rank;
    bool inside = true;
    for (size_t a = 0; a < rank; ++a)
      inside = inside && box[2 * a] >= device_box[2 * a] && box[2 * a + 1] <= device_box[2 * a + 1];
    if (inside) return text + ", \"device\": " + std::to_string(s.box_devices[b]);
  }
  return text;
}

int64_t exchange_bytes(const std::vector<Message> &messages) {
  int64_t bytes = 0;
  for (const Message &m : messages)
    bytes += m.elements() * int64_t(m.itemsize);
  return bytes;
}

} // namespace

std::vector<BufferPtr> run(const Program &program, const std::vector<BufferPtr> &args,
                           const std::vector<BufferPtr> &results, size_t owned_args,
                           Buffer *arena) {
  // Slots with buffers of their own, every slot's address (where kernels index from: a
  // window's base) and its memory (what messages are read from and written to).
  SmallArray<BufferPtr, 16> slots(size_t(program.slot_count));
  SmallArray<void *, 16> address(size_t(program.slot_count)), storage(size_t(program.slot_count));
  // Output slots computed into the caller's buffers (as the first output of a slot returned
  // twice asks: into its buffer, or anywhere).
  const bool any_given = !results.empty();
  SmallArray<BufferPtr, 16> given(any_given ? size_t(program.slot_count) : 0);
  {
    SmallArray<char, 16> claimed(any_given ? size_t(program.slot_count) : 0);
    std::fill_n(claimed.data(), any_given ? size_t(program.slot_count) : 0, 0);
    for (size_t i = 0; i < results.size(); ++i)
      if (const auto slot = size_t(program.outputs[i]); !claimed[slot]) {
        claimed[slot] = true;
        given[slot] = results[i];
      }
  }
  BufferPtr own_arena;
  if (program.arena_bytes && !arena) {
    own_arena = make_buffer(program.arena_bytes);
    arena = own_arena.get();
    trace::counter("arena bytes", double(program.arena_bytes));
  }
  const bool windowed = !program.layouts.empty();
  auto hold = [&](int slot, BufferPtr b) {
    address[size_t(slot)] = b->base();
    // Messages address the slot's window, which a buffer that serves it may hold within more.
    storage[size_t(slot)] = windowed ? static_cast<char *>(b->base()) +
                                           program.layouts[size_t(slot)].window.origin() *
                                               int64_t(program.layouts[size_t(slot)].itemsize)
                                     : b->data();
    slots[size_t(slot)] = std::move(b);
  };
  // A buffer from elsewhere (an argument, a region's result): kept where it serves the slot's
  // window, else copied into one of the slot's own.
  auto adopt = [&](int slot, BufferPtr b) {
    if (windowed && !serves(*b, program.layouts[size_t(slot)]))
      b = refit(*b, program.layouts[size_t(slot)]);
    hold(slot, std::move(b));
  };
  auto place = [&](int slot, size_t bytes) {
    const BufferPtr &mine = any_given ? given[size_t(slot)] : nullptr;
    if (mine && (!windowed || serves(*mine, program.layouts[size_t(slot)])))
      hold(slot, mine);
    else if (windowed)
      hold(slot, make_buffer(program.layouts[size_t(slot)]));
    else if (program.arena_offset[size_t(slot)] >= 0)
      address[size_t(slot)] =
          static_cast<char *>(arena->data()) + program.arena_offset[size_t(slot)];
    else
      hold(slot, make_buffer(bytes));
  };
  // Whether step s is the last to read slot, and reads it once.
  auto dies_at = [](const Step &s, int slot) {
    return std::count(s.frees.begin(), s.frees.end(), slot) == 1 &&
           std::count(s.inputs.begin(), s.inputs.end(), slot) == 1;
  };
  // Output r of a kernel or library step: a donated argument's memory where the plan gives it one
  // and nothing but the caller's array (unless owned), args and (until freed) its slot refer
  // to it, else a place of its own.
  auto output = [&](const Step &s, size_t r) {
    const int out = s.outs[r], donor = s.donors.empty() ? -1 : s.donors[r];
    const long exclusive = (donor >= 0 && size_t(donor) < owned_args ? 1 : 2) +
                           (donor >= 0 && slots[size_t(s.donor_slots[r])] != nullptr);
    const bool anywhere = !any_given || !given[size_t(out)];
    // An update's operand in a buffer of its own that dies here and nothing else holds: the
    // output's.
    const int from = s.update_input >= 0 ? s.inputs[size_t(s.update_input)] : -1;
    if (donor >= 0 && anywhere && args.at(size_t(donor)).use_count() == exclusive &&
        !args[size_t(donor)]->deleted())
      hold(out, Buffer::take(*args[size_t(donor)]));
    else if (r == 0 && from >= 0 && anywhere && !windowed && slots[size_t(from)] &&
             slots[size_t(from)].use_count() == 1 && dies_at(s, from))
      hold(out, slots[size_t(from)]);
    else
      place(out, s.out_bytes[r]);
    return address[size_t(out)];
  };
  // A loop's initial carry from a slot that dies at the loop: handed over, so that the loop alone
  // holds it and its first iteration updates it in place (an outer loop's carry passed to an inner
  // loop, XLA's while-in-while aliasing). An owned argument (an outer loop's carry) is taken from
  // it as a donation; a buffer something else still holds is shared, and copied before any write.
  auto hand_over = [&](const Step &s, int slot) -> BufferPtr {
    BufferPtr &held = slots[size_t(slot)];
    if (windowed || !dies_at(s, slot) || !held) return held;
    BufferPtr b = std::move(held);
    const auto owned_end = args.begin() + std::ptrdiff_t(std::min(owned_args, args.size()));
    if (b.use_count() == 2 && !b->deleted() && std::count(args.begin(), owned_end, b) == 1 &&
        std::count(owned_end, args.end(), b) == 0)
      return Buffer::take(*b);
    return b;
  };
  const std::shared_ptr<Communicator> comm = program.distributed ? communicator() : nullptr;
  // The messages of a step: waited for (the wait, and what came, in the trace).
  auto finish = [&](const Step &s, Communicator::Pending &pending) {
    trace::Span span("transfer", "wait for messages");
    if (span.active())
      span.set_args("\"bytes received\": " + std::to_string(exchange_bytes(s.exchange.recvs)) +
                    ", \"bytes sent\": " + std::to_string(exchange_bytes(s.exchange.sends)));
    comm->finish(pending);
  };
  for (const Step &s : program.steps) {
    trace::Span step("step");
    if (step.active()) {
      step.set_name(s.name.empty() ? step_kind_name(s.kind) : s.name);
      step.set_args("\"kind\": \"" + std::string(step_kind_name(s.kind)) +
                    "\", \"slot\": " + std::to_string(s.outs.empty() ? -1 : s.outs[0]));
    }
    // Started here, finished before the step's first read of what it brings.
    std::unique_ptr<Communicator::Pending> pending;
    if (comm && !s.exchange.empty()) pending = comm->start(s.exchange, storage.data());
    if (pending && s.early_tasks.empty()) finish(s, *pending);
    switch (s.kind) {
    case Step::Kind::Value: adopt(s.outs[0], s.value()); break;
    case Step::Kind::Argument: {
      // The caller's array, widened once to the margins this program reads around its shards
      // (where that keeps its strides): later calls read it in place.
      const BufferPtr &arg = args.at(size_t(s.argument));
      if (windowed && !serves(*arg, program.layouts[size_t(s.outs[0])]))
        widen(*arg, program.layouts[size_t(s.outs[0])]);
      adopt(s.outs[0], arg);
      break;
    }
    case Step::Kind::Fill: {
      place(s.outs[0], s.out_bytes[0]);
      // Split across the pool: an element's bits depend only on its index.
      void *out = address[size_t(s.outs[0])];
      default_pool().parallel_for(
          0, shape_size(s.extent), 1 << 16, [&](int64_t begin, int64_t end) {
            random_impl::uniform01_range({s.key_hi, s.key_lo}, s.dtype, out, begin, end);
          });
      break;
    }
    case Step::Kind::Contraction: {
      place(s.outs[0], s.out_bytes[0]);
      const void *lhs = address[size_t(s.inputs[0])], *rhs = address[size_t(s.inputs[1])];
      void *out = address[size_t(s.outs[0])];
      const int64_t *tiles = s.tasks.data();
      // Tiles of a product cut along k write partial sums, added to the output after.
      const int64_t partials = gemm_partials(s.tasks);
      const size_t partial_bytes = size_t(s.gemm.batch * s.gemm.m * s.gemm.n) * itemsize(s.dtype);
      std::optional<Buffer> scratch;
      if (partials > 0) scratch.emplace(size_t(partials) * partial_bytes);
      default_pool().run_batch(int64_t(s.tasks.size() / gemm_tile_words), [&](int64_t t) {
        const int64_t *tile = tiles + gemm_tile_words * t;
        void *to = tile[7] == 0 ? out : scratch->as<char>() + size_t(tile[7] - 1) * partial_bytes;
        gemm_tile(s.gemm, s.dtype, tile, lhs, rhs, to);
      });
      if (partials > 0) gemm_sum_partials(s.gemm, s.dtype, out, scratch->data(), partials);
      break;
    }
    case Step::Kind::Library: {
      std::vector<const void *> inputs;
      for (int in : s.inputs)
        inputs.push_back(address[size_t(in)]);
      run_library(s.library, s.dtype, s.extent, inputs, output(s, 0));
      break;
    }
    case Step::Kind::Kernel: {
      // outputs, inputs, literals; the inputs' addresses taken before an output takes one's
      // memory
      const size_t outs = s.outs.size();
      SmallArray<void *, 16> buffers(outs + s.inputs.size() + 1);
      for (size_t k = 0; k < s.inputs.size(); ++k)
        buffers[outs + k] = address[size_t(s.inputs[k])];
      for (size_t r = 0; r < outs; ++r)
        buffers[r] = output(s, r);
      if (s.update_input >= 0)
        copy_unless_same(buffers[outs + size_t(s.update_input)], buffers[0], s.out_bytes[0]);
      if (!s.kernel) break;
      buffers[outs + s.inputs.size()] = const_cast<uint64_t *>(s.literals.data());
      const KernelFn fn = s.kernel;
      const size_t rank = s.extent.size();
      if (!s.boxes.empty()) {
        // Each device's box, in the tasks planned for it: those that read no message first.
        auto run_tasks = [&](const std::vector<int64_t> &list) {
          const int64_t *tasks = list.data();
          default_pool().run_batch(int64_t(list.size() / (2 * rank)), [&](int64_t t) {
            trace::Span task("task");
            if (task.active()) {
              task.set_name(s.name);
              task.set_args(box_args(s, tasks + t * int64_t(2 * rank), rank));
            }
            fn(tasks + t * int64_t(2 * rank), buffers.data());
          });
        };
        run_tasks(s.early_tasks);
        if (pending) finish(s, *pending);
        run_tasks(s.tasks);
        break;
      }
      default_pool().parallel_for(0, s.outer, s.grain, [&](int64_t begin, int64_t end) {
        trace::Span task("task");
        if (task.active()) {
          task.set_name(s.name);
          task.set_args("\"rows\": [" + std::to_string(begin) + ", " + std::to_string(end) + "]");
        }
        // Rows [begin, end), every other axis whole; on the stack for the usual ranks.
        int64_t local[16];
        std::vector<int64_t> heap(rank > 8 ? 2 * rank : 0);
        int64_t *box = heap.empty() ? local : heap.data();
        box[0] = begin;
        box[1] = end;
        for (size_t axis = 1; axis < rank; ++axis) {
          box[2 * axis] = 0;
          box[2 * axis + 1] = s.extent[axis];
        }
        fn(box, buffers.data());
      });
      break;
    }
    case Step::Kind::While:
    case Step::Kind::Case:
    case Step::Kind::Scan: {
      std::vector<BufferPtr> in;
      for (int slot : s.inputs)
        in.push_back(s.kind == Step::Kind::Case ? slots[size_t(slot)] : hand_over(s, slot));
      const std::vector<BufferPtr> out = s.kind == Step::Kind::While  ? run_while(s, std::move(in))
                                         : s.kind == Step::Kind::Scan ? run_scan(s, std::move(in))
                                                                      : run_case(s, in);
      for (size_t r = 0; r < s.outs.size(); ++r)
        adopt(s.outs[r], out[r]);
      break;
    }
    }
    if (pending) finish(s, *pending);
    for (int f : s.frees)
      slots[size_t(f)].reset();
  }
  if (comm && !program.gather.empty()) {
    trace::Span span("transfer", "gather outputs");
    if (span.active())
      span.set_args("\"bytes received\": " + std::to_string(exchange_bytes(program.gather.recvs)));
    comm->exchange(program.gather, storage.data());
  }
  std::vector<BufferPtr> out;
  for (int o : program.outputs)
    out.push_back(slots[size_t(o)]);
  // Outputs not computed into the caller's buffer: arguments, constants, repeated outputs.
  for (size_t i = 0; i < results.size(); ++i)
    if (results[i] && out[i] != results[i]) {
      if (windowed) {
        const Program::Layout &layout = program.layouts[size_t(program.outputs[i])];
        copy_window(out[i]->as<char>(), out[i]->holds(layout.shape), results[i]->as<char>(),
                    results[i]->holds(layout.shape), layout.itemsize);
      } else if (results[i]->bytes()) {
        std::memcpy(results[i]->data(), out[i]->data(), results[i]->bytes());
      }
      out[i] = results[i];
    }
  return out;
}

} // namespace jx::runtime
