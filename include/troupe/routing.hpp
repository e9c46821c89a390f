#pragma once

// Routing: which replica of a farm (a parallel pattern's farm, or a
// replicated stream node) gets an item. Patterns and streams share these
// types.
//
//   round_robin         replicas in turn (the default)
//   random_replica      a uniformly random replica
//   by_key{key}         equal keys always reach the same replica, so a
//                       replica may keep per-key state
//   broadcast           every replica gets every item
//   custom{fn}          fn(item, replicas) returns the replica's index
//
// detail::replica_picker<T, Routing> is the one implementation of the choice
// for items of type T. Each sender owns its own picker (its round-robin
// counter, its random engine), so picking takes no lock.

#include "troupe/detail/callable_trait.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <type_traits>
#include <utility>

namespace troupe {

/// Replicas in turn.
struct round_robin {};

/// A uniformly random replica per item.
struct random_replica {};

/// Every replica gets every item.
struct broadcast {};

/// Equal keys reach the same replica: `key` maps an item to a hashable key.
template <class F>
struct by_key {
  F key;
};

template <class F>
by_key(F) -> by_key<F>;

/// The user's choice: `fn(item, replicas)` returns a replica index (taken
/// modulo the number of replicas).
template <class F>
struct custom {
  F fn;
};

template <class F>
custom(F) -> custom<F>;

namespace detail {

/// The argument type of a key extractor or custom routing.
template <class F>
using routing_arg_t = std::decay_t<
  typename type_list_head<typename callable_trait_t<F>::arg_types>::type>;

template <class T, class Routing>
class replica_picker;

template <class T>
class replica_picker<T, round_robin> {
public:
  explicit replica_picker(round_robin = {}) {}

  size_t operator()(const T&, size_t n) noexcept {
    if (next_ >= n)
      next_ = 0;
    return next_++;
  }

private:
  size_t next_ = 0;
};

template <class T>
class replica_picker<T, random_replica> {
public:
  explicit replica_picker(random_replica = {}) : engine_(std::random_device{}()) {}

  size_t operator()(const T&, size_t n) {
    return std::uniform_int_distribution<size_t>{0, n - 1}(engine_);
  }

private:
  std::minstd_rand engine_;
};

template <class T, class F>
class replica_picker<T, by_key<F>> {
public:
  explicit replica_picker(by_key<F> p) : key_(std::move(p.key)) {}

  size_t operator()(const T& x, size_t n) {
    using key_type = std::decay_t<std::invoke_result_t<F&, const T&>>;
    // std::hash of an integer is the integer itself: keys that share their
    // low bits (all even, say) would all reach one replica. Mix first
    // (SplitMix64's finalizer).
    uint64_t h = std::hash<key_type>{}(std::invoke(key_, x));
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<size_t>((h ^ (h >> 31)) % n);
  }

private:
  F key_;
};

template <class T, class F>
class replica_picker<T, custom<F>> {
public:
  explicit replica_picker(custom<F> p) : fn_(std::move(p.fn)) {}

  size_t operator()(const T& x, size_t n) {
    return static_cast<size_t>(std::invoke(fn_, x, n)) % n;
  }

private:
  F fn_;
};

} // namespace detail

} // namespace troupe
