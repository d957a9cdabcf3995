#include "server/admission/attributes.h"
#include "server/admission/errors.h"

namespace kapi::admission {

std::string_view to_string(Operation operation) {
  switch (operation) {
    case Operation::Create: return "CREATE";
    case Operation::Update: return "UPDATE";
    case Operation::Delete: return "DELETE";
    case Operation::Connect: return "CONNECT";
  }
  return "";
}

bool Attributes::add_annotation(const std::string& key, std::string value) const {
  if (!context) return true;
  auto [it, inserted] = context->audit_annotations.try_emplace(key, std::move(value));
  return inserted || it->second == value;
}

bool Attributes::add_request_level_annotation(const std::string& key, std::string value) const {
  if (!context || !context->audit_records_requests) return true;
  return add_annotation(key, std::move(value));
}

void Attributes::add_warning(std::string warning) const {
  if (context) context->warnings.push_back(std::move(warning));
}

apierrors::ApiError forbidden(const Attributes& attributes, std::string message) {
  std::string name = attributes.name;
  if (name.empty()) {
    name = "Unknown";
    if (attributes.object) {
      if (auto meta = attributes.object->if_contains("metadata"); meta && meta->is_object()) {
        auto field = [&](std::string_view key) -> std::string_view {
          auto value = meta->as_object().if_contains(key);
          return value && value->is_string() ? std::string_view(value->as_string()) : std::string_view();
        };
        if (!field("name").empty()) name = field("name");
        else if (!field("generateName").empty()) name = field("generateName");
      }
    }
  }
  return apierrors::ApiError(
      apierrors::forbidden(attributes.resource.group, attributes.resource.resource, name, std::move(message)));
}

}  // namespace kapi::admission
