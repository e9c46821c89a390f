#include "troupe/mailbox_element.hpp"

#include "troupe/detail/thread_cache.hpp"

namespace troupe {

void* mailbox_element::operator new(size_t size) {
  return detail::cached_allocate(size);
}

void mailbox_element::operator delete(void* ptr, size_t size) noexcept {
  detail::cached_deallocate(ptr, size);
}

} // namespace troupe
