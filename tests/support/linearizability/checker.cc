// check_history: the reads checked against what was written, the revisions checked across keys, then each key's
// operations searched for a linearization (wing_gong.h); a key that has none is reported with the shortest prefix
// of its history that already has none.
#include "tests/support/linearizability/checker.h"

#include "tests/support/linearizability/wing_gong.h"
#include "tests/support/linearizability/written_values.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace kapi::test_support::linearizability {
namespace {

Verdict failure(std::string key, std::string explanation) {
  return {Verdict::Result::NotLinearizable, std::move(key), std::move(explanation), 0};
}

std::optional<Clock::time_point> return_of(const Operation& operation) {
  if (operation.outcome == Outcome::Unknown) return std::nullopt;
  return operation.returned;
}

bool before(const Operation& first, const Operation& second) {
  const std::optional<Clock::time_point> returned = return_of(first);
  return returned && *returned < second.call;
}

// A read of a value that no write which may have taken effect wrote.
std::string read_of_unwritten(const History& history, const WrittenValues& written) {
  const Clock::time_point origin = origin_of(history);
  for (const Operation& operation : history) {
    if (operation.outcome != Outcome::Ok) continue;
    std::vector<std::pair<std::string, const Versioned*>> read;
    if (operation.verb == Verb::Get && operation.found) read.emplace_back(operation.key, &*operation.found);
    if (operation.verb == Verb::List) {
      for (const auto& [key, object] : operation.items) read.emplace_back(key, &object);
    }
    for (const auto& [key, object] : read) {
      if (std::string why = written.unwritten(key, object->value); !why.empty()) {
        return "read of a value never written (" + why + "):\n  " + describe(operation, origin);
      }
    }
  }
  return {};
}

// Revisions across keys: every write has its own, writes ordered in real time have increasing ones, and a LIST's
// revision lies after every write that finished before it began and before every write that began after it ended.
std::string revision_order(const History& history, const std::vector<Revision>& revisions) {
  const Clock::time_point origin = origin_of(history);
  auto show = [&](std::size_t index) { return "\n  " + describe(history[index], origin); };
  std::vector<std::size_t> writes;
  std::vector<std::size_t> lists;
  for (std::size_t i = 0; i < history.size(); ++i) {
    if (revisions[i] != 0) writes.push_back(i);
    if (history[i].verb == Verb::List && history[i].outcome == Outcome::Ok) lists.push_back(i);
  }
  std::map<Revision, std::size_t> by_revision;
  for (const std::size_t write : writes) {
    if (auto [other, fresh] = by_revision.emplace(revisions[write], write); !fresh) {
      return "two writes at resourceVersion " + std::to_string(revisions[write]) + ":" + show(other->second) +
             show(write);
    }
  }
  for (const std::size_t first : writes) {
    for (const std::size_t second : writes) {
      if (before(history[first], history[second]) && revisions[first] >= revisions[second]) {
        return "a write that began after another ended has a resourceVersion no higher:" + show(first) + show(second);
      }
    }
  }
  for (const std::size_t list : lists) {
    const Revision seen = history[list].revision;
    for (const std::size_t write : writes) {
      if (before(history[write], history[list]) && revisions[write] > seen) {
        return "a LIST is older than a write that ended before it began:" + show(write) + show(list);
      }
      if (before(history[list], history[write]) && revisions[write] <= seen) {
        return "a write that began after a LIST ended is not newer than the LIST:" + show(list) + show(write);
      }
    }
    for (const std::size_t later : lists) {
      if (before(history[list], history[later]) && history[later].revision < seen) {
        return "a LIST is older than a LIST that ended before it began:" + show(list) + show(later);
      }
    }
  }
  return {};
}

// What the history did to `key`, and what its LISTs said of it; values interned as their writes' indices. Reads
// without an answer say nothing and are left out.
std::vector<KeyOperation> operations_of(const std::string& key, const History& history, const WrittenValues& written) {
  auto seen = [&](KeyOperation& read, const Versioned* object) {
    if (object == nullptr) return;
    read.seen_value = static_cast<int>(*written.writer(key, object->value));
    read.seen_revision = object->revision;
  };
  std::set<Revision> known(written.revisions().begin(), written.revisions().end());
  known.erase(0);
  std::vector<KeyOperation> operations;
  for (std::size_t i = 0; i < history.size(); ++i) {
    const Operation& operation = history[i];
    KeyOperation projected;
    projected.source = i;
    projected.verb = operation.verb;
    projected.outcome = operation.outcome;
    projected.call = operation.call;
    projected.returned = return_of(operation);
    if (operation.verb == Verb::List) {
      if (operation.outcome != Outcome::Ok) continue;
      projected.revision = operation.revision;
      const auto item = operation.items.find(key);
      seen(projected, item == operation.items.end() ? nullptr : &item->second);
    } else if (operation.key != key) {
      continue;
    } else if (operation.verb == Verb::Get) {
      if (operation.outcome != Outcome::Ok && operation.outcome != Outcome::NotFound) continue;
      seen(projected, operation.found ? &*operation.found : nullptr);
    } else {
      projected.precondition = operation.precondition;
      projected.precondition_known = operation.precondition && known.contains(*operation.precondition);
      if (operation.verb != Verb::Delete) {
        projected.value = static_cast<int>(i);
        projected.revision = written.revisions()[i];
      }
    }
    operations.push_back(projected);
  }
  return operations;
}

// The history of one key as it stood at `cut`: what was called by then, with what returned later left open.
std::vector<KeyOperation> cut_at(const std::vector<KeyOperation>& operations, Clock::time_point cut) {
  std::vector<KeyOperation> prefix;
  for (KeyOperation operation : operations) {
    if (operation.call > cut) continue;
    if (operation.returned && *operation.returned > cut) operation.returned.reset();
    prefix.push_back(operation);
  }
  return prefix;
}

std::string explain(const std::string& key, const History& history, const std::vector<KeyOperation>& operations,
                    std::size_t max_states) {
  // Linearizability is prefix-closed, so the earliest return after which no linearization exists can be bisected.
  std::vector<Clock::time_point> returns;
  for (const KeyOperation& operation : operations) {
    if (operation.returned) returns.push_back(*operation.returned);
  }
  std::sort(returns.begin(), returns.end());
  auto fails = [&](Clock::time_point cut) {
    return search_linearization(cut_at(operations, cut), max_states).verdict != SearchResult::Verdict::Linearizable;
  };
  const auto first_failing =
      std::partition_point(returns.begin(), returns.end(), [&](Clock::time_point cut) { return !fails(cut); });
  const Clock::time_point cut = first_failing == returns.end() ? Clock::time_point::max() : *first_failing;
  const std::vector<KeyOperation> prefix = cut_at(operations, cut);
  const SearchResult result = search_linearization(prefix, max_states);

  const Clock::time_point origin = origin_of(history);
  auto show = [&](const KeyOperation& operation) {
    std::string line = "\n  " + describe(history[operation.source], origin);
    if (!operation.returned && history[operation.source].outcome != Outcome::Unknown) line += " (open at the cut)";
    return line;
  };
  char until[48];
  std::snprintf(until, sizeof until, "+%.3f ms", std::chrono::duration<double, std::milli>(cut - origin).count());
  std::string text = "key " + key + ": no linearization of its " + std::to_string(prefix.size()) +
                     " operations up to " + until +
                     " (the shortest failing prefix; each LIST counts for what it said of " + key + "):";
  for (const KeyOperation& operation : prefix) text += show(operation);
  text += "\nlongest linearizable order found (" + std::to_string(result.linearization.size()) + " operations):";
  for (const std::size_t index : result.linearization) text += show(prefix[index]);
  if (result.blocked)
    text += "\nafter which this one cannot be placed before its return:" + show(prefix[*result.blocked]);
  return text;
}

}  // namespace

