#pragma once

// Makes every thread the process starts fail, for tests of what happens
// when the system refuses a thread: while an `unstartable_threads` lives,
// new threads ask for a stack larger than any address space (through glibc's
// default thread attributes), so pthread_create fails with EAGAIN and
// std::thread throws std::system_error. Threads already running are left
// alone. Create one only while no other thread starts threads.
//
//   troupe::test::unstartable_threads refuse;
//   if (!refuse.active())
//     GTEST_SKIP() << "threads still start here";

#include <cstddef>
#include <system_error>
#include <thread>

#include <pthread.h>

namespace troupe::test {

class unstartable_threads {
public:
  unstartable_threads() {
    if (pthread_getattr_default_np(&old_) != 0)
      return;
    saved_ = true;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    // Half of size_t's range: more than any 64-bit address space holds,
    // whatever the overcommit policy.
    pthread_attr_setstacksize(&attr, ~std::size_t{0} / 2);
    set_ = pthread_setattr_default_np(&attr) == 0;
    pthread_attr_destroy(&attr);
  }

  ~unstartable_threads() {
    if (set_)
      pthread_setattr_default_np(&old_);
    if (saved_)
      pthread_attr_destroy(&old_);
  }

  unstartable_threads(const unstartable_threads&) = delete;
  unstartable_threads& operator=(const unstartable_threads&) = delete;

  /// True if a new thread fails to start indeed (a sanitizer's own
  /// pthread_create may pick its own stack size).
  bool active() const {
    if (!set_)
      return false;
    try {
      std::thread{[] {}}.join();
      return false;
    } catch (const std::system_error&) {
      return true;
    }
  }

private:
  pthread_attr_t old_;
  bool saved_ = false;
  bool set_ = false;
};

} // namespace troupe::test
