#include "cel/env.h"

#include <stdexcept>

namespace kapi::cel {

void Env::add_library(const Library& library) {
  for (const Function& f : library.functions) add_function(f);
  for (const Variable& v : library.variables) add_variable(v.name, v.type);
  for (const Type& t : library.types) add_type(t);
  for (const std::string& m : library.macros) parser_options.extra_macros.push_back(m);
}

void Env::add_function(Function function) {
  auto [it, inserted] = functions_.try_emplace(function.name, Function{function.name, {}});
  std::vector<Overload>& overloads = it->second.overloads;
  for (Overload& overload : function.overloads) {
    bool known = false;
    for (const Overload& existing : overloads) {
      if (existing.id != overload.id) continue;
      if (existing.params != overload.params || existing.member != overload.member) {
        throw std::logic_error("overload " + overload.id + " of " + function.name + " declared twice differently");
      }
      known = true;
    }
    if (!known) overloads.push_back(std::move(overload));
  }
}

void Env::add_variable(std::string name, Type type) { variables_.insert_or_assign(std::move(name), std::move(type)); }

void Env::add_type(Type type) {
  std::string name(type.name());
  types_.insert_or_assign(std::move(name), std::move(type));
}

const Function* Env::find_function(std::string_view name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second;
}

const Type* Env::find_variable(std::string_view name) const {
  auto it = variables_.find(name);
  return it == variables_.end() ? nullptr : &it->second;
}

const Type* Env::find_type(std::string_view name) const {
  auto it = types_.find(name);
  return it == types_.end() ? nullptr : &it->second;
}

}  // namespace kapi::cel
