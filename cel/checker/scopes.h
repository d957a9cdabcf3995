#pragma once
// Declaration scopes of comprehension variables, as cel-go's checker/scopes.go stacks them over the environment's
// declarations: the innermost scope wins, so an iteration variable shadows an outer one of the same name.
// Internal to cel/checker.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cel/types.h"

namespace kapi::cel::checker {

class Scopes {
 public:
  void push() { scopes_.emplace_back(); }
  void pop() {
    if (!scopes_.empty()) scopes_.pop_back();
  }
  void add(std::string name, Type type) { scopes_.back().insert_or_assign(std::move(name), std::move(type)); }

  const Type* find(std::string_view name) const {
    for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
      auto it = scope->find(name);
      if (it != scope->end()) return &it->second;
    }
    return nullptr;
  }

 private:
  std::vector<std::map<std::string, Type, std::less<>>> scopes_;
};

}  // namespace kapi::cel::checker
