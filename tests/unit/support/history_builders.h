#pragma once
// Terse hand-written histories for the linearizability checker's tests: times in milliseconds from the start,
// values named after their writes.
#include "tests/support/linearizability/history.h"

#include <initializer_list>
#include <utility>

namespace kapi::test_support::linearizability::builders {

inline Clock::time_point at(int milliseconds) { return Clock::time_point{} + std::chrono::milliseconds(milliseconds); }

inline Operation operation(int client, Verb verb, std::string key, int call, int returned, Outcome outcome) {
  Operation built;
  built.client = client;
  built.verb = verb;
  built.key = std::move(key);
  built.call = at(call);
  built.returned = at(returned);
  built.outcome = outcome;
  return built;
}

// GET that found `value` at `revision`.
inline Operation get(int client, std::string key, int call, int returned, std::string value, Revision revision) {
  Operation built = operation(client, Verb::Get, std::move(key), call, returned, Outcome::Ok);
  built.found = Versioned{std::move(value), revision};
  return built;
}

inline Operation get_not_found(int client, std::string key, int call, int returned) {
  return operation(client, Verb::Get, std::move(key), call, returned, Outcome::NotFound);
}

// CREATE; `revision` is what an Ok answer said.
inline Operation create(int client, std::string key, std::string value, int call, int returned,
                        Outcome outcome = Outcome::Ok, Revision revision = 0) {
  Operation built = operation(client, Verb::Create, std::move(key), call, returned, outcome);
  built.value = std::move(value);
  built.revision = revision;
  return built;
}

inline Operation update(int client, std::string key, std::string value, Revision precondition, int call, int returned,
                        Outcome outcome = Outcome::Ok, Revision revision = 0) {
  Operation built = operation(client, Verb::Update, std::move(key), call, returned, outcome);
  built.value = std::move(value);
  built.precondition = precondition;
  built.revision = revision;
  return built;
}

inline Operation remove(int client, std::string key, int call, int returned, Outcome outcome = Outcome::Ok,
                        std::optional<Revision> precondition = std::nullopt) {
  Operation built = operation(client, Verb::Delete, std::move(key), call, returned, outcome);
  built.precondition = precondition;
  return built;
}

inline Operation list(int client, int call, int returned, Revision revision,
                      std::initializer_list<std::pair<const std::string, Versioned>> items) {
  Operation built = operation(client, Verb::List, "", call, returned, Outcome::Ok);
  built.revision = revision;
  built.items = items;
  return built;
}

// The same operation with its answer lost: it may or may not have taken effect.
inline Operation unknown(Operation operation) {
  operation.outcome = Outcome::Unknown;
  operation.revision = 0;
  return operation;
}

inline WatchEvent added(std::string key, std::string value, Revision revision) {
  return {EventType::Added, std::move(key), {std::move(value), revision}};
}
inline WatchEvent modified(std::string key, std::string value, Revision revision) {
  return {EventType::Modified, std::move(key), {std::move(value), revision}};
}
inline WatchEvent deleted(std::string key, std::string value, Revision revision) {
  return {EventType::Deleted, std::move(key), {std::move(value), revision}};
}

}  // namespace kapi::test_support::linearizability::builders
