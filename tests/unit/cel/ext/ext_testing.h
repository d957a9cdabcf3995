#pragma once
// Calling a library's overloads directly, by id, as the interpreter would once it has chosen one.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "cel/ext/libraries.h"
#include "cel/function.h"
#include "cel/value.h"

namespace kapi::cel::ext::testing {

inline const Overload* find_overload(const Library& library, std::string_view id) {
  for (const Function& function : library.functions)
    for (const Overload& overload : function.overloads)
      if (overload.id == id) return &overload;
  return nullptr;
}

inline Value call(const Library& library, std::string_view id, std::vector<Value> args) {
  const Overload* overload = find_overload(library, id);
  if (!overload) {
    ADD_FAILURE() << "no overload " << id << " in " << library.name;
    return Value::error(ErrorCode::kGeneric, "missing overload");
  }
  if (overload->params.size() != args.size())
    ADD_FAILURE() << id << " takes " << overload->params.size() << " arguments, called with " << args.size();
  return overload->impl(args);
}

inline std::string error_of(const Value& v) { return v.is_error() ? v.get<Error>().message : "<not an error>"; }

inline Value strings(std::vector<std::string> items) {
  std::vector<Value> values;
  for (auto& s : items) values.emplace_back(std::move(s));
  return Value::list(std::move(values));
}

inline Value ints(std::vector<std::int64_t> items) {
  std::vector<Value> values;
  for (auto i : items) values.emplace_back(i);
  return Value::list(std::move(values));
}

}  // namespace kapi::cel::ext::testing
