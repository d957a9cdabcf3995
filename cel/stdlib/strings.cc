// String functions of cel-go's standard library (common/stdlib/standard.go; types.StringContains, StringEndsWith,
// StringStartsWith, String.Match): matches() searches with RE2, whose syntax Go's regexp implements. Patterns are
// compiled once and shared: programs usually match against a constant pattern on every evaluation.
#include <mutex>
#include <unordered_map>

#include <re2/re2.h>

#include "cel/stdlib/builders.h"

namespace kapi::cel::stdlib {
namespace {

// Compiled patterns, shared by every program of the environment (thread-safe; bounded so that patterns built
// from data cannot grow it without limit).
class RegexCache {
 public:
  std::shared_ptr<const RE2> get(const std::string& pattern) {
    {
      std::lock_guard lock(mutex_);
      auto it = compiled_.find(pattern);
      if (it != compiled_.end()) return it->second;
    }
    RE2::Options options;
    options.set_log_errors(false);
    auto regex = std::make_shared<const RE2>(pattern, options);
    std::lock_guard lock(mutex_);
    if (compiled_.size() >= kCapacity) compiled_.clear();
    compiled_.emplace(pattern, regex);
    return regex;
  }

 private:
  static constexpr std::size_t kCapacity = 256;
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const RE2>> compiled_;
};

FunctionImpl matcher(std::shared_ptr<RegexCache> cache) {
  return [cache = std::move(cache)](std::span<const Value> args) -> Value {
    std::shared_ptr<const RE2> regex = cache->get(args[1].get<std::string>());
    if (!regex->ok()) {
      return error(ErrorCode::kInvalidArgument, "error parsing regexp: " + regex->error());
    }
    return Value(RE2::PartialMatch(args[0].get<std::string>(), *regex));
  };
}

}  // namespace

std::vector<Function> string_functions() {
  const Type s = Type::string_type(), b = Type::bool_type();
  auto cache = std::make_shared<RegexCache>();
  std::vector<Function> out;
  out.push_back({"contains", {member("contains_string", {s, s}, b, [](std::span<const Value> a) {
                   return Value(a[0].get<std::string>().find(a[1].get<std::string>()) != std::string::npos);
                 })}});
  out.push_back({"endsWith", {member("ends_with_string", {s, s}, b, [](std::span<const Value> a) {
                   return Value(a[0].get<std::string>().ends_with(a[1].get<std::string>()));
                 })}});
  out.push_back({"startsWith", {member("starts_with_string", {s, s}, b, [](std::span<const Value> a) {
                   return Value(a[0].get<std::string>().starts_with(a[1].get<std::string>()));
                 })}});
  out.push_back({"matches", {global("matches", {s, s}, b, matcher(cache)),
                             member("matches_string", {s, s}, b, matcher(cache))}});
  return out;
}

}  // namespace kapi::cel::stdlib
