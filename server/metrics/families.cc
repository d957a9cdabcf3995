#include "server/metrics/families.h"

#include "base/go_strconv.h"

#include <openssl/evp.h>

#include <chrono>

namespace kapi::metrics {
namespace {

std::string escape_label(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out.push_back('\\');
    if (c == '\n') {
      out.append("\\n");
      continue;
    }
    out.push_back(c);
  }
  return out;
}

// As Prometheus' Go client writes samples and bucket bounds: strconv's shortest 'g' (0.005, 5e-07, 1.234567e+06).
std::string format_number(double value) { return base::go_format_float(value); }

std::string label_set(const std::vector<std::string>& names, const Labels& values, const std::string& extra = {}) {
  if (names.empty() && extra.empty()) return {};
  std::string out = "{";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out.push_back(',');
    out.append(names[i]).append("=\"").append(escape_label(i < values.size() ? values[i] : "")).append("\"");
  }
  if (!extra.empty()) {
    if (!names.empty()) out.push_back(',');
    out.append(extra);
  }
  out.push_back('}');
  return out;
}

// `by` added to the value of the series `labels` names, made at zero when new (callers hold the family's lock).
void add_to(std::map<Labels, double, LabelsLess>& values, LabelView labels, double by) {
  if (auto it = values.find(labels); it != values.end()) {
    it->second += by;
    return;
  }
  values.emplace(Labels(labels.begin(), labels.end()), by);
}

void header(std::string& out, const std::string& name, const std::string& help, const char* type) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

}  // namespace

CounterFamily::CounterFamily(std::string name, std::string help, std::vector<std::string> label_names)
    : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)) {}

void CounterFamily::inc(const Labels& labels, double by) {
  std::lock_guard lock(mutex_);
  values_[labels] += by;
}

void CounterFamily::inc(LabelView labels, double by) {
  std::lock_guard lock(mutex_);
  add_to(values_, labels, by);
}

double CounterFamily::value(const Labels& labels) const {
  std::lock_guard lock(mutex_);
  auto it = values_.find(labels);
  return it == values_.end() ? 0 : it->second;
}

void CounterFamily::render(std::string& out) const {
  std::lock_guard lock(mutex_);
  header(out, name_, help_, "counter");
  for (const auto& [labels, value] : values_)
    out.append(name_).append(label_set(label_names_, labels)).append(" ").append(format_number(value)).append("\n");
}

GaugeFamily::GaugeFamily(std::string name, std::string help, std::vector<std::string> label_names)
    : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)) {}

void GaugeFamily::set(const Labels& labels, double value) {
  std::lock_guard lock(mutex_);
  values_[labels] = value;
}

void GaugeFamily::add(const Labels& labels, double delta) {
  std::lock_guard lock(mutex_);
  values_[labels] += delta;
}

void GaugeFamily::add(LabelView labels, double delta) {
  std::lock_guard lock(mutex_);
  add_to(values_, labels, delta);
}

double GaugeFamily::value(const Labels& labels) const {
  std::lock_guard lock(mutex_);
  auto it = values_.find(labels);
  return it == values_.end() ? 0 : it->second;
}

void GaugeFamily::render(std::string& out) const {
  std::lock_guard lock(mutex_);
  header(out, name_, help_, "gauge");
  for (const auto& [labels, value] : values_)
    out.append(name_).append(label_set(label_names_, labels)).append(" ").append(format_number(value)).append("\n");
}

HistogramFamily::HistogramFamily(std::string name, std::string help, std::vector<std::string> label_names,
                                 std::vector<double> buckets)
    : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)),
      buckets_(std::move(buckets)) {}

void HistogramFamily::Series::observe(double value) {
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < buckets_.size(); ++i)
    if (value <= buckets_[i]) ++bucket_counts_[i];
  sum_ += value;
  ++count_;
}

HistogramFamily::Series& HistogramFamily::series(const Labels& labels) {
  {
    std::shared_lock lock(mutex_);
    if (auto it = series_.find(labels); it != series_.end()) return *it->second;
  }
  std::unique_lock lock(mutex_);
  std::unique_ptr<Series>& series = series_[labels];
  if (!series) series = std::make_unique<Series>(buckets_);
  return *series;
}

HistogramFamily::Series& HistogramFamily::series(LabelView labels) {
  {
    std::shared_lock lock(mutex_);
    if (auto it = series_.find(labels); it != series_.end()) return *it->second;
  }
  return series(Labels(labels.begin(), labels.end()));
}

std::uint64_t HistogramFamily::count(const Labels& labels) const {
  std::shared_lock lock(mutex_);
  auto it = series_.find(labels);
  if (it == series_.end()) return 0;
  std::lock_guard counts(it->second->mutex_);
  return it->second->count_;
}

void HistogramFamily::render(std::string& out) const {
  std::shared_lock lock(mutex_);
  header(out, name_, help_, "histogram");
  for (const auto& [labels, series] : series_) {
    std::lock_guard counts(series->mutex_);
    for (std::size_t i = 0; i < buckets_.size(); ++i)
      out.append(name_).append("_bucket")
          .append(label_set(label_names_, labels, "le=\"" + format_number(buckets_[i]) + "\""))
          .append(" ").append(std::to_string(series->bucket_counts_[i])).append("\n");
    out.append(name_).append("_bucket").append(label_set(label_names_, labels, "le=\"+Inf\""))
        .append(" ").append(std::to_string(series->count_)).append("\n");
    out.append(name_).append("_sum").append(label_set(label_names_, labels)).append(" ")
        .append(format_number(series->sum_)).append("\n");
    out.append(name_).append("_count").append(label_set(label_names_, labels)).append(" ")
        .append(std::to_string(series->count_)).append("\n");
  }
}

std::string sha256_label(std::string_view data) {
  if (data.empty()) return {};
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "sha256:";
  for (unsigned int i = 0; i < length; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 0xf]);
  }
  return out;
}

double unix_now() {
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration<double>(since_epoch).count();
}

}  // namespace kapi::metrics
