#include "troupe/message_builder.hpp"

namespace troupe {

message_builder::element::~element() {
  if (ptr) {
    auto* meta = detail::global_meta_object(id);
    meta->destroy(ptr);
    ::operator delete(ptr);
  }
}

message_builder& message_builder::append_all(const message& msg) {
  auto types = msg.types();
  for (size_t i = 0; i < types.size(); ++i) {
    auto* meta = detail::global_meta_object(types[i]);
    // Raw storage from operator new matches the `new T` of append() for the
    // delete in ~element (no type has extended alignment).
    void* ptr = ::operator new(meta->padded_size);
    try {
      meta->copy_construct(ptr, msg.data_at(i));
    } catch (...) {
      ::operator delete(ptr);
      throw;
    }
    // `elem` owns the copy until the vector does: growing it may throw.
    element elem{types[i], ptr};
    elements_.push_back(std::move(elem));
  }
  return *this;
}

template <class Init>
message message_builder::build(Init init) const {
  std::vector<type_id_t> ids;
  ids.reserve(elements_.size());
  size_t total = 0;
  for (auto& x : elements_) {
    ids.push_back(x.id);
    total += detail::global_meta_object(x.id)->padded_size;
  }
  // Interning may throw, so it runs before any element exists.
  auto types = type_id_list::intern(ids);
  auto* data = detail::message_data::allocate(total);
  message result{data};
  auto* dst = data->storage();
  size_t constructed = 0;
  try {
    for (auto& x : elements_) {
      auto* meta = detail::global_meta_object(x.id);
      init(meta, dst, x.ptr);
      ++constructed;
      dst += meta->padded_size;
    }
  } catch (...) {
    auto* ptr = data->storage();
    for (size_t i = 0; i < constructed; ++i) {
      auto* meta = detail::global_meta_object(ids[i]);
      meta->destroy(ptr);
      ptr += meta->padded_size;
    }
    throw;
  }
  data->set_types(types);
  return result;
}

message message_builder::to_message() const {
  return build([](const detail::meta_object* meta, void* dst, void* src) {
    meta->copy_construct(dst, src);
  });
}

message message_builder::move_to_message() {
  auto result = build([](const detail::meta_object* meta, void* dst, void* src) {
    meta->move_construct(dst, src);
  });
  elements_.clear();
  return result;
}

} // namespace troupe
