// linear_road (Troupe plain actors): --replicas actors per operator, one
// message per tuple, each actor routing to the next operators' replicas:
//
//   source (by vehicle) -> dispatcher -+-> toll notification (by expressway)
//                                      +-> average speed (by vehicle)
//                                      |     -> last average speed (by segment) -> toll
//                                      +-> count vehicles (by segment) -> toll
//   toll notification -> sink
//
// Toll notification has a handler per message type (report, LAV, count,
// accident) and ends when all 3R replicas upstream have ended.

#include "streaming/common/linear_road.hpp"
#include "streaming/troupe-actors/actors.hpp"

TROUPE_BEGIN_TYPE_ID_BLOCK(streaming_linear_road, troupe::id_block::streaming_actors::end)
  TROUPE_ADD_TYPE_ID(streaming_linear_road, (streaming::linear_road::report_line))
  TROUPE_ADD_TYPE_ID(streaming_linear_road, (streaming::linear_road::position_report))
  TROUPE_ADD_TYPE_ID(streaming_linear_road, (streaming::linear_road::vehicle_speed))
  TROUPE_ADD_TYPE_ID(streaming_linear_road, (streaming::linear_road::lav_update))
  TROUPE_ADD_TYPE_ID(streaming_linear_road, (streaming::linear_road::car_count))
  TROUPE_ADD_TYPE_ID(streaming_linear_road, (streaming::linear_road::accident))
  TROUPE_ADD_TYPE_ID(streaming_linear_road, (streaming::linear_road::toll_notification))
TROUPE_END_TYPE_ID_BLOCK(streaming_linear_road)

using namespace streaming;
using namespace streaming::actors;
using namespace streaming::linear_road;

int main(int argc, char** argv) {
  run_options opts{argc, argv, {input_size}};
  auto lines = generate(opts["lines"]);
  lines.resize(opts.tuples_to_replay(lines.size()));
  auto r = opts.replicas();
  auto parts = partition(lines.size(), r, [&](size_t i) { return line_key(lines[i]); });
  std::vector<sink> sinks(r);
  double seconds = 0;
  {
    troupe::actor_system_config cfg;
    configure(cfg, opts.threads());
    troupe::actor_system sys{cfg};
    troupe::scoped_actor self{sys};
    auto to_sinks = spawn_sinks<toll_notification>(sys, r, sinks, self);
    auto tolls = spawn_replicas<node<toll_notifier, output<toll_notification>, position_report,
                                     lav_update, car_count, accident>>(
      sys, r, 3 * r, output<toll_notification>{to_sinks, route::forward});
    output<toll_input> to_tolls{tolls, route::by_key, [](const toll_input& x) { return toll_key(x); }};
    auto counts = spawn_replicas<node<count_vehicles, output<toll_input>, position_report>>(
      sys, r, r, to_tolls);
    auto lavs = spawn_replicas<node<last_average_speed, output<toll_input>, vehicle_speed>>(
      sys, r, r, to_tolls);
    auto speeds = spawn_replicas<node<average_speed, output<vehicle_speed>, position_report>>(
      sys, r, r,
      output<vehicle_speed>{lavs, route::by_key, [](const vehicle_speed& v) {
                              return segment_key(v.xway, v.dir, v.seg);
                            }});
    using dispatch_out = fan_out<output<toll_input>, output<position_report>,
                                 output<position_report>>;
    auto dispatchers = spawn_replicas<node<dispatcher, dispatch_out, report_line>>(
      sys, r, r,
      dispatch_out{to_tolls,
                   output<position_report>{speeds, route::by_key,
                                           [](const position_report& p) {
                                             return vehicle_key(p.vid);
                                           }},
                   output<position_report>{counts, route::by_key,
                                           [](const position_report& p) {
                                             return segment_key(p.xway, p.dir, p.seg);
                                           }}});
    run_timer timer;
    timer.start();
    for (size_t i = 0; i < r; ++i)
      spawn_source(sys, parts[i].size(), opts.rate() / r,
                   output<report_line>{dispatchers, route::by_key,
                                       [](const report_line& x) { return line_key(x.text); }},
                   [&lines, &part = parts[i]](uint64_t k, int64_t ts) {
                     return report_line{lines[part[k]], ts};
                   });
    await_sinks(self, r);
    seconds = timer.stop();
  }
  for (size_t i = 1; i < r; ++i)
    sinks[0].merge(sinks[i]);
  return report(opts, lines.size(), seconds, sinks[0], expected(lines));
}
