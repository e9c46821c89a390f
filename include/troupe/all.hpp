#pragma once

// Everything a Troupe program usually needs.

#include "troupe/actor.hpp"
#include "troupe/actor_system.hpp"
#include "troupe/actor_system_config.hpp"
#include "troupe/atoms.hpp"
#include "troupe/behavior.hpp"
#include "troupe/blocking_actor.hpp"
#include "troupe/error.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/expected.hpp"
#include "troupe/logger.hpp"
#include "troupe/mail.hpp"
#include "troupe/message.hpp"
#include "troupe/message_builder.hpp"
#include "troupe/response_promise.hpp"
#include "troupe/result.hpp"
#include "troupe/scoped_actor.hpp"
#include "troupe/stateful_actor.hpp"
#include "troupe/system_messages.hpp"
#include "troupe/type_id.hpp"
#include "troupe/typed_actor.hpp"
