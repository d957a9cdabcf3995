#include "tests/support/linearizability/written_values.h"

#include <stdexcept>

namespace kapi::test_support::linearizability {

WrittenValues::WrittenValues(const History& history) : history_(history), revisions_(history.size(), 0) {
  for (std::size_t i = 0; i < history.size(); ++i) {
    const Operation& operation = history[i];
    if (operation.verb != Verb::Create && operation.verb != Verb::Update) continue;
    if (!writers_[operation.key].emplace(operation.value, i).second) {
      throw std::invalid_argument("two writes of " + operation.key + " wrote " + operation.value +
                                  ": a history's values must name their writes");
    }
    if (operation.outcome == Outcome::Ok) revisions_[i] = operation.revision;
  }
  for (std::size_t i = 0; i < history.size(); ++i) {
    const Operation& operation = history[i];
    if (operation.outcome != Outcome::Ok) continue;
    if (operation.verb == Verb::Get && operation.found) learn(history, i, operation.key, *operation.found);
    if (operation.verb == Verb::List) {
      for (const auto& [key, object] : operation.items) learn(history, i, key, object);
    }
  }
}

std::optional<std::size_t> WrittenValues::writer(const std::string& key, const std::string& value) const {
  const auto on_key = writers_.find(key);
  if (on_key == writers_.end()) return std::nullopt;
  const auto found = on_key->second.find(value);
  if (found == on_key->second.end()) return std::nullopt;
  return found->second;
}

std::string WrittenValues::unwritten(const std::string& key, const std::string& value) const {
  const std::optional<std::size_t> write = writer(key, value);
  if (!write) return "no write of " + key + " wrote " + value;
  if (failed(history_[*write])) {
    return "the write of " + value + " failed: " + describe(history_[*write], origin_of(history_));
  }
  return {};
}

void WrittenValues::learn(const History& history, std::size_t reader, const std::string& key, const Versioned& object) {
  const std::optional<std::size_t> write = writer(key, object.value);
  if (!write || failed(history[*write])) return;  // a read of what no write produced: the checks report it
  Revision& revision = revisions_[*write];
  if (revision == 0) {
    revision = object.revision;
  } else if (revision != object.revision && disagreement_.empty()) {
    const Clock::time_point origin = origin_of(history);
    disagreement_ = key + "=" + object.value + " was read at resourceVersion " + std::to_string(object.revision) +
                    " but written at " + std::to_string(revision) + ":\n  " + describe(history[reader], origin) +
                    "\n  " + describe(history[*write], origin);
  }
}

}  // namespace kapi::test_support::linearizability
