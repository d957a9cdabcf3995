#pragma once
// Shared by the patch tests: JSON literals, and the PatchError a call throws.
#include "server/patch/patch_error.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <optional>
#include <string_view>

namespace kapi::patch::testing {

inline boost::json::value json(std::string_view text) {
  boost::json::parse_options options;
  options.max_depth = 100000;
  return boost::json::parse(text, {}, options);
}

// The PatchError `apply` throws; a test failure (and nullopt) when it throws nothing.
template <class Apply>
std::optional<PatchError> patch_error(Apply&& apply) {
  try {
    apply();
  } catch (const PatchError& error) {
    return error;
  }
  ADD_FAILURE() << "expected a PatchError";
  return std::nullopt;
}

}  // namespace kapi::patch::testing
