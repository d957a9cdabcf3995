#include "tests/support/linearizability/history.h"

#include <algorithm>
#include <cstdio>

namespace kapi::test_support::linearizability {
namespace {

std::string milliseconds_since(Clock::time_point origin, Clock::time_point when) {
  char text[32];
  std::snprintf(text, sizeof text, "+%.3f ms", std::chrono::duration<double, std::milli>(when - origin).count());
  return text;
}

std::string versioned(const Versioned& object) { return object.value + "@" + std::to_string(object.revision); }

}  // namespace

std::string_view name_of(Verb verb) {
  switch (verb) {
    case Verb::Get: return "GET";
    case Verb::Create: return "CREATE";
    case Verb::Update: return "UPDATE";
    case Verb::Delete: return "DELETE";
    case Verb::List: return "LIST";
  }
  return "?";
}

std::string_view name_of(Outcome outcome) {
  switch (outcome) {
    case Outcome::Ok: return "Ok";
    case Outcome::NotFound: return "NotFound";
    case Outcome::AlreadyExists: return "AlreadyExists";
    case Outcome::Conflict: return "Conflict";
    case Outcome::Unknown: return "Unknown";
  }
  return "?";
}

std::string describe(const Operation& operation, Clock::time_point origin) {
  std::string text = "c" + std::to_string(operation.client) + " " + std::string(name_of(operation.verb));
  if (!operation.key.empty()) text += " " + operation.key;
  if (operation.precondition) text += " if rv=" + std::to_string(*operation.precondition);
  if (!operation.value.empty()) text += " value=" + operation.value;
  text += " → " + std::string(name_of(operation.outcome));
  if (operation.outcome == Outcome::Ok) {
    if (operation.found) text += " " + versioned(*operation.found);
    if (operation.verb == Verb::Create || operation.verb == Verb::Update) {
      text += " rv=" + std::to_string(operation.revision);
    }
    if (operation.verb == Verb::List) {
      text += " rv=" + std::to_string(operation.revision) + " {";
      const char* separator = "";
      for (const auto& [key, object] : operation.items) {
        text += separator + key + "=" + versioned(object);
        separator = ", ";
      }
      text += "}";
    }
  }
  text +=
      " [" + milliseconds_since(origin, operation.call) + ", " +
      (operation.outcome == Outcome::Unknown ? std::string("open") : milliseconds_since(origin, operation.returned)) +
      "]";
  return text;
}

Clock::time_point origin_of(const History& history) {
  if (history.empty()) return {};
  return std::min_element(history.begin(), history.end(),
                          [](const Operation& a, const Operation& b) { return a.call < b.call; })
      ->call;
}

}  // namespace kapi::test_support::linearizability
