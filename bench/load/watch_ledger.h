#pragma once
// What one watcher of a bench run has received. The run's writer stamps each object it creates with a data key
// named for the run whose value is "<sequence>,<send time ns>"; the ledger reads the watcher's stream line by line
// (lines may arrive split across reads), remembers which sequences came, counts the ones that came twice, and
// tells which acknowledged writes never came.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::bench {

struct StampedEvent {
  std::uint64_t sequence = 0;
  std::int64_t sent_nanos = 0;
};

class WatchLedger {
 public:
  // `run_key`: the data key the run's writer stamps its objects with.
  explicit WatchLedger(std::string_view run_key);

  // Reads a piece of the watch stream; `on_first_delivery(StampedEvent)` is called for each stamped event seen
  // for the first time. Lines without this run's stamp (older objects, other writers) are skipped.
  template <typename OnFirstDelivery>
  void feed(std::string_view piece, OnFirstDelivery&& on_first_delivery) {
    pending_.append(piece);
    std::size_t start = 0;
    for (auto newline = pending_.find('\n'); newline != std::string::npos; newline = pending_.find('\n', start)) {
      if (auto event = read_line(std::string_view(pending_).substr(start, newline - start))) on_first_delivery(*event);
      start = newline + 1;
    }
    pending_.erase(0, start);
  }

  std::uint64_t delivered() const noexcept { return delivered_; }
  std::uint64_t duplicates() const noexcept { return duplicates_; }
  bool seen(std::uint64_t sequence) const noexcept { return sequence < seen_.size() && seen_[sequence]; }
  // Sequences marked in `acknowledged` (the writes the server confirmed) that this watcher never received.
  std::uint64_t missing(const std::vector<std::uint8_t>& acknowledged) const;

 private:
  // The line's stamp, if it carries one of this run and it is new; duplicates are counted here.
  const StampedEvent* read_line(std::string_view line);

  std::string marker_;   // "\"<run_key>\":\"", followed in a stamped line by "<sequence>,<send time>"
  std::string pending_;  // the start of a line whose end has not arrived
  std::vector<std::uint8_t> seen_;
  StampedEvent last_{};
  std::uint64_t delivered_ = 0;
  std::uint64_t duplicates_ = 0;
};

}  // namespace kapi::bench
