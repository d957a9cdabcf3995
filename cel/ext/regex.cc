// kube's regex library (k8s.io/apiserver/pkg/cel/library/regex.go): find and findAll with Go's regexp semantics
// (RE2 syntax, leftmost-first; FindAllString skips an empty match right after the previous match) and Go's
// compile error texts ("Illegal regex: error parsing regexp: missing closing ]: `[a`").
#include <re2/re2.h>

#include <mutex>
#include <unordered_map>

#include "base/go_regexp.h"
#include "base/utf8.h"
#include "cel/ext/ext_util.h"
#include "cel/ext/libraries.h"

namespace kapi::cel::ext {
namespace {

// Compiled patterns by text, shared by the library's overloads (kube compiles constant patterns once per
// program; a cache gives expressions whose pattern is computed the same). Bounded: emptied when full.
class RegexCache {
 public:
  // The compiled pattern, or kube's error value.
  std::variant<std::shared_ptr<const RE2>, Value> get(const std::string& pattern) {
    {
      std::lock_guard lock(mutex_);
      if (auto it = compiled_.find(pattern); it != compiled_.end()) return it->second;
    }
    auto re = std::make_shared<const RE2>(pattern, base::go_regexp_options());
    if (!re->ok())
      return error_value("Illegal regex: " + base::go_regexp_error(*re));
    std::lock_guard lock(mutex_);
    if (compiled_.size() >= kMaxEntries) compiled_.clear();
    compiled_.emplace(pattern, re);
    return re;
  }

 private:
  static constexpr std::size_t kMaxEntries = 256;
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const RE2>> compiled_;
};

Value find(RegexCache& cache, std::span<const Value> args) {
  auto compiled = cache.get(args[1].get<std::string>());
  if (auto* error = std::get_if<Value>(&compiled)) return *error;
  const RE2& re = *std::get<std::shared_ptr<const RE2>>(compiled);
  const std::string& text = args[0].get<std::string>();
  re2::StringPiece match;
  if (!re.Match(text, 0, text.size(), RE2::UNANCHORED, &match, 1)) return std::string();
  return std::string(match);
}

// regexp.FindAllString(text, n); n < 0 means all.
Value find_all(RegexCache& cache, const std::string& text, const std::string& pattern, std::int64_t n) {
  auto compiled = cache.get(pattern);
  if (auto* error = std::get_if<Value>(&compiled)) return *error;
  const RE2& re = *std::get<std::shared_ptr<const RE2>>(compiled);
  std::vector<std::string> matches;
  if (n < 0) n = static_cast<std::int64_t>(text.size()) + 1;
  std::size_t pos = 0;
  std::ptrdiff_t previous_end = -1;
  while (static_cast<std::int64_t>(matches.size()) < n && pos <= text.size()) {
    re2::StringPiece match;
    if (!re.Match(text, pos, text.size(), RE2::UNANCHORED, &match, 1)) break;
    const std::size_t start = static_cast<std::size_t>(match.data() - text.data());
    const std::size_t end = start + match.size();
    bool accept = true;
    if (end == pos) {
      // An empty match: never right after the previous match; step over one code point.
      if (static_cast<std::ptrdiff_t>(start) == previous_end) accept = false;
      pos += pos < text.size() ? base::decode_rune(std::string_view(text).substr(pos)).width : 1;
    } else {
      pos = end;
    }
    previous_end = static_cast<std::ptrdiff_t>(end);
    if (accept) matches.emplace_back(match);
  }
  return string_list(std::move(matches));
}

}  // namespace

Library regex_library() {
  const Type s = Type::string_type();
  auto cache = std::make_shared<RegexCache>();
  Library lib{.name = "kubernetes.regex"};
  lib.functions = {
      Function{"find", {member_overload("string_find_string", {s, s}, s,
                                        [cache](std::span<const Value> args) { return find(*cache, args); })}},
      Function{"findAll",
               {member_overload("string_find_all_string", {s, s}, Type::list(s),
                                [cache](std::span<const Value> args) {
                                  return find_all(*cache, args[0].get<std::string>(), args[1].get<std::string>(), -1);
                                }),
                member_overload("string_find_all_string_int", {s, s, Type::int_type()}, Type::list(s),
                                [cache](std::span<const Value> args) {
                                  return find_all(*cache, args[0].get<std::string>(), args[1].get<std::string>(),
                                                  args[2].get<std::int64_t>());
                                })}},
  };
  return lib;
}

}  // namespace kapi::cel::ext
