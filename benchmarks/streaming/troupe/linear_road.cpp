// linear_road (Troupe streaming): source -> dispatcher, which feeds toll
// notification (by segment), average speed (by vehicle) -> last average
// speed (by segment) -> toll notification, and count vehicles (by segment)
// -> toll notification; toll notification merges the three edges -> sink.
// --replicas replicas of each node.

#include "streaming/common/linear_road.hpp"
#include "streaming/troupe/nodes.hpp"

using namespace streaming;
using namespace streaming::troupe_stream;
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
    troupe::stream::graph g{sys};
    std::atomic<size_t> sources{0}, outs{0};
    auto make = [&lines](size_t i, int64_t ts) { return report_line{lines[i], ts}; };
    auto src = g.add<partitioned_source<report_line, decltype(make)>>(&parts, &sources,
                                                                        opts.rate() / r, make)
                 .replicas(r);
    auto dispatch = g.add<op_node<dispatcher, report_line, position_report>>().replicas(r);
    auto speeds = g.add<op_node<average_speed, position_report, vehicle_speed>>().replicas(r);
    auto lavs = g.add<op_node<last_average_speed, vehicle_speed, toll_input>>().replicas(r);
    auto counts = g.add<op_node<count_vehicles, position_report, toll_input>>().replicas(r);
    auto tolls = g.add<op_node<toll_notifier, toll_input, toll_notification>>().replicas(r);
    auto out = g.add<result_sink<toll_notification>>(&sinks, &outs).replicas(r);
    auto by_toll = troupe::by_key{[](const toll_input& x) { return toll_key(x); }};
    g.connect(src, dispatch,
              troupe::by_key{[](const report_line& x) { return line_key(x.text); }});
    g.connect(dispatch, tolls,
              troupe::by_key{[](const position_report& p) { return toll_key(toll_input{p}); }});
    g.connect(dispatch, speeds,
              troupe::by_key{[](const position_report& p) { return vehicle_key(p.vid); }});
    g.connect(dispatch, counts, troupe::by_key{[](const position_report& p) {
                return segment_key(p.xway, p.dir, p.seg);
              }});
    g.connect(speeds, lavs, troupe::by_key{[](const vehicle_speed& v) {
                return segment_key(v.xway, v.dir, v.seg);
              }});
    g.connect(lavs, tolls, by_toll);
    g.connect(counts, tolls, by_toll);
    g.connect(tolls, out);
    run_timer timer;
    timer.start();
    if (!run(g))
      return 1;
    seconds = timer.stop();
  }
  for (size_t i = 1; i < r; ++i)
    sinks[0].merge(sinks[i]);
  return report(opts, lines.size(), seconds, sinks[0], expected(lines));
}
