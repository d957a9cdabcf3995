#include "bench/load/watch_ledger.h"

#include <charconv>

namespace kapi::bench {

WatchLedger::WatchLedger(std::string_view run_key) : marker_("\"" + std::string(run_key) + "\":\"") {}

const StampedEvent* WatchLedger::read_line(std::string_view line) {
  const auto at = line.find(marker_);
  if (at == std::string_view::npos) return nullptr;
  const std::string_view fields = line.substr(at + marker_.size());
  const char* end = fields.data() + fields.size();
  StampedEvent event;
  auto [comma, error] = std::from_chars(fields.data(), end, event.sequence);
  if (error != std::errc{} || comma == end || *comma != ',') return nullptr;
  if (std::from_chars(comma + 1, end, event.sent_nanos).ec != std::errc{}) return nullptr;
  if (seen_.size() <= event.sequence) seen_.resize(event.sequence + 1024, 0);
  if (seen_[event.sequence]) {
    ++duplicates_;
    return nullptr;
  }
  seen_[event.sequence] = 1;
  ++delivered_;
  last_ = event;
  return &last_;
}

std::uint64_t WatchLedger::missing(const std::vector<std::uint8_t>& acknowledged) const {
  std::uint64_t count = 0;
  for (std::uint64_t sequence = 0; sequence < acknowledged.size(); ++sequence)
    if (acknowledged[sequence] && !seen(sequence)) ++count;
  return count;
}

}  // namespace kapi::bench
