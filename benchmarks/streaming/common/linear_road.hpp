#pragma once

// LinearRoad (StreamBenchmarks' operators, after the Linear Road benchmark
// of Arasu et al., VLDB 2004): a variable toll on expressways.
//
//   source -> dispatcher -+-> toll notification (by expressway)    -> sink
//                         +-> average speed (by vehicle)
//                         |     -> last average speed (by segment) -> toll notification
//                         +-> count vehicles (by segment)          -> toll notification
//
// The source replays the benchmark's lines (15 fields, type 0 = position
// report `type,time,vid,speed,xway,lane,dir,seg,pos,...`, types 2 and 3 =
// queries), the dispatcher parses position reports and drops the rest and
// broadcasts each report to three operators. Average speed closes a
// vehicle's mean speed per (segment, minute); last average speed keeps the
// mean of a segment's last 5 minutes (LAV); count vehicles counts the
// distinct vehicles per (segment, minute) and emits counts above 50, and it
// detects accidents: a vehicle that reports the same position 4 times in a
// row is stopped, and two stopped at one position are an accident. Toll
// notification gets all three streams (one input type, `toll_input`) and
// notifies a vehicle whenever it enters a new segment: the toll is
// 2 (count - 50)^2 when the segment's LAV is under 50, its count of the
// previous minute over 50, and no accident is within 4 segments downstream,
// and 0 otherwise.
//
// StreamBenchmarks runs toll notification as three operators (one per input
// kind, sharing no state), nine in all; here it is one operator fed by
// three, seven in all. The notifications a vehicle gets depend on its own
// reports only, which reach the toll operator in order, so they are the
// same in every run; the toll and LAV they carry depend on how the three
// streams interleave (as in any engine without event-time watermarks), so
// the checksum leaves them out. Plain C++17.

#include "streaming/common/stream.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

