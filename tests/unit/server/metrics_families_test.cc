// Metric families: label values passed inline (a LabelView, what the request path uses) name the same series as a
// Labels vector, and series render in label order whichever way they were made.
#include "server/metrics/families.h"

#include <gtest/gtest.h>

#include <string>

namespace kapi::metrics::metrics_families_test {
namespace {

TEST(MetricFamilies, InlineLabelValuesNameTheSameSeriesAsALabelsVector) {
  CounterFamily requests("requests_total", "Requests.", {"verb", "code"});
  const std::string verb = "GET";
  requests.inc({verb, "200"});
  requests.inc(Labels{"GET", "200"}, 2);
  requests.inc({std::string_view("GET"), "404"});
  EXPECT_EQ(requests.value({"GET", "200"}), 3);
  EXPECT_EQ(requests.value({"GET", "404"}), 1);
  EXPECT_EQ(requests.value({"GET"}), 0) << "a prefix of the values is another series";

  GaugeFamily executing("executing", "Executing.", {"level"});
  executing.add({"workload-low"}, 2);
  executing.add(Labels{"workload-low"}, -1);
  EXPECT_EQ(executing.value({"workload-low"}), 1);

  HistogramFamily durations("duration_seconds", "Durations.", {"filter"}, {0.1, 1});
  durations.observe({"audit"}, 0.05);
  durations.observe(Labels{"audit"}, 0.5);
  EXPECT_EQ(durations.count({"audit"}), 2u);
  EXPECT_EQ(&durations.series({"audit"}), &durations.series(Labels{"audit"}));
}

TEST(MetricFamilies, SeriesRenderInLabelOrderHoweverTheyWereMade) {
  CounterFamily requests("requests_total", "Requests.", {"code"});
  requests.inc({"500"});
  requests.inc(Labels{"200"});
  requests.inc({"404"});
  std::string out;
  requests.render(out);
  EXPECT_EQ(out,
            "# HELP requests_total Requests.\n# TYPE requests_total counter\n"
            "requests_total{code=\"200\"} 1\nrequests_total{code=\"404\"} 1\nrequests_total{code=\"500\"} 1\n");
}

}  // namespace
}  // namespace kapi::metrics::metrics_families_test