Verdict check_history(const History& history, CheckOptions options) {
  const WrittenValues written(history);
  if (std::string why = read_of_unwritten(history, written); !why.empty()) return failure("", why);
  if (!written.disagreement().empty()) return failure("", written.disagreement());
  if (std::string why = revision_order(history, written.revisions()); !why.empty()) return failure("", why);

  std::set<std::string> keys;
  for (const Operation& operation : history) {
    if (!operation.key.empty()) keys.insert(operation.key);
    for (const auto& [key, object] : operation.items) keys.insert(key);
  }
  Verdict verdict;
  for (const std::string& key : keys) {
    const std::vector<KeyOperation> operations = operations_of(key, history, written);
    const SearchResult result = search_linearization(operations, options.max_states_per_key);
    verdict.states += result.states;
    if (result.verdict == SearchResult::Verdict::Undecided) {
      return {Verdict::Result::Undecided, key,
              "key " + key + ": no verdict within " + std::to_string(options.max_states_per_key) + " states (" +
                  std::to_string(operations.size()) + " operations)",
              verdict.states};
    }
    if (result.verdict == SearchResult::Verdict::NotLinearizable) {
      Verdict failed = failure(key, explain(key, history, operations, options.max_states_per_key));
      failed.states = verdict.states;
      return failed;
    }
  }
  return verdict;
}

}  // namespace kapi::test_support::linearizability