namespace streaming::linear_road {

/// The size flag of every version, quick / full.
constexpr bench::size_flag input_size{"lines", 100'000, 2'000'000, "input lines"};

constexpr int32_t expressways = 4;
constexpr int32_t segments = 100;         // per expressway and direction
constexpr int32_t segment_feet = 5'280;
constexpr int32_t exit_lane = 4;
constexpr int32_t entry_lane = 0;
constexpr int32_t congestion_count = 50;  // cars per minute above which tolls apply
constexpr int32_t congestion_speed = 50;  // LAV (mph) under which tolls apply
constexpr int32_t accident_reach = 4;     // segments downstream that clear the toll

/// A line of the input, as the source emits it.
struct report_line {
  std::string text;
  int64_t ts;
};

/// A parsed type-0 line.
struct position_report {
  int32_t time; // seconds since the start
  int32_t vid;
  int32_t speed; // mph
  int32_t xway;
  int32_t lane;
  int32_t dir; // 0 east (positions grow), 1 west
  int32_t seg;
  int32_t pos; // feet from the expressway's start
  int64_t ts;
};

/// A vehicle's mean speed in one segment during one minute.
struct vehicle_speed {
  int32_t vid;
  int32_t minute;
  int32_t xway;
  int32_t dir;
  int32_t seg;
  int32_t speed;
  int64_t ts;
};

/// The latest average speed of a segment, to use in `minute`.
struct lav_update {
  int32_t xway;
  int32_t dir;
  int32_t seg;
  int32_t minute;
  int32_t lav;
  int64_t ts;
};

/// The distinct vehicles seen in a segment during a minute, when above 50.
struct car_count {
  int32_t xway;
  int32_t dir;
  int32_t seg;
  int32_t minute;
  int32_t count;
  int64_t ts;
};

/// Two or more vehicles stopped at one position of a segment.
struct accident {
  int32_t xway;
  int32_t dir;
  int32_t seg;
  int32_t minute;
  int64_t ts;
};

/// Everything toll notification receives, from three operators: the
/// dispatcher's reports, last average speed's LAVs, and count vehicles'
/// counts and accidents (each converts implicitly).
using toll_input = std::variant<position_report, lav_update, car_count, accident>;

/// What the sink gets: a vehicle entered a segment and pays `toll`.
struct toll_notification {
  int32_t vid;
  int32_t time;
  int32_t xway;
  int32_t dir;
  int32_t seg;
  int32_t lav;
  int32_t toll;
  int64_t ts;
};

inline int32_t minute_of(int32_t time) noexcept {
  return time / 60 + 1;
}

/// Keys of the edges: a vehicle, a segment, an expressway and direction.
inline uint64_t vehicle_key(int32_t vid) noexcept {
  return static_cast<uint64_t>(vid);
}

inline uint64_t segment_key(int32_t xway, int32_t dir, int32_t seg) noexcept {
  return (static_cast<uint64_t>(xway) << 20) | (static_cast<uint64_t>(dir) << 16)
         | static_cast<uint64_t>(seg);
}

inline uint64_t expressway_key(int32_t xway, int32_t dir) noexcept {
  return (static_cast<uint64_t>(xway) << 1) | static_cast<uint64_t>(dir);
}

/// The key of every input of toll notification: its expressway and
/// direction.
inline uint64_t toll_key(const toll_input& x) noexcept {
  return std::visit([](const auto& v) { return expressway_key(v.xway, v.dir); }, x);
}

/// The sink's checksum covers what does not depend on the interleaving of
/// toll notification's inputs (see the top of this file).
inline uint64_t tuple_hash(const toll_notification& n) noexcept {
  return mix(static_cast<uint64_t>(n.vid) << 32 | static_cast<uint32_t>(n.time))
         ^ segment_key(n.xway, n.dir, n.seg) * 0x9e3779b97f4a7c15ULL;
}

namespace detail {

struct vehicle {
  int32_t vid;
  int32_t xway;
  int32_t dir;
  int32_t lane;
  int32_t pos;
  int32_t left;    // segments until it exits
  int32_t stopped; // reports it still stays stopped
};

inline int32_t segment_of(int32_t pos) noexcept {
  return pos / segment_feet;
}

} // namespace detail

/// `lines` lines in the benchmark's format. 30,000 vehicles are on 4
/// expressways at any time, each reporting every 30 s; a vehicle enters at
/// a random segment, drives 5 to 40 segments at a speed set by how busy its
/// segment is (a tenth of the segments are congested, changing every 10
/// minutes), then leaves and a new vehicle takes its place. Now and then
/// two vehicles stop at one position for 5 reports (an accident). One line
/// in 100 is a query (types 2 and 3), which the dispatcher drops.
inline std::vector<std::string> generate(size_t lines, uint64_t seed = 2004) {
  using detail::vehicle;
  random rng{seed};
  constexpr int32_t active = 30'000;
  constexpr int32_t road = segments * segment_feet;
  int32_t next_vid = 100;
  auto enter = [&](vehicle& v) {
    v.vid = next_vid++;
    v.xway = static_cast<int32_t>(rng.between(0, expressways - 1));
    v.dir = static_cast<int32_t>(rng.between(0, 1));
    v.lane = entry_lane;
    v.pos = static_cast<int32_t>(rng.between(0, road - 1));
    v.left = static_cast<int32_t>(rng.between(5, 40));
    v.stopped = 0;
  };
  // The vehicles that report at second t are those of bucket t % 30.
  std::vector<std::vector<vehicle>> buckets(30);
  for (int32_t i = 0; i < active; ++i) {
    vehicle v{};
    enter(v);
    buckets[static_cast<size_t>(rng.between(0, 29))].push_back(v);
  }
  auto congested = [&](int32_t xway, int32_t dir, int32_t seg, int32_t time) {
    auto h = mix(segment_key(xway, dir, seg) ^ (static_cast<uint64_t>(time / 600) << 40));
    return h % 10 == 0;
  };
  std::vector<std::string> result;
  result.reserve(lines);
  std::string line;
  auto field = [&line](int64_t x) {
    char buffer[24];
    auto end = std::to_chars(buffer, buffer + sizeof buffer, x).ptr;
    line.append(buffer, end);
  };
  for (int32_t time = 0; result.size() < lines; ++time) {
    auto& bucket = buckets[static_cast<size_t>(time % 30)];
    for (size_t i = 0; i < bucket.size() && result.size() < lines; ++i) {
      auto& v = bucket[i];
      int32_t speed = 0;
      if (v.stopped > 0) {
        --v.stopped;
      } else {
        auto seg = detail::segment_of(v.pos);
        speed = static_cast<int32_t>(congested(v.xway, v.dir, seg, time) ? rng.between(10, 45)
                                                                          : rng.between(45, 100));
        int32_t step = speed * 44; // feet in 30 s
        int32_t next = v.dir == 0 ? std::min(road - 1, v.pos + step) : std::max(0, v.pos - step);
        if (detail::segment_of(next) != seg)
          --v.left;
        v.pos = next;
        v.lane = v.left <= 0 || next == 0 || next == road - 1
                   ? exit_lane
                   : static_cast<int32_t>(rng.between(1, 3));
      }
      line.clear();
      for (int64_t x : {int64_t{0}, int64_t{time}, int64_t{v.vid}, int64_t{speed},
                        int64_t{v.xway}, int64_t{v.lane}, int64_t{v.dir},
                        int64_t{detail::segment_of(v.pos)}, int64_t{v.pos}}) {
        field(x);
        line.push_back(',');
      }
      line += "-1,-1,-1,-1,-1,-1";
      result.push_back(line);
      if (v.lane == exit_lane) {
        enter(v);
        if (rng.between(0, 499) == 0) {
          // An accident: this vehicle and a new one stop side by side.
          v.stopped = 5;
          vehicle other = v;
          other.vid = next_vid++;
          other.lane = v.lane = 1;
          buckets[static_cast<size_t>((time + 1) % 30)].push_back(other);
        }
      }
      if (rng.between(0, 99) == 0 && result.size() < lines) {
        line.clear();
        auto type = rng.between(2, 3);
        for (int64_t x : {type, int64_t{time}, int64_t{v.vid}})
          field(x), line.push_back(',');
        line += "-1,-1,-1,-1,-1,-1,";
        field(rng.between(1, 1'000'000));
        line += ",-1,-1,-1,-1,";
        field(rng.between(1, 69));
        result.push_back(line);
      }
    }
  }
  return result;
}

/// The vehicle of a raw line (for partitioning the input among sources).
inline uint64_t line_key(const std::string& line) noexcept {
  auto first = line.find(',');
  auto second = line.find(',', first + 1);
  int32_t vid = 0;
  std::from_chars(line.data() + second + 1, line.data() + line.size(), vid);
  return vehicle_key(vid);
}

/// Parses position reports (type 0) and drops every other line.
class dispatcher {
public:
  template <class Emit>
  void consume(const report_line& x, Emit&& emit) {
    const auto& s = x.text;
    if (s.empty() || s[0] != '0' || (s.size() > 1 && s[1] != ','))
      return;
    int32_t fields[9];
    const char* p = s.data();
    const char* end = s.data() + s.size();
    for (auto& f : fields) {
      auto r = std::from_chars(p, end, f);
      p = r.ptr + 1;
    }
    emit(position_report{fields[1], fields[2], fields[3], fields[4], fields[5], fields[6],
                         fields[7], fields[8], x.ts});
  }
};

/// By vehicle: its mean speed over its reports in one segment and minute,
/// emitted when it moves on (to another segment or minute) and at the end.
class average_speed {
public:
  template <class Emit>
  void consume(const position_report& x, Emit&& emit) {
    auto minute = minute_of(x.time);
    auto [it, inserted] = vehicles_.try_emplace(x.vid);
    auto& v = it->second;
    if (!inserted && (v.minute != minute || v.seg != x.seg || v.xway != x.xway)) {
      close(x.vid, v, x.ts, emit);
      inserted = true;
    }
    if (inserted)
      v = state{minute, x.xway, x.dir, x.seg, 0, 0};
    v.sum += x.speed;
    ++v.reports;
    if (x.lane == exit_lane) {
      close(x.vid, v, x.ts, emit);
      vehicles_.erase(it);
    }
  }

  template <class Emit>
  void on_stop(Emit&& emit) {
    for (auto& [vid, v] : vehicles_)
      close(vid, v, 0, emit);
    vehicles_.clear();
  }

private:
  struct state {
    int32_t minute;
    int32_t xway;
    int32_t dir;
    int32_t seg;
    int32_t sum;
    int32_t reports;
  };

  template <class Emit>
  static void close(int32_t vid, const state& v, int64_t ts, Emit& emit) {
    emit(vehicle_speed{vid, v.minute, v.xway, v.dir, v.seg, v.sum / v.reports, ts});
  }

  std::unordered_map<int32_t, state> vehicles_;
};

/// By segment: the mean of the segment's per-minute average speeds over its
/// last 5 minutes (LAV), emitted for use in the next minute.
class last_average_speed {
public:
  template <class Emit>
  void consume(const vehicle_speed& x, Emit&& emit) {
    auto& minutes = segments_[segment_key(x.xway, x.dir, x.seg)];
    auto it = std::find_if(minutes.begin(), minutes.end(),
                           [&](const bucket& b) { return b.minute >= x.minute; });
    if (it == minutes.end() || it->minute != x.minute)
      it = minutes.insert(it, bucket{x.minute, 0, 0});
    it->sum += x.speed;
    ++it->count;
    while (minutes.front().minute <= minutes.back().minute - 5)
      minutes.pop_front();
    int64_t total = 0;
    for (const auto& b : minutes)
      total += b.sum / b.count;
    auto lav = static_cast<int32_t>(total / static_cast<int64_t>(minutes.size()));
    emit(lav_update{x.xway, x.dir, x.seg, x.minute + 1, lav, x.ts});
  }

private:
  struct bucket {
    int32_t minute;
    int64_t sum;
    int32_t count;
  };

  std::unordered_map<uint64_t, std::deque<bucket>> segments_;
};

/// By segment: distinct vehicles per minute (counts above 50 are emitted),
/// and accidents (two vehicles stopped at one position). Both go to toll
/// notification, so it emits them as `toll_input`.
class count_vehicles {
public:
  template <class Emit>
  void consume(const position_report& x, Emit&& emit) {
    auto minute = minute_of(x.time);
    auto& s = segments_[segment_key(x.xway, x.dir, x.seg)];
    if (minute > s.minute) {
      s.minute = minute;
      s.seen.clear();
    }
    if (minute == s.minute && s.seen.insert(x.vid).second
        && static_cast<int32_t>(s.seen.size()) > congestion_count)
      emit(toll_input{car_count{x.xway, x.dir, x.seg, minute,
                                static_cast<int32_t>(s.seen.size()), x.ts}});
    // Stopped vehicles: the same position in 4 reports in a row.
    auto& stop = s.stops[x.vid];
    if (x.lane == exit_lane) {
      s.stops.erase(x.vid);
      return;
    }
    if (stop.pos == x.pos) {
      if (++stop.repeats == 4) {
        auto& at = s.stopped_at[x.pos];
        at.push_back(x.vid);
        if (at.size() == 2)
          emit(toll_input{accident{x.xway, x.dir, x.seg, minute, x.ts}});
      }
    } else {
      if (stop.repeats >= 4) {
        auto& at = s.stopped_at[stop.pos];
        at.erase(std::remove(at.begin(), at.end(), x.vid), at.end());
      }
      stop = stopping{x.pos, 1};
    }
  }

private:
  struct stopping {
    int32_t pos = -1;
    int32_t repeats = 0;
  };

  struct segment {
    int32_t minute = 0;
    std::unordered_set<int32_t> seen; // vehicles of `minute`
    std::unordered_map<int32_t, stopping> stops;
    std::unordered_map<int32_t, std::vector<int32_t>> stopped_at;
  };

  std::unordered_map<uint64_t, segment> segments_;
};

/// By expressway and direction: the segments' LAVs, counts and accidents,
/// and a notification with the toll whenever a vehicle enters a segment.
class toll_notifier {
public:
  template <class Emit>
  void consume(const toll_input& x, Emit&& emit) {
    if (auto* p = std::get_if<position_report>(&x))
      on_position(*p, emit);
    else if (auto* l = std::get_if<lav_update>(&x))
      lavs_[minute_key(segment_key(l->xway, l->dir, l->seg), l->minute)] = l->lav;
    else if (auto* c = std::get_if<car_count>(&x))
      on_count(*c);
    else
      on_accident(std::get<accident>(x));
  }

private:
  static uint64_t minute_key(uint64_t segment, int32_t minute) noexcept {
    return segment << 20 | static_cast<uint64_t>(minute);
  }

  template <class Emit>
  void on_position(const position_report& p, Emit& emit) {
    if (p.lane == exit_lane) {
      vehicles_.erase(p.vid);
      return;
    }
    auto [it, inserted] = vehicles_.try_emplace(p.vid, p.seg);
    if (!inserted && it->second == p.seg)
      return;
    it->second = p.seg;
    auto minute = minute_of(p.time);
    advance(minute);
    auto segment = segment_key(p.xway, p.dir, p.seg);
    auto lav_it = lavs_.find(minute_key(segment, minute));
    int32_t lav = lav_it == lavs_.end() ? -1 : lav_it->second;
    int32_t toll = 0;
    if (lav >= 0 && lav < congestion_speed) {
      auto count_it = counts_.find(minute_key(segment, minute - 1));
      int32_t count = count_it == counts_.end() ? 0 : count_it->second;
      if (count > congestion_count && !accident_ahead(p, minute))
        toll = 2 * (count - congestion_count) * (count - congestion_count);
    }
    emit(toll_notification{p.vid, p.time, p.xway, p.dir, p.seg, lav, toll, p.ts});
  }

  void on_count(const car_count& c) {
    auto& count = counts_[minute_key(segment_key(c.xway, c.dir, c.seg), c.minute)];
    count = std::max(count, c.count);
  }

  void on_accident(const accident& a) {
    auto& minute = accidents_[segment_key(a.xway, a.dir, a.seg)];
    minute = std::max(minute, a.minute);
  }

  // An accident in this minute or the last, in the segment or the 4 after
  // it in the direction of travel.
  bool accident_ahead(const position_report& p, int32_t minute) const {
    for (int32_t i = 0; i <= accident_reach; ++i) {
      auto seg = p.dir == 0 ? p.seg + i : p.seg - i;
      if (seg < 0 || seg >= segments)
        break;
      auto it = accidents_.find(segment_key(p.xway, p.dir, seg));
      if (it != accidents_.end() && it->second >= minute - 1)
        return true;
    }
    return false;
  }

  // Forgets what is older than 10 minutes, once per minute.
  void advance(int32_t minute) {
    if (minute <= newest_)
      return;
    newest_ = minute;
    auto old = [minute](const auto& kv) {
      return static_cast<int32_t>(kv.first & 0xfffff) < minute - 10;
    };
    for (auto* table : {&lavs_, &counts_})
      for (auto it = table->begin(); it != table->end();)
        it = old(*it) ? table->erase(it) : std::next(it);
  }

  std::unordered_map<int32_t, int32_t> vehicles_; // vid -> its segment
  std::unordered_map<uint64_t, int32_t> lavs_;     // (segment, minute) -> LAV
  std::unordered_map<uint64_t, int32_t> counts_;   // (segment, minute) -> cars
  std::unordered_map<uint64_t, int32_t> accidents_; // segment -> its last minute
  int32_t newest_ = 0;
};

/// The sink's checksum over `lines`, by one plain loop over the same
/// operators (every report reaches toll notification before the streams
/// computed from it, which no parallel run guarantees).
inline uint64_t expected(const std::vector<std::string>& lines) {
  dispatcher dispatch;
  average_speed speeds;
  last_average_speed lavs;
  count_vehicles counts;
  toll_notifier tolls;
  checksum sum;
  auto to_sink = [&](const toll_notification& n) { sum.add(tuple_hash(n)); };
  auto to_tolls = [&](const toll_input& x) { tolls.consume(x, to_sink); };
  auto to_lavs = [&](const vehicle_speed& v) {
    lavs.consume(v, [&](const lav_update& l) { to_tolls(l); });
  };
  for (const auto& line : lines)
    dispatch.consume(report_line{line, 0}, [&](const position_report& p) {
      to_tolls(p);
      speeds.consume(p, to_lavs);
      counts.consume(p, to_tolls);
    });
  speeds.on_stop(to_lavs);
  return sum.value();
}

} // namespace streaming::linear_road
