#pragma once
// What the strategies' unit tests share: objects written as JSON text, and an ErrorList as kube prints its
// causes, one "path: Type value: detail" line each.
#include "server/validation/field_error.h"

#include <boost/json.hpp>

#include <string>
#include <string_view>

namespace kapi::apis::strategy_testing {

inline boost::json::object parse(std::string_view text) { return boost::json::parse(text).as_object(); }

inline std::string messages(const validation::ErrorList& errors) {
  std::string out;
  for (const auto& error : errors) out += error.text() + "\n";
  return out;
}

}  // namespace kapi::apis::strategy_testing
