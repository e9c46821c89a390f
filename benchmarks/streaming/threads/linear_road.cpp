// linear_road (threads): --replicas threads per operator, bounded SPSC
// queues between every pair of replicas of two connected operators:
//
//   source (by vehicle) -> dispatcher -+-> toll notification (by expressway)
//                                      +-> average speed (by vehicle)
//                                      |     -> last average speed (by segment) -> toll
//                                      +-> count vehicles (by segment) -> toll
//   toll notification -> sink
//
// Toll notification's queues come from three operators: the dispatchers
// take producer indices 0..R-1, last average speed R..2R-1, count vehicles
// 2R..3R-1.

#include "streaming/common/linear_road.hpp"
#include "streaming/threads/graph.hpp"

using namespace streaming;
using namespace streaming::linear_road;

int main(int argc, char** argv) {
  run_options opts{argc, argv, {input_size}};
  auto lines = generate(opts["lines"]);
  lines.resize(opts.tuples_to_replay(lines.size()));
  auto r = opts.replicas();
  auto parts = partition(lines.size(), r, [&](size_t i) { return line_key(lines[i]); });
  threads::pin(opts.threads());
  threads::edge<report_line> to_dispatchers{r, r};
  threads::edge<position_report> to_speeds{r, r};
  threads::edge<position_report> to_counts{r, r};
  threads::edge<vehicle_speed> to_lavs{r, r};
  threads::edge<toll_input> to_tolls{3 * r, r};
  threads::edge<toll_notification> to_sinks{r, r};
  auto by_toll_key = [](const toll_input& x) { return toll_key(x); };
  std::vector<sink> sinks(r);
  run_timer timer;
  timer.start();
  threads::thread_group group;
  for (size_t i = 0; i < r; ++i) {
    group.spawn([&, i] {
      threads::emitter<report_line> out{to_dispatchers, i, threads::route::by_key,
                                        [](const report_line& x) { return line_key(x.text); }};
      threads::produce(parts[i].size(), opts.rate() / r, out, [&](uint64_t k, int64_t ts) {
        return report_line{lines[parts[i][k]], ts};
      });
    });
    group.spawn([&, i] {
      dispatcher op;
      threads::emitter<toll_input> tolls{to_tolls, i, threads::route::by_key, by_toll_key};
      threads::emitter<position_report> speeds{
        to_speeds, i, threads::route::by_key,
        [](const position_report& p) { return vehicle_key(p.vid); }};
      threads::emitter<position_report> counts{
        to_counts, i, threads::route::by_key,
        [](const position_report& p) { return segment_key(p.xway, p.dir, p.seg); }};
      threads::consume(
        to_dispatchers, i,
        [&](const report_line& x) {
          op.consume(x, [&](const position_report& p) {
            tolls(p);
            speeds(p);
            counts(p);
          });
        },
        [&] {
          tolls.flush();
          speeds.flush();
          counts.flush();
        });
      tolls.close();
      speeds.close();
      counts.close();
    });
    group.spawn([&, i] {
      average_speed op;
      threads::emitter<vehicle_speed> out{
        to_lavs, i, threads::route::by_key,
        [](const vehicle_speed& v) { return segment_key(v.xway, v.dir, v.seg); }};
      threads::consume(
        to_speeds, i, [&](const position_report& x) { op.consume(x, out); },
        [&] { out.flush(); });
      op.on_stop(out);
      out.close();
    });
    group.spawn([&, i] {
      last_average_speed op;
      threads::emitter<toll_input> out{to_tolls, r + i, threads::route::by_key, by_toll_key};
      threads::consume(
        to_lavs, i, [&](const vehicle_speed& x) { op.consume(x, out); }, [&] { out.flush(); });
      out.close();
    });
    group.spawn([&, i] {
      count_vehicles op;
      threads::emitter<toll_input> out{to_tolls, 2 * r + i, threads::route::by_key, by_toll_key};
      threads::consume(
        to_counts, i, [&](const position_report& x) { op.consume(x, out); },
        [&] { out.flush(); });
      out.close();
    });
    group.spawn([&, i] {
      toll_notifier op;
      threads::emitter<toll_notification> out{to_sinks, i, threads::route::forward};
      threads::consume(
        to_tolls, i, [&](const toll_input& x) { op.consume(x, out); }, [&] { out.flush(); });
      out.close();
    });
    group.spawn([&, i] {
      threads::consume(to_sinks, i, [&](const toll_notification& x) { sinks[i].consume(x); },
                       [] {});
    });
  }
  group.join();
  auto seconds = timer.stop();
  for (size_t i = 1; i < r; ++i)
    sinks[0].merge(sinks[i]);
  return report(opts, lines.size(), seconds, sinks[0], expected(lines));
}
