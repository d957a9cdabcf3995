#include "tests/unit/server/structured_merge/smd_schema_yaml.h"

#include "server/schema/yaml_to_json.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kapi::structured_merge::testing {
namespace {

ElementRelationship list_relationship(const std::string& text) {
  // smd treats every list that is not associative as atomic (indexed by position).
  return text == "associative" ? ElementRelationship::kAssociative : ElementRelationship::kAtomic;
}

ElementRelationship map_relationship(const std::string& text) {
  return text == "atomic" ? ElementRelationship::kAtomic : ElementRelationship::kSeparable;
}

// nullopt for a scalar type smd does not know (some of its test schemas say "number"): smd accepts the schema and
// refuses only values that reach it.
std::optional<ScalarKind> scalar_kind(const std::string& text) {
  if (text == "numeric") return ScalarKind::kNumeric;
  if (text == "string") return ScalarKind::kString;
  if (text == "boolean") return ScalarKind::kBoolean;
  if (text == "untyped") return ScalarKind::kUntyped;
  return std::nullopt;
}

// Overrides a map's or list's element relationship, as schema.Resolve does for a reference that has one.
void override_relationship(TypeDef& type, const std::string& relationship) {
  if (type.map) {
    type.map_relationship = map_relationship(relationship);
  } else if (type.list) {
    type.list_relationship = list_relationship(relationship);
  } else {
    throw std::invalid_argument("elementRelationship override on a type that is neither a map nor a list");
  }
}

class SchemaBuilder {
 public:
  Schema build(const YAML::Node& document) {
    const YAML::Node types = document["types"];
    // Every named type exists before any is filled in, so that references may point forward.
    std::vector<std::pair<TypeDef*, YAML::Node>> named;
    for (const YAML::Node& type : types) {
      const std::string name = type["name"].as<std::string>("");
      if (name == schema_.deduced()->name) continue;  // the schema's own, with the same semantics
      if (name.empty()) throw std::invalid_argument("a top-level type without a name");
      TypeDef placeholder;
      placeholder.name = name;
      named.emplace_back(&schema_.add(std::move(placeholder)), type);
    }
    for (auto& [type, node] : named) fill_atom(*type, node);
    // Overriding copies wait for the named types they copy to be filled in.
    for (const Override& pending : overrides_) {
      *pending.copy = *find(pending.named_type);  // known: reference() made no copy of an unknown type
      pending.copy->name.clear();
      override_relationship(*pending.copy, pending.relationship);
    }
    return std::move(schema_);
  }

 private:
  struct Override {
    TypeDef* copy;
    std::string named_type;
    std::string relationship;
  };

  // A reference to an unknown type is no type (nullptr): smd only finds out when a value reaches it, and some of
  // its test schemas name types they never define for fields their values never set.
  TypeRef find(const std::string& name) const { return schema_.find(name); }

  // A TypeRef: a named type (possibly with an overridden relationship) or an inlined atom; nullptr when the node
  // says nothing (smd's empty TypeRef).
  TypeRef reference(const YAML::Node& node) {
    if (!node || node.IsNull() || (node.IsMap() && node.size() == 0)) return nullptr;
    const YAML::Node relationship = node["elementRelationship"];
    if (const YAML::Node named_type = node["namedType"]) {
      const std::string name = named_type.as<std::string>();
      TypeRef named = find(name);
      if (!relationship || named == nullptr) return named;
      TypeDef& copy = schema_.add(TypeDef{});
      overrides_.push_back({&copy, name, relationship.as<std::string>()});
      return &copy;
    }
    TypeDef& inlined = schema_.add(TypeDef{});
    fill_atom(inlined, node);
    if (relationship) override_relationship(inlined, relationship.as<std::string>());
    return &inlined;
  }

  void fill_atom(TypeDef& type, const YAML::Node& node) {
    if (const YAML::Node scalar = node["scalar"]) {
      // An unknown scalar type is none: a value reaching it is refused (as an invalid atom).
      const std::optional<ScalarKind> kind = scalar_kind(scalar.as<std::string>());
      type.scalar = kind.has_value();
      type.scalar_kind = kind.value_or(ScalarKind::kUntyped);
    }
    if (const YAML::Node list = node["list"]) {
      type.list = true;
      type.list_element = reference(list["elementType"]);
      type.list_relationship = list_relationship(list["elementRelationship"].as<std::string>(""));
      for (const YAML::Node& key : list["keys"]) type.keys.push_back(key.as<std::string>());
    }
    if (const YAML::Node map = node["map"]) {
      type.map = true;
      for (const YAML::Node& field : map["fields"]) {
        StructField& added = type.fields.emplace_back();
        added.name = field["name"].as<std::string>();
        added.type = reference(field["type"]);
        if (const YAML::Node default_value = field["default"]) {
          YAML::Emitter emitter;
          emitter << default_value;
          added.default_value = value_from_yaml(emitter.c_str());
        }
      }
      std::sort(type.fields.begin(), type.fields.end(),
                [](const StructField& a, const StructField& b) { return a.name < b.name; });
      type.map_element = reference(map["elementType"]);
      type.map_relationship = map_relationship(map["elementRelationship"].as<std::string>(""));
    }
  }

  Schema schema_;
  std::vector<Override> overrides_;
};

}  // namespace

Schema schema_from_yaml(std::string_view yaml) {
  YAML::Node document;
  try {
    document = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& error) {
    throw std::invalid_argument(std::string("schema YAML: ") + error.what());
  }
  return SchemaBuilder().build(document);
}

boost::json::value value_from_yaml(std::string_view yaml) { return kapi::schema::yaml_to_json(yaml).value; }

}  // namespace kapi::structured_merge::testing
