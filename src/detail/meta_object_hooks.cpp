#include "troupe/detail/meta_object_hooks.hpp"

#include "troupe/error.hpp"
#include "troupe/type_id.hpp"

#define TROUPE_DEFINE_BUILTIN_HOOKS(type)                                      \
  template bool troupe::detail::save_hook<troupe::binary_serializer, type>(    \
    troupe::binary_serializer&, const void*);                                  \
  template bool troupe::detail::load_hook<troupe::binary_deserializer, type>(  \
    troupe::binary_deserializer&, void*);                                      \
  template bool troupe::detail::save_hook<troupe::json_writer, type>(          \
    troupe::json_writer&, const void*);                                        \
  template bool troupe::detail::load_hook<troupe::json_reader, type>(          \
    troupe::json_reader&, void*);

TROUPE_BUILTIN_SERIALIZABLE_TYPES(TROUPE_DEFINE_BUILTIN_HOOKS)
